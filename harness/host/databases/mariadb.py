"""volperf's own MariaDB: mariadbd with no config file read (--no-defaults), no TCP,
a socket and temporary files in a private directory, options from the campaign (buffer
pool …)."""

from __future__ import annotations

import signal
from pathlib import Path

from harness.host.databases.server import (
    SYSBENCH_DATABASE,
    DatabaseServer,
    find_program,
    run_client,
)
from harness.host.machine import directory_bytes

DATABASE = SYSBENCH_DATABASE


class MariaDBServer(DatabaseServer):
    engine = "mariadb"
    service_user = "mysql"
    stop_signal = signal.SIGTERM  # mariadbd shuts down cleanly on SIGTERM

    @property
    def socket(self) -> Path:
        return self.socket_dir / "mysqld.sock"

    @property
    def tmpdir(self) -> Path:
        """Its temporary files' own folder, not the /tmp every server shares by default:
        there a killed server leaves its temporary tables under names with its pid in
        them, which a later server (or its bootstrap) of the same pid meets."""
        return self.socket_dir / "tmp"

    def private_dirs(self) -> list[Path]:
        return [self.socket_dir, self.tmpdir]

    def initialized(self) -> bool:
        return (self.datadir / "mysql").is_dir()

    def initialize_command(self) -> list[str]:
        command = [
            find_program("mariadb-install-db"),
            "--no-defaults",
            f"--datadir={self.datadir}",
            "--auth-root-authentication-method=normal",  # only reachable on our socket
            "--skip-test-db",
            f"--tmpdir={self.tmpdir}",
            *self._options(),  # the bootstrap server sizes its files with them
        ]
        return command + ([f"--user={self.user}"] if self.user else [])

    def _options(self) -> list[str]:
        return [f"--{key.replace('_', '-')}={value}" for key, value in self.options.items()]

    @classmethod
    def server_program(cls) -> str:
        return find_program("mariadbd", "/usr/sbin/mariadbd")

    def server_command(self) -> list[str]:
        return [
            self.server_program(),
            "--no-defaults",
            f"--datadir={self.datadir}",
            f"--socket={self.socket}",
            "--skip-networking",
            f"--pid-file={self.socket_dir / 'mysqld.pid'}",
            f"--log-error={self.log}",
            f"--tmpdir={self.tmpdir}",
            *self._options(),
        ]

    def client(self) -> list[str]:
        return [find_program("mariadb"), "--no-defaults", f"--socket={self.socket}", "-uroot"]

    def ping_command(self) -> list[str]:
        admin = find_program("mariadb-admin")
        return [admin, "--no-defaults", f"--socket={self.socket}", "-uroot", "ping"]

    def create_databases(self) -> None:
        run_client(
            [*self.client(), "-e", f"CREATE DATABASE IF NOT EXISTS {DATABASE}"],
            f"mariadb {self.name}: creating database {DATABASE}",
        )

    def database_bytes(self, database: str) -> int:
        """The database's files on disk (InnoDB keeps a file per table in its folder)."""
        return directory_bytes(self.datadir / database)

    def sysbench_options(self) -> list[str]:
        return [
            "--db-driver=mysql",
            f"--mysql-socket={self.socket}",
            "--mysql-user=root",
            f"--mysql-db={DATABASE}",
        ]
