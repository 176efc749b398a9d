"""The OpenStack testbed's own MariaDB and RabbitMQ, from Debian's packages, with every file
under the testbed's state dir: MariaDB on a Unix socket only, RabbitMQ on loopback ports of
the testbed's (AMQP, Erlang distribution and its own epmd), so nothing of the host's is used
or stopped."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from harness.host.databases.mariadb import MariaDBServer
from harness.host.databases.server import ServerError, run_client
from harness.testbeds import TestbedError

RABBIT_SERVER = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")
RABBIT_USER = "openstack"
START_TIMEOUT_S = 120.0
# a setup command (a schema's migration or load, Keystone's bootstrap) that takes about a minute
# alone: on a machine busy with a whole test suite, Keystone's bootstrap once went past
# 600 s (each endpoint written 2-4 s apart)
COMMAND_TIMEOUT_S = 1200


class TestbedMariaDB(MariaDBServer):
    """mariadbd as root (the testbed's state dir may sit in root's home, which the mysql
    user cannot reach), many connections (every OpenStack worker keeps a pool)."""

    __test__ = False

    @classmethod
    def run_user(cls) -> str | None:
        return None

    def initialize_command(self) -> list[str]:
        return [*super().initialize_command(), "--user=root"]

    def server_command(self) -> list[str]:
        return [*super().server_command(), "--user=root"]

    def create(self, names: list[str]) -> None:
        statements = "".join(f"CREATE DATABASE IF NOT EXISTS {name}; " for name in names)
        run_client([*self.client(), "-e", statements], "creating the OpenStack databases")


def mariadb(state: Path) -> TestbedMariaDB:
    options: dict[str, str | int] = {
        "max_connections": 2000,
        "innodb_buffer_pool_size": "256M",
        "character_set_server": "utf8mb4",
    }
    server = TestbedMariaDB(
        "openstack", state / "data" / "mysql", state / "run" / "mysql", options, START_TIMEOUT_S
    )
    server.log = state / "log" / "mariadb.log"  # with the other services' logs
    return server


def start_mariadb(server: TestbedMariaDB, pid_file: Path) -> None:
    try:
        server.initialize()
        server.start()
    except ServerError as exc:
        raise TestbedError(str(exc)) from exc
    assert server.pid is not None
    pid_file.write_text(f"{server.pid}\n")


def database_url(socket_path: Path, name: str) -> str:
    # root without password, reachable only through the socket in the state dir
    return f"mysql+pymysql://root:@localhost/{name}?unix_socket={socket_path}&charset=utf8"


def rabbit_environment(state: Path, ports: dict[str, int]) -> dict[str, str]:
    base = state / "data" / "rabbitmq"
    return {
        **os.environ,
        "HOME": str(base),  # the Erlang cookie
        "RABBITMQ_CONF_ENV_FILE": "/dev/null",  # not the host's /etc/rabbitmq/rabbitmq-env.conf
        "RABBITMQ_NODENAME": "volperf@localhost",
        "RABBITMQ_DIST_PORT": str(ports["amqp_dist"]),
        "ERL_EPMD_PORT": str(ports["epmd"]),
        "RABBITMQ_MNESIA_BASE": str(base / "mnesia"),
        "RABBITMQ_LOG_BASE": str(state / "log" / "rabbitmq"),
        "RABBITMQ_CONFIG_FILE": str(base / "rabbitmq.conf"),
        "RABBITMQ_ENABLED_PLUGINS_FILE": str(base / "enabled_plugins"),
        "RABBITMQ_PID_FILE": str(state / "run" / "rabbitmq.pid"),
    }


def start_rabbitmq(state: Path, ports: dict[str, int], password: str, log: Path) -> None:
    """Start the broker (its own pid file is written by it) and wait for its AMQP port."""
    if not RABBIT_SERVER.exists():
        raise TestbedError(f"{RABBIT_SERVER} missing: install rabbitmq-server (tools/setup.sh)")
    base = state / "data" / "rabbitmq"
    base.mkdir(parents=True, exist_ok=True)
    (base / "enabled_plugins").write_text("[].\n")
    config = base / "rabbitmq.conf"
    config.write_text(
        f"listeners.tcp.default = 127.0.0.1:{ports['amqp']}\n"
        f"default_user = {RABBIT_USER}\ndefault_pass = {password}\n"
    )
    config.chmod(0o600)
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(RABBIT_SERVER)],
            env=rabbit_environment(state, ports),
            cwd=base,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while not port_open(ports["amqp"]):
        if process.poll() is not None:
            raise TestbedError(f"rabbitmq-server exited {process.returncode}; see {log}")
        if time.monotonic() > deadline:
            raise TestbedError(f"rabbitmq did not listen within {START_TIMEOUT_S:.0f} s; see {log}")
        time.sleep(0.2)


def stop_epmd(state: Path, ports: dict[str, int]) -> None:
    """The testbed's own epmd (its port is the testbed's), once its broker is gone."""
    subprocess.run(
        ["epmd", "-kill"],
        env=rabbit_environment(state, ports),
        capture_output=True,
        check=False,
        timeout=30,
    )


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0
