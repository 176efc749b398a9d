"""Neutron's API for the testbed. Listing ports names relations that other models add to
Port as backrefs (Port.port_forwardings, Port.distributed_port_binding); SQLAlchemy adds
them only when the mappers are configured, which nothing has done yet if listing ports is
the server's first query (it is, for Nova's first server), so that request fails with
AttributeError. Import every model (as neutron-db-manage does) and configure the mappers
before serving."""

import neutron.db.migration.models.head  # noqa: F401 - imported for its models
from neutron.wsgi.api import application  # noqa: F401 - what uwsgi serves
from sqlalchemy import orm

orm.configure_mappers()
