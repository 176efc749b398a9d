"""volperf's own PostgreSQL: initdb + postgres from Debian's versioned bin directory,
listening on no TCP address, its socket in a private directory, options (-c) from the
campaign (shared_buffers …)."""

from __future__ import annotations

import signal
from pathlib import Path

from harness.host.databases.server import (
    SYSBENCH_DATABASE,
    DatabaseServer,
    ServerError,
    find_program,
    run_client,
)

PGBENCH_DATABASE = "pgbench"  # the database pgbench uses (tools/pgbench/command.py)
DATABASES = (SYSBENCH_DATABASE, PGBENCH_DATABASE)
SUPERUSER = "postgres"


def bindir() -> Path:
    """The newest PostgreSQL installed the Debian way (/usr/lib/postgresql/<major>/bin)."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/postgres"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1].parent
    postgres = find_program("postgres")
    return Path(postgres).resolve().parent


class PostgreSQLServer(DatabaseServer):
    engine = "postgresql"
    service_user = "postgres"
    stop_signal = signal.SIGINT  # "fast" shutdown: roll back clients, checkpoint, exit

    @staticmethod
    def _program(name: str) -> str:
        program = bindir() / name
        if not program.is_file():
            raise ServerError(f"{program} is not installed (run tools/setup.sh)")
        return str(program)

    @classmethod
    def server_program(cls) -> str:
        return cls._program("postgres")

    def initialized(self) -> bool:
        return (self.datadir / "PG_VERSION").is_file()

    def initialize_command(self) -> list[str]:
        return [
            self._program("initdb"),
            "-D",
            str(self.datadir),
            "-U",
            SUPERUSER,
            "--auth=trust",  # only reachable on our private socket
            "--no-sync",  # initdb's own fsyncs do not matter: the data is recreated
        ]

    def server_command(self) -> list[str]:
        settings = {"listen_addresses": "", "unix_socket_directories": str(self.socket_dir)}
        settings.update({key: str(value) for key, value in self.options.items()})
        command = [self.server_program(), "-D", str(self.datadir)]
        for key, value in settings.items():
            command += ["-c", f"{key}={value}"]
        return command

    def ping_command(self) -> list[str]:
        return [self._program("pg_isready"), "-q", "-h", str(self.socket_dir), "-U", SUPERUSER]

    def psql(self, database: str = "postgres") -> list[str]:
        return [self._program("psql"), "-X", "-h", str(self.socket_dir), "-U", SUPERUSER, database]

    def database_bytes(self, database: str) -> int:
        """The database's files on disk, as PostgreSQL counts them."""
        query = f"SELECT pg_database_size('{database}')"
        said = run_client([*self.psql(), "-tAc", query], f"postgresql {self.name}: size query")
        return int(said.strip())

    def create_databases(self) -> None:
        for name in DATABASES:
            query = f"SELECT 1 FROM pg_database WHERE datname = '{name}'"
            exists = run_client([*self.psql(), "-tAc", query], f"postgresql {self.name}: query")
            if exists.strip() != "1":
                run_client(
                    [*self.psql(), "-c", f"CREATE DATABASE {name}"],
                    f"postgresql {self.name}: creating database {name}",
                )

    def sysbench_options(self) -> list[str]:
        return [
            "--db-driver=pgsql",
            f"--pgsql-host={self.socket_dir}",
            f"--pgsql-user={SUPERUSER}",
            "--pgsql-db=sbtest",
        ]

    def pgbench(self) -> list[str]:
        return [self._program("pgbench"), "-h", str(self.socket_dir), "-U", SUPERUSER]
