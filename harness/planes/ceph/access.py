"""Which cluster, as whom, which pool; and a librados connection that cannot hang.

The python rados/rbd bindings come from Debian (python3-rados, python3-rbd); tools/setup.sh
links them into volperf's virtualenv. Every call has a timeout: a cluster that is down or
unreachable gives an error after seconds, not a hang (librados waits 300 s by default).
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from harness.core import secrets
from harness.host.owncost import count_api_call
from harness.testbeds import default_state_dir

if TYPE_CHECKING:
    from harness.core.spec import CampaignSpec

CONNECT_TIMEOUT_S = 10
MON_TIMEOUT_S = 10
OSD_TIMEOUT_S = 60


class CephError(RuntimeError):
    """The cluster cannot be reached or refused a request (the message says which)."""


def default_conf() -> Path:
    """$CEPH_CONF, else the Ceph testbed's ceph.conf if there is one, else Ceph's default."""
    if os.environ.get("CEPH_CONF"):
        return Path(os.environ["CEPH_CONF"])
    testbed = default_state_dir("ceph") / "ceph.conf"
    return testbed if testbed.exists() else Path("/etc/ceph/ceph.conf")


def resolve(spec: CampaignSpec) -> CampaignSpec:
    """The spec with the Ceph configuration file it will use written in (campaign.yaml
    then says which cluster, and cleanup finds it again)."""
    if spec.target.type != "rbd" or spec.target.ceph_conf is not None:
        return spec
    target = spec.target.model_copy(update={"ceph_conf": default_conf().resolve()})
    return spec.model_copy(update={"target": target})


def keyring_keys(text: str) -> list[str]:
    """The keys of a Ceph keyring file's sections (``key = AQ...==``)."""
    return re.findall(r"(?m)^\s*key\s*=\s*(\S+)\s*$", text)


def register_keys(cluster: Any) -> None:
    """Register the key this client reads (its keyring files, ``key``, ``keyfile``) as a
    secret, so its value is redacted wherever it would appear."""
    secrets.register(cluster.conf_get("key"))
    secrets.register(_readable(cluster.conf_get("keyfile")))
    for name in (cluster.conf_get("keyring") or "").split(","):
        for key in keyring_keys(_readable(name)):
            secrets.register(key)


def _readable(name: str | None) -> str:
    """A file's text, or '' when there is none or volperf may not read it (librados
    then fails to authenticate and says so)."""
    try:
        return Path(name.strip()).read_text(errors="replace") if name and name.strip() else ""
    except OSError:
        return ""


def bindings() -> tuple[ModuleType, ModuleType]:
    try:
        import rados
        import rbd
    except ImportError as exc:
        raise CephError(
            f"the Python rados/rbd bindings do not import ({exc}): apt-get install "
            "python3-rados python3-rbd, then tools/link-ceph-bindings.sh .venv (setup does both)"
        ) from None
    return rados, rbd


@dataclass(frozen=True)
class CephAccess:
    conf: Path
    user: str  # cephx id without "client."
    pool: str

    def env(self) -> dict[str, str]:
        """Environment for Ceph's own tools (fio's rbd engine has no conf-path option)."""
        return {**os.environ, "CEPH_CONF": str(self.conf)}

    def where(self) -> str:
        return f"pool {self.pool!r} as client.{self.user} ({self.conf})"

    @contextmanager
    def cluster(self, connect_timeout_s: float = CONNECT_TIMEOUT_S) -> Iterator[Any]:
        rados, _ = bindings()
        if not self.conf.exists():
            raise CephError(f"{self.conf}: no such Ceph configuration file (give --ceph-conf)")
        try:
            cluster = rados.Rados(
                conffile=str(self.conf),
                name=f"client.{self.user}",
                conf={
                    "client_mount_timeout": str(int(connect_timeout_s)),
                    "rados_mon_op_timeout": str(MON_TIMEOUT_S),
                    "rados_osd_op_timeout": str(OSD_TIMEOUT_S),
                    "log_to_stderr": "false",
                    "err_to_stderr": "false",
                },
            )
            register_keys(cluster)
            cluster.connect(timeout=connect_timeout_s)
        except rados.Error as exc:
            raise CephError(f"cannot connect to Ceph for {self.where()}: {exc}") from None
        try:
            yield cluster
        finally:
            cluster.shutdown()

    def check_pool(self, cluster: Any) -> None:
        if not cluster.pool_exists(self.pool):
            pools = ", ".join(sorted(cluster.list_pools())) or "none"
            raise CephError(f"pool {self.pool!r} does not exist (pools: {pools})")

    @contextmanager
    def pool_io(self) -> Iterator[Any]:
        rados, _ = bindings()
        with self.cluster() as cluster:
            self.check_pool(cluster)
            try:
                ioctx = cluster.open_ioctx(self.pool)
            except rados.Error as exc:
                raise CephError(f"cannot open {self.where()}: {exc}") from None
            with closing(ioctx):
                yield ioctx


def mon_command(cluster: Any, prefix: str, timeout_s: float = MON_TIMEOUT_S, **args: Any) -> Any:
    """A monitor command's JSON answer, e.g. mon_command(c, "status")."""
    command = json.dumps({"prefix": prefix, "format": "json", **args})
    count_api_call("ceph")
    ret, out, said = cluster.mon_command(command, b"", timeout=int(timeout_s))
    if ret != 0:
        raise CephError(f"ceph {prefix} failed ({ret}): {said}")
    return json.loads(out)


def _tell(cluster: Any, osd: int, what: str, timeout_s: float, **command: Any) -> Any:
    """An OSD's JSON answer to ``ceph tell osd.N <what>`` (``command`` its arguments)."""
    count_api_call("ceph")
    asked = json.dumps({**command, "format": "json"})
    ret, out, said = cluster.osd_command(osd, asked, b"", timeout=int(timeout_s))
    if ret != 0:
        why = f"{os.strerror(-ret)} ({ret}){f': {said}' if said else ''}"
        if ret == -errno.EACCES:
            why += f"; the user's caps do not let it ask the OSDs (`ceph tell osd.{osd}`)"
        raise CephError(f"ceph tell osd.{osd} {what} failed: {why}")
    return json.loads(out)


def osd_perf_dump(cluster: Any, osd: int, timeout_s: float = MON_TIMEOUT_S) -> dict[str, Any]:
    """An OSD's own perf counters of its `osd` logger (`ceph tell osd.N perf dump osd`)."""
    found: dict[str, Any] = _tell(
        cluster, osd, "perf dump", timeout_s, prefix="perf dump", logger="osd"
    )
    return found


def osd_config_get(cluster: Any, osd: int, name: str, timeout_s: float = MON_TIMEOUT_S) -> str:
    """The value an OSD runs with of one setting, wherever it was set (its ceph.conf, the
    monitors' configuration, its command line): `ceph tell osd.N config get NAME`."""
    answer = _tell(cluster, osd, f"config get {name}", timeout_s, prefix="config get", var=name)
    return str(answer[name])
