"""libvirt for the testbed's real guests, run by the testbed from its own state directory:
Debian's monolithic libvirtd and its virtlogd, without libvirt-daemon-system (systemd,
polkit, and a default NAT network that would route off the machine). libvirt as root
reads and writes fixed paths (/etc/libvirt, /run/libvirt, /var/lib/libvirt,
/var/log/libvirt, /var/cache/libvirt), so both daemons run in a mount namespace of their
own where each of those is the state directory's folder: nothing of the host's changes,
and the QEMU processes libvirtd starts see the same. Nova and volperf reach it through its
socket, ``STATE/libvirt/run/libvirt-sock``."""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

from harness.host.process import command_line, log_tail, pids_naming
from harness.testbeds import TestbedError
from harness.testbeds.daemons import Daemon, group_running

LIBVIRTD = "libvirtd"
READY_S = 60.0

# the state's folder -> where libvirt looks for it
FOLDERS = {
    "etc": "/etc/libvirt",
    "run": "/run/libvirt",
    "lib": "/var/lib/libvirt",
    "log": "/var/log/libvirt",
    "cache": "/var/cache/libvirt",
}
LIBVIRTD_CONF = """# volperf testbed: local socket only, no authentication beyond its file mode
unix_sock_rw_perms = "0700"
auth_unix_ro = "none"
auth_unix_rw = "none"
log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
"""
# QEMU as root without a security driver (no AppArmor or SELinux profiles here); the
# guests' files are the testbed's own
QEMU_CONF = """user = "root"
group = "root"
security_driver = "none"
dynamic_ownership = 0
"""
VIRTLOGD_CONF = 'log_outputs = "3:file:/var/log/libvirt/virtlogd.log"\n'


def root(state: Path) -> Path:
    return state / "libvirt"


def socket(state: Path) -> Path:
    return root(state) / "run" / "libvirt-sock"


def uri(state: Path) -> str:
    """The libvirt connection URI Nova and volperf use."""
    return f"qemu+unix:///system?socket={socket(state)}"


def prepare(state: Path) -> None:
    """The daemons' folders and configuration files in the state directory, and the
    host's mount points (empty folders libvirt's packages leave or expect)."""
    for folder, mount_point in FOLDERS.items():
        (root(state) / folder).mkdir(parents=True, exist_ok=True)
        Path(mount_point).mkdir(parents=True, exist_ok=True)
    etc = root(state) / "etc"
    (etc / "libvirtd.conf").write_text(LIBVIRTD_CONF)
    (etc / "qemu.conf").write_text(QEMU_CONF)
    (etc / "virtlogd.conf").write_text(VIRTLOGD_CONF)


def command(state: Path) -> list[str]:
    """libvirtd (in the foreground, its pid the one started) and virtlogd beside it, in
    their own mount namespace; both name the state directory on their command lines.
    Their pid files are the state's too: as root both would take /run/libvirtd.pid and
    /run/virtlogd.pid, outside the folders bound here, and a second testbed's libvirtd
    (or a test's beside one) would exit 1 with its reason only in its own log."""
    mounts = " && ".join(f'mount --bind "$1/{folder}" {point}' for folder, point in FOLDERS.items())
    script = (
        f"{{ {mounts}; }} || exit 1; "
        'virtlogd --config "$1/etc/virtlogd.conf" --pid-file "$1/run/virtlogd.pid" & '
        'exec libvirtd --config "$1/etc/libvirtd.conf" --pid-file "$1/run/libvirtd.pid"'
    )
    return [
        "unshare", "--mount", "--propagation", "private",
        "sh", "-c", script, "volperf-libvirt", str(root(state)),
    ]  # fmt: skip


def guest_processes(state: Path) -> list[int]:
    """The QEMU processes of this testbed's guests, by the pid files libvirtd keeps in the
    state directory (still there when libvirtd itself was killed)."""
    found = []
    for pid_file in (root(state) / "run" / "qemu").glob("*.pid"):
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            continue
        program = Path(command_line(pid).split(" ", 1)[0]).name
        if program.startswith("qemu-system"):
            found.append(pid)
    return found


def kill_guests(state: Path) -> list[int]:
    """SIGKILL every QEMU process of this testbed's guests (what libvirtd left running,
    or a killed run left booting); their pids."""
    pids = guest_processes(state)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return pids


def daemon(state: Path) -> Daemon:
    """libvirtd as the testbed starts it (its process group holds virtlogd)."""
    return Daemon(LIBVIRTD, state / "run" / f"{LIBVIRTD}.pid", str(root(state)), group=True)


def start(state: Path, log: Path) -> None:
    """libvirtd and virtlogd from the state directory, until their socket answers."""
    prepare(state)
    (state / "run").mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            command(state),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    daemon(state).pid_file.write_text(f"{process.pid}\n")
    deadline = time.monotonic() + READY_S
    while not _answers(state):
        if process.poll() is not None:
            # the virtlogd started beside it, even one its shell had forked and not yet
            # exec'd (its command line not yet naming the state), as on a loaded machine
            _kill_group(process.pid)
            stop(state)
            raise TestbedError(f"libvirtd exited {process.returncode}: {_reason(state, log)}")
        if time.monotonic() > deadline:
            stop(state)
            raise TestbedError(
                f"libvirtd did not answer within {READY_S:.0f} s: {_reason(state, log)}"
            )
        time.sleep(0.2)


def _kill_group(group: int, timeout_s: float = 5.0) -> None:
    """SIGKILL to every process of a process group, then wait until none is left running
    (a killed one is a zombie until its new parent reaps it)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    deadline = time.monotonic() + timeout_s
    while group_running(group) and time.monotonic() < deadline:
        time.sleep(0.05)


def daemon_logs(state: Path) -> list[Path]:
    """libvirtd's and virtlogd's own logs (log_outputs), where their errors go."""
    return [root(state) / "log" / f"{name}.log" for name in ("libvirtd", "virtlogd")]


def _reason(state: Path, output: Path) -> str:
    """What the daemons said of a failed start: their output's error lines, and their own
    logs' (libvirtd writes its errors there, not to its output), with where each is."""
    said = [
        f"{tail} ({path})" for path in (output, *daemon_logs(state)) if (tail := log_tail(path))
    ]
    return " / ".join(said) or f"nothing in {output} or {root(state) / 'log'}"


def _answers(state: Path) -> bool:
    done = subprocess.run(
        ["virsh", "-c", uri(state), "version"], capture_output=True, check=False, timeout=30
    )
    return done.returncode == 0


def stray_daemons(state: Path) -> list[int]:
    """This state's daemons still running without their libvirtd: a virtlogd whose
    libvirtd exited or was killed (each names the state's configuration)."""
    return pids_naming(f"{root(state) / 'etc'}/")


def stop(state: Path) -> bool:
    """libvirtd and virtlogd stopped, and any guest they left killed; True if libvirtd
    was running."""
    stopped = daemon(state).stop()
    for pid in stray_daemons(state):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    kill_guests(state)
    return stopped


def define_ceph_secret(state: Path, secret_uuid: str, user: str, key: str) -> None:
    """The libvirt secret QEMU authenticates to Ceph with (Cinder's connection info names
    it by ``secret_uuid``): the user's base64 key, as devstack-plugin-ceph defines it."""
    import libvirt  # python3-libvirt, linked into the venv (ceph_bindings)

    xml = (
        f"<secret ephemeral='no' private='no'><uuid>{secret_uuid}</uuid>"
        f"<usage type='ceph'><name>client.{user} secret</name></usage></secret>"
    )
    connection = libvirt.open(uri(state))
    try:
        secret = connection.secretDefineXML(xml)
        secret.setValue(base64.b64decode(key))
    finally:
        connection.close()
