"""A real single-node Ceph (Debian's pacific packages): one mon, one mgr and 1 or 3
BlueStore OSDs on sparse files, cephx, loopback only, every file under one state dir.
With CephFS (`up --cephfs`, kept by the testbed once asked): one MDS and the file system
`volperf`, and a client `client.k8s` that may mount it (the k8s testbed's ceph-fs class).

No systemd, cephadm or containers: the daemons are started by hand the way the trial
bring-up in ../shared/testbeds/ceph.notes.txt did it, and stopped by their pid files.
Ready means HEALTH_OK *and* every PG active+clean (HEALTH_OK alone came while PGs were
still peering), trimming snapshots or scrubbing included. `up` on an existing state dir
starts what is not running; `down` keeps the data unless asked to purge.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

from harness.testbeds import TestbedError
from harness.testbeds.base import Progress, Testbed, TestbedOptions
from harness.testbeds.ceph_ports import Ports
from harness.testbeds.daemons import Daemon, running, stop_started

MARKER = "testbed.json"  # a state dir without it is not ours: never purged
POOL = "volumes"  # Cinder's first backend (volume type `ceph`, the default)
SECOND_POOL = "volumes2"  # its second backend (type `ceph2`): the target of a retype
BACKUP_POOL = "backups"  # cinder-backup's Ceph driver
POOLS = (POOL, SECOND_POOL, BACKUP_POOL)
CINDER_USER = "cinder"
FS_NAME = "volperf"  # CephFS, with --cephfs
FS_POOLS = ("cephfs_metadata", "cephfs_data")
FS_USER = "k8s"  # may read and write all of FS_NAME
MDS = "mds.a"
PG_COUNT = 32
OSD_BLOCK_BYTES = 10 << 30  # sparse: only what is written takes disk space
OSD_MEMORY_TARGET = 1 << 30
TCMALLOC = Path("/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4")
COMMAND_TIMEOUT_S = 120
READY_TIMEOUT_S = 300
PACKAGES = "ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common python3-rados python3-rbd"


def ceph_conf(state: Path, fsid: str, osds: int, ports: Ports) -> str:
    mon_host = f"[v2:127.0.0.1:{ports.mon_v2},v1:127.0.0.1:{ports.mon_v1}]"
    # no `admin socket` in [global]: clients would share one socket path (see the notes)
    return f"""\
# written by `volperf testbed up ceph`; daemons and clients use it via -c or CEPH_CONF
[global]
fsid = {fsid}
mon host = {mon_host}
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind port min = {ports.daemons_min}
ms bind port max = {ports.daemons_max}
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
run dir = {state}/run
pid file = {state}/run/$name.pid
log file = {state}/log/$cluster-$name.log
# the monitor's cluster and audit logs in its own state too, not Ceph's shared /var/log/ceph
mon cluster log file = default={state}/log/$cluster.$channel.log cluster={state}/log/$cluster.log
crash dir = {state}/crash
osd pool default size = {osds}
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
# the host's disk may be well filled; Ceph's 30 % default would warn MON_DISK_LOW
mon data avail warn = 2
mon data avail crit = 1
# one host: without these a stopped OSD is never reported down
mon osd reporter subtree level = osd
mon osd min down reporters = 1

[client]
keyring = {state}/keyring

[client.{CINDER_USER}]
keyring = {state}/ceph.client.{CINDER_USER}.keyring

[mon]
mon data = {state}/mon/$cluster-$id
keyring = {state}/mon/$cluster-$id/keyring

[mgr]
mgr data = {state}/mgr/$cluster-$id
keyring = {state}/mgr/$cluster-$id/keyring

[mds]
mds data = {state}/mds/$cluster-$id
keyring = {state}/mds/$cluster-$id/keyring

[osd]
osd data = {state}/osd/$cluster-$id
keyring = {state}/osd/$cluster-$id/keyring
osd objectstore = bluestore
bluestore block create = true
bluestore block size = {OSD_BLOCK_BYTES}
osd memory target = {OSD_MEMORY_TARGET}
# file-backed OSDs count as hdd, whose 0.1 s sleep per recovery op makes recovery crawl
osd recovery sleep hdd = 0
"""


# what a clean PG may be doing besides serving I/O: trimming the snapshots of removed
# images (every RBD campaign's images end there) and scrubbing
BACKGROUND_PG_WORK = frozenset({"snaptrim", "snaptrim_wait", "scrubbing", "deep"})


def clean_pg_state(state: str) -> bool:
    """active+clean, alone or with background work on its (healthy) data."""
    flags = set(state.split("+"))
    return {"active", "clean"} <= flags <= {"active", "clean", *BACKGROUND_PG_WORK}


# A PG whose OSD stalled past its read lease (0.8 x osd_heartbeat_grace, 16 s) with I/O
# in flight turns laggy, and Pacific may never renew that lease: its ops wait forever
# (reproduced here with SIGSTOP of the OSD for 25 s under `rados bench`). Past this long
# laggy, `wait_ready` re-peers it, which gives it a new lease.
LAGGY_WEDGED_S = 20.0


def laggy_pgs(status: dict[str, Any]) -> int:
    """How many PGs `ceph -s -f json` shows laggy (serving no reads until re-leased)."""
    states = status.get("pgmap", {}).get("pgs_by_state", [])
    return sum(s["count"] for s in states if "laggy" in s["state_name"].split("+"))


def readiness(status: dict[str, Any]) -> tuple[bool, str]:
    """Whether `ceph -s -f json` shows a ready cluster, and what it shows in words."""
    health = status.get("health", {}).get("status", "?")
    pgmap = status.get("pgmap", {})
    states = {s["state_name"]: s["count"] for s in pgmap.get("pgs_by_state", [])}
    total = pgmap.get("num_pgs", 0)
    clean = sum(n for state, n in states.items() if clean_pg_state(state))
    osdmap = status.get("osdmap", {})
    osdmap = osdmap.get("osdmap", osdmap)  # pacific nests it once more in some outputs
    words = (
        f"{health}, OSDs {osdmap.get('num_up_osds', 0)}/{osdmap.get('num_osds', 0)} up, "
        f"PGs {clean}/{total} active+clean"
    )
    others = ", ".join(f"{n} {s}" for s, n in sorted(states.items()) if s != "active+clean")
    if others:
        words += f" ({others})"
    fsmap = status.get("fsmap", {})
    ranks = fsmap.get("by_rank", [])
    if fsmap.get("max"):  # a file system: its rank served
        active = sum(rank.get("status") == "up:active" for rank in ranks)
        words += f", MDS {active}/{fsmap['max']} active"
        if active < fsmap["max"]:
            return False, words
    return health == "HEALTH_OK" and total > 0 and clean == total, words


class CephTestbed(Testbed):
    def __init__(
        self,
        state: Path,
        osds: int | None = None,
        ports: Ports | None = None,
        cephfs: bool = False,
    ):
        """``osds``: 1 or 3 for a new testbed (default 1); an existing one keeps its own.
        ``cephfs``: add an MDS and the file system (kept once a testbed has them)."""
        if osds not in (None, 1, 3):
            raise TestbedError(f"--osds {osds}: the Ceph testbed runs 1 or 3 OSDs")
        self.state = state.resolve()
        self.asked_osds = osds
        self.osds = osds or int(self.recorded().get("osds", 1))
        self.ports = ports or Ports()
        self.conf = self.state / "ceph.conf"
        self.cephfs = cephfs or bool(self.recorded().get("cephfs"))

    @classmethod
    def from_options(cls, state: Path, options: TestbedOptions) -> CephTestbed:
        ports = Ports.from_mon_port(options.mon_port) if options.mon_port else None
        return cls(state, osds=options.osds, ports=ports, cephfs=options.cephfs)

    @staticmethod
    def build(say: Progress) -> None:
        """Nothing: the Ceph testbed runs Debian's packages as they are."""
        say("the Ceph testbed runs Debian's packages: nothing to build")

    @property
    def fs_keyring(self) -> Path:
        """client.k8s's keyring: it may mount the whole of FS_NAME."""
        return self.state / f"ceph.client.{FS_USER}.keyring"

    # what is there
    @property
    def marker(self) -> Path:
        return self.state / MARKER

    def recorded(self) -> dict[str, Any]:
        try:
            return json.loads(self.marker.read_text())
        except (OSError, ValueError):
            return {}

    def daemons(self) -> list[Daemon]:
        names = ["mon.a", "mgr.x"] + [f"osd.{i}" for i in range(self.osds)]
        names += [MDS] if self.cephfs else []
        # and any other daemon with a pid file here, so that down never leaves one running
        names += sorted({p.stem for p in (self.state / "run").glob("*.pid")} - set(names))
        return [Daemon(n, self.state / "run" / f"{n}.pid", str(self.conf)) for n in names]

    # commands
    def run(self, *argv: str, timeout_s: float = COMMAND_TIMEOUT_S, **env: str) -> str:
        """Run a Ceph command on this cluster (-c our ceph.conf); its stdout."""
        return self._execute([argv[0], "-c", str(self.conf), *argv[1:]], timeout_s, env)

    def _execute(
        self,
        argv: list[str],
        timeout_s: float = COMMAND_TIMEOUT_S,
        env: dict[str, str] | None = None,
    ) -> str:
        """Run a command; its stdout, or a TestbedError quoting what it said."""
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                env={**os.environ, **(env or {})},
                check=False,
            )
        except FileNotFoundError:
            raise TestbedError(
                f"{argv[0]} is not installed: apt-get install {PACKAGES} (tools/setup.sh does)"
            ) from None
        except subprocess.TimeoutExpired:
            raise TestbedError(f"`{' '.join(argv)}` did not finish in {timeout_s:.0f} s") from None
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip()).splitlines()[-3:]
            raise TestbedError(f"`{' '.join(argv)}` exited {done.returncode}: {' / '.join(said)}")
        return done.stdout

    def status_json(self, timeout_s: float = 20) -> dict[str, Any]:
        out = self.run(
            "ceph",
            "--connect-timeout",
            str(int(timeout_s)),
            "-s",
            "-f",
            "json",
            timeout_s=timeout_s + 10,
        )
        return json.loads(out)

    # bring-up
    def up(self, say: Progress = print, timeout_s: float = READY_TIMEOUT_S) -> dict[str, Any]:
        return self._up(say, timeout_s)

    def _up(self, progress: Progress, timeout_s: float) -> dict[str, Any]:
        started = time.monotonic()

        def say(what: str) -> None:
            progress(f"[{time.monotonic() - started:5.1f} s] {what}")

        recorded = self.recorded()
        if recorded and self.asked_osds not in (None, recorded.get("osds")):
            raise TestbedError(
                f"{self.state} holds a Ceph testbed with {recorded.get('osds')} OSD(s), "
                f"not {self.asked_osds}: "
                f"`volperf testbed down ceph --purge --state {self.state}` first"
            )
        before = running(self.daemons())
        try:
            if not recorded:
                self._create(say)
            self._start_daemons(say)
            self._ensure_pool_and_user(say)
            if self.cephfs:
                self._ensure_cephfs(say)
            status = self.wait_ready(timeout_s, say)
        except BaseException:
            stopped = stop_started(self.daemons(), before)
            if stopped:
                say(
                    f"bring-up failed: stopped what it started ({', '.join(stopped)}); kept "
                    f"for diagnosis: logs in {self.state / 'log'}"
                )
            raise
        say("ready")
        return status

    def _create(self, say: Progress) -> None:
        if self.state.exists() and any(self.state.iterdir()):
            raise TestbedError(
                f"{self.state} exists and is not empty: give an empty or new --state directory"
            )
        self._check_ports()
        for sub in ("run", "log", "crash", "mon/ceph-a", "mgr/ceph-x"):
            (self.state / sub).mkdir(parents=True, exist_ok=True)
        fsid = str(uuid.uuid4())
        self.conf.write_text(ceph_conf(self.state, fsid, self.osds, self.ports))
        self.marker.write_text(
            json.dumps(
                {"osds": self.osds, "fsid": fsid, "created": time.time(), "ports": vars(self.ports)}
            )
        )
        old_umask = os.umask(0o077)  # keyrings: owner only
        try:
            self._make_keys_and_mon(fsid)
        finally:
            os.umask(old_umask)
        say(f"created cluster {fsid} in {self.state}")

    def _check_ports(self) -> None:
        for port in (self.ports.mon_v2, self.ports.mon_v1):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    raise TestbedError(
                        f"127.0.0.1:{port} is in use: another Ceph (or testbed) is listening "
                        "there; stop it or choose other ports"
                    )

    def _make_keys_and_mon(self, fsid: str) -> None:
        s = self.state
        authtool = ["ceph-authtool", "--create-keyring"]
        self._execute(
            [*authtool, f"{s}/mon.keyring", "--gen-key", "-n", "mon.", "--cap", "mon", "allow *"]
        )
        self._execute(
            [
                *authtool,
                f"{s}/keyring",
                "--gen-key",
                "-n",
                "client.admin",
                "--cap",
                "mon",
                "allow *",
                "--cap",
                "osd",
                "allow *",
                "--cap",
                "mds",
                "allow *",
                "--cap",
                "mgr",
                "allow *",
            ]
        )
        self._execute(["ceph-authtool", f"{s}/mon.keyring", "--import-keyring", f"{s}/keyring"])
        mon_addr = f"[v2:127.0.0.1:{self.ports.mon_v2},v1:127.0.0.1:{self.ports.mon_v1}]"
        self._execute(
            ["monmaptool", "--create", "--fsid", fsid, "--addv", "a", mon_addr, f"{s}/monmap"]
        )
        self.run(
            "ceph-mon",
            "--mkfs",
            "-i",
            "a",
            "--monmap",
            f"{s}/monmap",
            "--keyring",
            f"{s}/mon.keyring",
        )
        shutil.copy(f"{s}/mon.keyring", f"{s}/mon/ceph-a/keyring")

    def _start_daemons(self, say: Progress) -> None:
        for daemon in self.daemons():
            if daemon.pid() is not None:
                say(f"{daemon.name} already running (pid {daemon.pid()})")
                continue
            kind, ident = daemon.name.split(".")
            if kind == "mgr":
                self._make_mgr_key()
            if kind == "mds":
                self._make_mds_key()
            if kind == "osd":
                self._make_osd(int(ident))
            self.run(f"ceph-{kind}", "-i", ident, **self._daemon_env(kind))
            say(f"{daemon.name} started (pid {self._wait_pid(daemon)})")

    def osd(self, number: int) -> Daemon:
        """The daemon of osd.``number``; a TestbedError if the testbed has no such OSD."""
        if not 0 <= number < self.osds:
            raise TestbedError(f"osd.{number}: the testbed has osd.0 to osd.{self.osds - 1}")
        return Daemon(f"osd.{number}", self.state / "run" / f"osd.{number}.pid", str(self.conf))

    def start_osd(self, number: int) -> list[str]:
        """Start osd.``number`` again on its data as `up` does (a fault's undoing); the
        command it ran, [] if it was running."""
        daemon = self.osd(number)
        if daemon.pid() is not None:
            return []
        env = self._daemon_env("osd")
        self.run("ceph-osd", "-i", str(number), **env)
        self._wait_pid(daemon)
        given = " ".join(f"{k}={v}" for k, v in env.items())
        return [f"{given} ceph-osd -c {self.conf} -i {number}"]

    def _daemon_env(self, kind: str) -> dict[str, str]:
        if kind != "osd":
            return {}
        # Debian's ceph-osd is not linked with tcmalloc; glibc malloc took it to 2 GB
        if TCMALLOC.exists():
            return {"LD_PRELOAD": str(TCMALLOC)}
        return {"MALLOC_ARENA_MAX": "2"}

    def _wait_pid(self, daemon: Daemon, timeout_s: float = 30) -> int:
        deadline = time.monotonic() + timeout_s
        while (pid := daemon.pid()) is None:
            if time.monotonic() > deadline:
                raise TestbedError(
                    f"{daemon.name} did not start within {timeout_s:.0f} s; "
                    f"its log: {self.state}/log/ceph-{daemon.name}.log"
                )
            time.sleep(0.1)
        return pid

    def _make_mgr_key(self) -> None:
        keyring = self.state / "mgr/ceph-x/keyring"
        if keyring.exists():
            return
        key = self.run(
            "ceph",
            "auth",
            "get-or-create",
            "mgr.x",
            "mon",
            "allow profile mgr",
            "osd",
            "allow *",
            "mds",
            "allow *",
        )
        _write_secret(keyring, key)

    def _make_mds_key(self) -> None:
        keyring = self.state / "mds/ceph-a/keyring"
        if keyring.exists():
            return
        keyring.parent.mkdir(parents=True, exist_ok=True)
        conf = self.conf.read_text()
        if "[mds]" not in conf:  # a testbed made before it had CephFS
            fsid = self.recorded().get("fsid", "")
            mds = ceph_conf(self.state, fsid, self.osds, self.ports).split("[mds]")[1]
            self.conf.write_text(conf + "\n[mds]" + mds.split("\n[")[0])
        caps = ("mon", "allow profile mds", "osd", "allow rwx", "mds", "allow *")
        _write_secret(keyring, self.run("ceph", "auth", "get-or-create", MDS, *caps))

    def _ensure_cephfs(self, say: Progress) -> None:
        """The file system (its two pools), no standby MDS asked for (one host), and
        client.k8s; the testbed's record keeps that it has CephFS."""
        filesystems = json.loads(self.run("ceph", "fs", "ls", "-f", "json"))
        if FS_NAME not in {fs["name"] for fs in filesystems}:
            pools = json.loads(self.run("ceph", "osd", "pool", "ls", "-f", "json"))
            for pool in FS_POOLS:
                if pool not in pools:
                    self.run("ceph", "osd", "pool", "create", pool, str(PG_COUNT), str(PG_COUNT))
            self.run("ceph", "fs", "new", FS_NAME, *FS_POOLS)
            self.run("ceph", "fs", "set", FS_NAME, "standby_count_wanted", "0")
            say(f"CephFS {FS_NAME} created (pools {', '.join(FS_POOLS)})")
        if not self.fs_keyring.exists():
            given = self.run("ceph", "fs", "authorize", FS_NAME, f"client.{FS_USER}", "/", "rw")
            _write_secret(self.fs_keyring, given)
            say(f"user client.{FS_USER} may mount {FS_NAME}")
        record = self.recorded()
        if not record.get("cephfs"):
            self.marker.write_text(json.dumps({**record, "cephfs": True}))

    def _make_osd(self, number: int) -> None:
        data = self.state / f"osd/ceph-{number}"
        if (data / "keyring").exists():
            return
        data.mkdir(parents=True, exist_ok=True)
        osd_uuid = str(uuid.uuid4())
        secret = self._execute(["ceph-authtool", "--gen-print-key"]).strip()
        secret_file = data / "new-osd-secret.json"  # given with -i so it is not on a command line
        _write_secret(secret_file, json.dumps({"cephx_secret": secret}))
        given = self.run("ceph", "osd", "new", osd_uuid, str(number), "-i", str(secret_file))
        secret_file.unlink()
        if int(given.strip()) != number:
            raise TestbedError(f"ceph gave OSD id {given.strip()}, expected {number}")
        self._execute(
            [
                "ceph-authtool",
                "--create-keyring",
                f"{data}/keyring",
                "--name",
                f"osd.{number}",
                "--add-key",
                secret,
            ]
        )
        self.run("ceph-osd", "-i", str(number), "--mkfs", "--osd-uuid", osd_uuid)

    def _ensure_pool_and_user(self, say: Progress) -> None:
        pools = json.loads(self.run("ceph", "osd", "pool", "ls", "-f", "json"))
        for pool in POOLS:
            if pool not in pools:
                self._create_pool(pool)
                say(f"pool {pool} (rbd, size {self.osds}, {PG_COUNT} PGs) created")
        keyring = self.state / f"ceph.client.{CINDER_USER}.keyring"
        if not keyring.exists():
            _write_secret(
                keyring, self.run("ceph", "auth", "get-or-create", f"client.{CINDER_USER}")
            )
            say(f"user client.{CINDER_USER} created")
        # set every time: `get-or-create` keeps an existing user's caps, and a testbed made
        # before a pool was added must reach it too
        profile = ", ".join(f"profile rbd pool={pool}" for pool in POOLS)
        caps = ("mon", "profile rbd", "osd", profile, "mgr", profile)
        self.run("ceph", "auth", "caps", f"client.{CINDER_USER}", *caps)

    def _create_pool(self, pool: str) -> None:
        self.run("ceph", "osd", "pool", "create", pool, str(PG_COUNT), str(PG_COUNT), "replicated")
        self.run(
            "ceph", "osd", "pool", "set", pool, "size", str(self.osds), "--yes-i-really-mean-it"
        )
        self.run("ceph", "osd", "pool", "application", "enable", pool, "rbd")
        self.run("rbd", "pool", "init", pool)

    def wait_ready(self, timeout_s: float, say: Progress = print) -> dict[str, Any]:
        deadline = time.monotonic() + max(timeout_s, 1)
        last = ""
        laggy_since: float | None = None
        while True:
            try:
                status = self.status_json(timeout_s=10)
                ready, words = readiness(status)
            except (TestbedError, ValueError) as exc:
                status, ready, words = {}, False, f"no status yet ({exc})"
            if words != last:
                say(words)
                last = words
            if ready:
                return status
            if not laggy_pgs(status):
                laggy_since = None
            elif laggy_since is None:
                laggy_since = time.monotonic()
            elif time.monotonic() - laggy_since >= LAGGY_WEDGED_S:
                try:
                    self.repeer_laggy(say)
                except TestbedError as exc:  # the wait goes on, and names what it shows
                    say(f"re-peering the laggy PGs failed: {exc}")
                laggy_since = None
            if time.monotonic() > deadline:
                raise TestbedError(
                    f"Ceph was not ready (HEALTH_OK with every PG active+clean) within "
                    f"{timeout_s:.0f} s: {words}; logs in {self.state}/log"
                )
            time.sleep(1)

    def repeer_laggy(self, say: Progress = print) -> list[str]:
        """Re-peer every laggy PG: `ceph pg repeer`, or where Ceph refuses that (one OSD
        up: nothing to remap to) its primary marked down, which rejoins at once and
        re-peers its PGs. What it did, in words."""
        listed = json.loads(self.run("ceph", "pg", "ls", "laggy", "-f", "json"))
        done: list[str] = []
        downed: set[int] = set()
        for pg in listed.get("pg_stats", []):
            pgid, primary = pg["pgid"], pg["acting_primary"]
            try:
                self.run("ceph", "pg", "repeer", pgid)
                done.append(f"PG {pgid} re-peered")
            except TestbedError:
                if primary not in downed:
                    self.run("ceph", "osd", "down", str(primary))
                    downed.add(primary)
                done.append(f"PG {pgid} re-peered by marking osd.{primary} down")
        if done:
            say(
                f"PGs laggy for {LAGGY_WEDGED_S:.0f} s (their OSD stalled past its read lease, "
                f"which Ceph did not renew): {', '.join(done)}"
            )
        return done

    # take down
    def down(self, purge: bool = False, say: Progress = print) -> list[str]:
        stopped = []
        for daemon in reversed(self.daemons()):  # OSDs, then mgr, then mon
            if daemon.stop():
                stopped.append(daemon.name)
                say(f"{daemon.name} stopped")
        if purge and self.state.exists():
            if not self.marker.exists():
                raise TestbedError(
                    f"{self.state} has no {MARKER}: not a volperf Ceph testbed, not removing it"
                )
            shutil.rmtree(self.state)
            say(f"removed {self.state}")
        return stopped

    # status
    def status(self) -> dict[str, Any]:
        recorded = self.recorded()
        daemons = (
            [{"name": d.name, "pid": d.pid(), **d.memory_kib()} for d in self.daemons()]
            if recorded
            else []
        )
        report: dict[str, Any] = {
            "state": str(self.state),
            "conf": str(self.conf) if recorded else None,
            "exists": bool(recorded),
            "osds": recorded.get("osds"),
            "daemons": daemons,
            "ready": False,
        }
        if daemons and daemons[0]["pid"] is not None:
            try:
                status = self.status_json(timeout_s=10)
            except (TestbedError, ValueError) as exc:
                report["health"] = f"unknown ({exc})"
            else:
                report["ready"], report["health"] = readiness(status)
                report["checks"] = {
                    code: check.get("summary", {}).get("message", "")
                    for code, check in status.get("health", {}).get("checks", {}).items()
                }
        return report

    def usage(self) -> list[str]:
        lines = [
            f"export CEPH_CONF={self.conf}",
            "ceph -s; rbd ls volumes",
            f"volperf run rbd --ceph-conf {self.conf} --ceph-user {CINDER_USER} --pool {POOL}",
        ]
        if self.cephfs:
            lines.append(
                f"CephFS {FS_NAME}: ceph-fuse -c {self.conf} --id {FS_USER} "
                f"--keyring {self.fs_keyring} MOUNTPOINT"
            )
        return lines


def _write_secret(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
