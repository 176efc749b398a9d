"""volperf's local guest runner: a TEST STAND-IN for the VMs of the OpenStack testbed.

The testbed's Nova runs the fake virt driver, which boots no guest, so no VM would ever
run the agent Heat puts in a cinder-fio server's user_data. This runner does it on the
host instead: for every server with metadata volperf=cinder-fio that is ACTIVE and has its
volume attached, it reads the server's own user_data from Nova (as admin) and runs that
agent with fio's rbd engine on the volume's RBD image (the template's device_mode rbd,
the agent's explicit substitution for the block device a real VM would see); the agent
signals the real Heat wait condition. An agent is stopped when its server goes away or
loses its volume, as it would die with a real VM: SIGTERM first, as libvirt stops a
guest, so that fio closes the RBD image (a killed client's watch holds it for 30 s).
Everything it does is logged with the words "test stand-in".

    python -m harness.testbeds.openstack.guest_runner --state STATE [--once]
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BANNER = (
    "volperf local guest runner (TEST STAND-IN: the testbed's fake virt driver boots no "
    "VM; each cinder-fio server's own user_data agent runs on this host, on the server's "
    "Cinder volume through fio's rbd engine, and signals the real Heat)"
)
METADATA = ("volperf", "cinder-fio")
POLL_S = 1.0
STOP_GRACE_S = 10.0  # libvirt's, between SIGTERM and SIGKILL of a guest it destroys
GUESTS_DIR = "guests"

Say = Callable[[str], None]


@dataclass
class Agent:
    server_id: str
    name: str
    process: subprocess.Popen[bytes]
    folder: Path


def group_alive(group: int, leader: subprocess.Popen[bytes]) -> bool:
    """Whether any process of the group is left (its leader reaped once it has exited)."""
    leader.poll()
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


class GuestRunner:
    def __init__(self, conn: Any, work: Path, agent_env: dict[str, str], say: Say):
        self.conn = conn
        self.work = work
        self.agent_env = agent_env
        self.say = say
        self.running: dict[str, Agent] = {}

    def _servers(self) -> dict[str, Any]:
        key, value = METADATA
        return {
            s.id: s
            for s in self.conn.compute.servers(details=True, all_projects=True)
            if (s.metadata or {}).get(key) == value
        }

    @staticmethod
    def _alive(server: Any) -> bool:
        return server.status == "ACTIVE" and not server.task_state and bool(server.attached_volumes)

    def poll(self) -> int:
        """Start the agents of servers ready for them, stop those whose server went; the
        number of agents still running."""
        servers = self._servers()
        for server_id, agent in list(self.running.items()):
            code = agent.process.poll()
            server = servers.get(server_id)
            if code is not None:
                self.say(f"{agent.name}: agent exited {code} (log {agent.folder / 'agent.log'})")
                del self.running[server_id]
            elif server is None or not self._alive(server):
                self.say(f"{agent.name}: server gone or volume detached: agent stopped")
                self.stop_agent(agent)
                del self.running[server_id]
        for server_id, server in servers.items():
            folder = self.work / server_id
            if folder.exists() or not self._alive(server):
                continue  # handled already (also by an earlier runner), or not ready
            self._start(self.conn.compute.get_server(server_id), folder)
        for folder in self.work.iterdir() if self.work.exists() else []:
            if folder.name not in servers and folder.name not in self.running:
                shutil.rmtree(folder, ignore_errors=True)  # its server is gone
        return len(self.running)

    def _start(self, server: Any, folder: Path) -> None:
        folder.mkdir(mode=0o700, parents=True)  # user_data holds the wait handle's token
        (folder / "tmp").mkdir()
        if not server.user_data:
            self.say(f"{server.name}: no user_data readable (Nova microversion < 2.3?): skipped")
            return
        script = folder / "user-data.sh"
        script.write_bytes(base64.b64decode(server.user_data))
        env = {**self.agent_env, "TMPDIR": str(folder / "tmp")}
        with (folder / "agent.log").open("wb") as log:
            process = subprocess.Popen(
                ["/bin/sh", str(script)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=folder,
                start_new_session=True,
            )
        self.running[server.id] = Agent(server.id, server.name, process, folder)
        self.say(f"{server.name}: agent started for server {server.id} (test stand-in)")

    @staticmethod
    def stop_agent(agent: Agent, grace_s: float = STOP_GRACE_S) -> None:
        """As libvirt destroys a guest: SIGTERM to the agent's process group, SIGKILL to
        what is left of it after ``grace_s``. fio closes its RBD image on SIGTERM; killed
        outright, its watch on the image would keep the volume busy (Cinder cannot delete
        it) until Ceph times the watch out, 30 s later."""
        group = agent.process.pid
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while group_alive(group, agent.process) and time.monotonic() < deadline:
            time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        agent.process.wait()

    def stop_all(self) -> None:
        for agent in self.running.values():
            self.stop_agent(agent)
        self.running.clear()

    def run(self, stop: threading.Event, once: bool = False) -> None:
        """Poll until stopped; with once, until the agents of the servers ready now end."""
        self.say(BANNER)
        try:
            while not stop.is_set():
                try:
                    active = self.poll()
                except Exception as exc:
                    self.say(f"polling the cloud failed: {type(exc).__name__}: {exc}")
                    active = -1
                if once and active == 0:
                    return
                stop.wait(POLL_S)
        finally:
            self.stop_all()


def agent_environment(ceph_conf: Path, rbd_user: str, rbd_pool: str) -> dict[str, str]:
    """What the agent gets instead of a VM's: PATH, and where the volumes' images are."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "CEPH_CONF": str(ceph_conf),
        "RBD_USER": rbd_user,
        "RBD_POOL": rbd_pool,
        "LANG": "C.UTF-8",
    }


def main(argv: list[str] | None = None) -> int:
    from harness.testbeds.ceph import CINDER_USER, POOL
    from harness.testbeds.openstack.testbed import OpenStackTestbed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", type=Path, required=True, help="the testbed's state dir")
    parser.add_argument(
        "--once", action="store_true", help="run the agents of the servers ready now, then exit"
    )
    args = parser.parse_args(argv)
    testbed = OpenStackTestbed(args.state)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())

    def say(line: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {line}", flush=True)

    env = agent_environment(testbed.ceph_state / "ceph.conf", CINDER_USER, POOL)
    runner = GuestRunner(testbed.connection(), args.state / GUESTS_DIR, env, say)
    runner.run(stop, once=args.once)
    return 0


if __name__ == "__main__":
    sys.exit(main())
