"""What every database server volperf runs has in common: its own data directory on the
storage under test, a private Unix socket (no TCP port), a log file, and a process that
volperf starts, kills, restarts and stops itself.

As root, servers run as their Debian service user (mysql, postgres); the data directory
is made theirs. Each server is a session leader, so stopping it stops its children too.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from harness.core.redact import redact_text
from harness.host.process import log_tail

SYSBENCH_DATABASE = "sbtest"  # the database sysbench OLTP uses on every engine
READY_POLL_S = 0.1
STOP_TIMEOUT_S = 60.0


class ServerError(RuntimeError):
    """A server that would not initialise or start; the message quotes its own log."""


class DatabaseServer:
    """One server instance. Subclasses say how to initialise, start and ping it."""

    engine = ""
    service_user = ""
    stop_signal = signal.SIGTERM

    def __init__(
        self,
        name: str,
        datadir: Path,
        socket_dir: Path,
        options: dict[str, str | int],
        start_timeout: float,
    ):
        self.name = name
        self.datadir = datadir
        self.socket_dir = socket_dir
        self.options = options
        self.start_timeout = start_timeout
        self.log = datadir.parent / f"{datadir.name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    # who the server runs as
    @classmethod
    def run_user(cls) -> str | None:
        return cls.service_user if os.geteuid() == 0 else None

    @property
    def user(self) -> str | None:
        return self.run_user()

    @classmethod
    def service_account(cls) -> pwd.struct_passwd:
        """The service user's account; ServerError naming it if this machine has none."""
        try:
            return pwd.getpwnam(cls.service_user)
        except KeyError:
            raise ServerError(
                f"{cls.engine} runs as its service user '{cls.service_user}' when volperf runs "
                "as root, and this machine has no such user: tools/setup.sh creates it (or "
                f"`useradd --system --user-group --no-create-home {cls.service_user}`)"
            ) from None

    def own(self, *paths: Path) -> None:
        if self.user is None:
            return
        entry = self.service_account()
        for path in paths:
            os.chown(path, entry.pw_uid, entry.pw_gid)

    @classmethod
    def check_reachable(cls, directory: Path) -> None:
        """The service user must exist and reach ``directory``; volperf makes the data
        directory inside it and hands it over."""
        user = cls.run_user()
        if user is None:
            return
        cls.service_account()
        probe = subprocess.run(
            ["sh", "-c", 'test -x "$1"', "sh", str(directory)],
            user=user,
            check=False,
        )
        if probe.returncode != 0:
            raise ServerError(
                f"{directory}: the {user} user cannot reach it (volperf runs as "
                f"root, so {cls.engine} runs as {user}); make the directory and its "
                "parents reachable by it, e.g. chmod o+x on the parents, or choose another "
                "--dir"
            )

    # to be provided by each engine
    @classmethod
    def server_program(cls) -> str:
        """The server binary; ServerError if it is not installed."""
        raise NotImplementedError

    def initialized(self) -> bool:
        raise NotImplementedError

    def initialize_command(self) -> list[str]:
        raise NotImplementedError

    def server_command(self) -> list[str]:
        raise NotImplementedError

    def ping_command(self) -> list[str]:
        raise NotImplementedError

    def create_databases(self) -> None:
        raise NotImplementedError

    def database_bytes(self, database: str) -> int:
        """Bytes on disk of one database the benchmark loaded."""
        raise NotImplementedError

    def private_dirs(self) -> list[Path]:
        """The folders of its own the server needs beside its data: its socket's."""
        return [self.socket_dir]

    def _make_private_dirs(self) -> None:
        for folder in self.private_dirs():
            folder.mkdir(parents=True, exist_ok=True)
            self.own(folder)

    # lifecycle
    def initialize(self) -> None:
        """Create the data directory if it is new; an existing one is reused as it is."""
        if self.initialized():
            return
        self.datadir.parent.mkdir(parents=True, exist_ok=True)
        self.datadir.mkdir(exist_ok=True)
        self._make_private_dirs()
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.log.touch()
        self.own(self.datadir, self.log)
        with self.log.open("ab") as log:
            done = subprocess.run(
                self.initialize_command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                user=self.user,
                check=False,
                timeout=self.start_timeout,
            )
        if done.returncode != 0:
            raise ServerError(
                f"{self.engine} {self.name}: initialising {self.datadir} failed "
                f"(exit {done.returncode}); its log says: {log_tail(self.log)}"
            )

    def start(self) -> float:
        """Start the server and wait until it answers; returns the seconds it took."""
        self._make_private_dirs()
        self.log.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.server_command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                user=self.user,
                start_new_session=True,
            )
        while not self.ready():
            if self.process.poll() is not None:
                raise ServerError(
                    f"{self.engine} {self.name} did not start: it exited "
                    f"{self.process.returncode}; its log says: {log_tail(self.log)}"
                )
            if time.monotonic() - started > self.start_timeout:
                self.kill()
                raise ServerError(
                    f"{self.engine} {self.name} did not answer within "
                    f"{self.start_timeout:.0f} s and was stopped; its log says: "
                    f"{log_tail(self.log)}"
                )
            time.sleep(READY_POLL_S)
        return time.monotonic() - started

    def ready(self) -> bool:
        return _quiet(self.ping_command()) == 0

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crashed node would: no shutdown, no flush. Only to a server not
        yet waited for: once it is, its pid may be another process's."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """A clean shutdown, escalating to SIGKILL if it takes too long."""
        if not self.running or self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(self.stop_signal)
        try:
            self.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # children left behind, if any

    def remove(self) -> None:
        shutil.rmtree(self.datadir, ignore_errors=True)
        self.log.unlink(missing_ok=True)


def _quiet(argv: Sequence[str]) -> int:
    try:
        return subprocess.run(
            list(argv),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            timeout=10,
            check=False,
        ).returncode
    except (OSError, subprocess.TimeoutExpired):
        return -1


def run_client(argv: Sequence[str], what: str) -> str:
    """Run a database client command (create a database …); its error is quoted."""
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        said = redact_text(done.stderr.strip() or done.stdout.strip())
        raise ServerError(f"{what} failed (exit {done.returncode}): {said}")
    return done.stdout


def find_program(name: str, *also: str) -> str:
    """A server program may live outside PATH (/usr/sbin, PostgreSQL's versioned bin)."""
    found = shutil.which(name) or next((p for p in also if Path(p).is_file()), None)
    if found is None:
        raise ServerError(f"{name} is not installed (run tools/setup.sh, which installs it)")
    return found
