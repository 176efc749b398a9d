"""volperf's own database servers: MariaDB and PostgreSQL instances it starts with their
data on the storage under test, on a private socket, and stops and removes afterwards."""
