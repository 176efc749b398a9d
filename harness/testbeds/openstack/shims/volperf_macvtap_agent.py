"""neutron-macvtap-agent for the testbed. The agent checks its interfaces through
oslo.privsep before oslo.service forks its worker (the threading backend, neutron 29), so
the worker inherits a privsep client whose reader thread did not survive the fork, and its
first privileged call (listing devices to name itself) waits forever: the agent never
reports and no port is ever bound. The testbed runs its services as root, so the agent's
privileged calls run in the agent itself (oslo.privsep's client mode off), as Neutron's
own functional tests run them."""

from neutron import privileged
from neutron.cmd.plugins.macvtap_neutron_agent import main
from oslo_privsep import priv_context

for context in vars(privileged).values():
    if isinstance(context, priv_context.PrivContext):
        context.set_client_mode(False)

if __name__ == "__main__":
    main()
