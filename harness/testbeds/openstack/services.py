"""What runs in the OpenStack testbed: one uWSGI per API (the trial bring-up's settings,
with `Connection: close`, as keep-alive connections were reset under load) and the
daemons, each a session leader started from the services' venv."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.core.resources import package_path

PORT_NAMES = (
    "keystone",
    "glance",
    "placement",
    "nova",
    "neutron",
    "cinder",
    "heat",
    "amqp",
    "amqp_dist",
    "epmd",
)
DEFAULT_BASE_PORT = 21000  # below the ephemeral range, as the Ceph testbed's (ceph.Ports)


def ports_from_base(base: int) -> dict[str, int]:
    return {name: base + offset for offset, name in enumerate(PORT_NAMES)}


GLANCE_CHUNK_LIMIT = 8 << 20
# how long glance-api waits for the next chunk of an upload: uWSGI's default is its socket
# timeout, 4 s, and on a saturated CPU Cinder's upload of a volume to an image paused
# longer (both uploads of a lifecycle run failed: "unable to receive chunked part")
GLANCE_CHUNK_TIMEOUT_S = 120


@dataclass(frozen=True)
class Api:
    name: str
    module: str
    processes: int = 2
    config_env: str = ""  # the service reads its config dir from this variable
    config_argv: str = ""  # else from --pyargv (its config file under etc/)
    shim: bool = False  # the module is one of ours, in wsgi/ beside this file
    options: tuple[str, ...] = ()  # more of uWSGI's options

    def command(
        self, venv: Path, state: Path, port: int, more_addresses: tuple[str, ...] = ()
    ) -> list[str]:
        """``more_addresses``: where else it listens on the same port (heat-api on the
        real guests' network)."""
        sockets = [
            arg for a in ("127.0.0.1", *more_addresses) for arg in ("--http-socket", f"{a}:{port}")
        ]
        argv = [
            str(venv / "bin" / "uwsgi"),
            *sockets,
            "--module",
            self.module,
            "--virtualenv",
            str(venv),
            "--master",
            "--processes",
            str(self.processes),
            "--threads",
            "4",
            "--enable-threads",
            "--lazy-apps",
            "--die-on-term",
            "--buffer-size",
            "65535",
            "--add-header",
            "Connection: close",
            "--chdir",
            str(state),  # also what marks the process as this testbed's
        ]
        argv += self.options
        if self.shim:
            argv += ["--pythonpath", str(package_path("harness.testbeds.openstack", "wsgi"))]
        if self.config_argv:
            config = state / "etc" / self.config_argv
            argv += ["--pyargv", f"--config-file {config}"]
        return argv


APIS = (
    # one process: its cache is in-process (templates/keystone.conf.j2)
    Api(
        "keystone",
        "keystone.wsgi.api:application",
        processes=1,
        config_env="OS_KEYSTONE_CONFIG_DIR",
    ),
    Api(
        "glance-api",
        "glance.wsgi.api:application",
        1,
        config_env="OS_GLANCE_CONFIG_DIR",
        # an upload arrives in chunks of glanceclient's 1 MiB, uWSGI's default limit
        # for a chunk: Cinder's upload of a volume to an image failed on it
        options=(
            *("--chunked-input-limit", str(GLANCE_CHUNK_LIMIT)),
            *("--chunked-input-timeout", str(GLANCE_CHUNK_TIMEOUT_S)),
        ),
    ),
    Api("placement-api", "placement.wsgi.api:application", config_env="OS_PLACEMENT_CONFIG_DIR"),
    Api("nova-api", "nova.wsgi.osapi_compute:application", config_env="OS_NOVA_CONFIG_DIR"),
    Api(
        "neutron-api",
        "volperf_neutron_wsgi:application",
        1,
        config_env="OS_NEUTRON_CONFIG_DIR",
        shim=True,
    ),
    Api("cinder-api", "cinder.wsgi.api:application", config_argv="cinder/cinder.conf"),
    Api("heat-api", "heat.wsgi.api:application", 1, config_argv="heat/heat.conf"),
)
API_PORT = {
    "keystone": "keystone",
    "glance-api": "glance",
    "placement-api": "placement",
    "nova-api": "nova",
    "neutron-api": "neutron",
    "cinder-api": "cinder",
    "heat-api": "heat",
}
CONFIG_DIRS = {
    "keystone": "keystone",
    "glance-api": "glance",
    "placement-api": "placement",
    "nova-api": "nova",
    "neutron-api": "neutron",
}

# name -> (program, config files under etc/)
DAEMONS = {
    "nova-conductor": ("nova-conductor", ("nova/nova.conf",)),
    "nova-scheduler": ("nova-scheduler", ("nova/nova.conf",)),
    "nova-compute": ("nova-compute", ("nova/nova.conf",)),
    "cinder-scheduler": ("cinder-scheduler", ("cinder/cinder.conf",)),
    "cinder-volume": ("cinder-volume", ("cinder/cinder.conf",)),
    "cinder-backup": ("cinder-backup", ("cinder/cinder.conf",)),
    "heat-engine": ("heat-engine", ("heat/heat.conf",)),
}
# what real guests need beside them: Neutron's RPC for its agent, the macvtap agent that
# binds the guests' ports, and Neutron's periodic workers
NEUTRON_CONFIGS = ("neutron/neutron.conf", "neutron/ml2_conf.ini")
REAL_GUEST_DAEMONS = {
    "neutron-rpc-server": ("neutron-rpc-server", NEUTRON_CONFIGS),
    "neutron-periodic-workers": ("neutron-periodic-workers", NEUTRON_CONFIGS),
    "neutron-macvtap-agent": ("volperf_macvtap_agent.py", NEUTRON_CONFIGS),  # shims/
}


# os-brick reads a Ceph user's keyring only from /etc/ceph (Cinder no longer hands it out,
# OSSN-0085), and Cinder attaches volumes through os-brick to back them up (cinder-backup)
# and to upload them to Glance (cinder-volume): both run in a mount namespace of their own
# where /etc/ceph is the testbed's etc/ceph, so the host's /etc/ceph is never written
OWN_ETC_CEPH = ("cinder-volume", "cinder-backup")
ETC_CEPH = Path("/etc/ceph")


def daemon_command(name: str, venv: Path, state: Path) -> list[str]:
    program, configs = {**DAEMONS, **REAL_GUEST_DAEMONS}[name]
    argv = [str(venv / "bin" / program)]
    if program.endswith(".py"):  # one of ours, run by the venv's Python
        argv = [str(venv / "bin" / "python"), str(package_path(__package__, "shims") / program)]
    if name in OWN_ETC_CEPH:
        bind = f'mount --bind "$0" {ETC_CEPH} && exec "$@"'
        argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c", bind]
        argv += [str(state / "etc" / "ceph"), str(venv / "bin" / program)]
    for config in configs:
        argv += ["--config-file", str(state / "etc" / config)]
    return argv + ["--log-file", str(state / "log" / f"{name}.log")]
