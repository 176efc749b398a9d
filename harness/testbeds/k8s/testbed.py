"""A real single-node Kubernetes on one machine: etcd, containerd, runc and the CNI bridge
from Debian; kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and
local-path-provisioner built from the Go module proxy (build.py); certificates made here
(certs.py); images built here (images.py) and imported into containerd; StorageClasses
`local-path` (dynamic), `local-static` (pre-made local PVs) and `local-block` (pre-made
local PVs of volume mode Block, each a loop device on a file of the state dir, where the
kernel has loop devices). Everything lives in one
state dir and listens on 127.0.0.1 from one base port. Follows the trial bring-up in
../shared/testbeds/kubernetes.notes.txt. On cgroup v1 a throttle rule no disk reaches on
the kubepods blkio cgroup makes the kernel count each pod's block I/O (count_block_io).

`down` stops the pods' processes (by the kubepods cgroups), the daemons (by pid file and
command line), detaches the loop devices on files under the state dir (the block PVs' and
those the kubelet attaches to map them into pods), unmounts what is mounted under the
state dir, and deletes the bridge and
the kubepods cgroups: nothing of the cluster is left on the host.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness.host import loopdev
from harness.host.process import log_tail, pids_naming
from harness.testbeds import TestbedError
from harness.testbeds.base import Progress, Testbed, TestbedOptions
from harness.testbeds.ceph import FS_USER, CephTestbed
from harness.testbeds.daemons import Daemon, running, stop_started
from harness.testbeds.k8s import configs, images
from harness.testbeds.k8s.build import cache_root, ensure_binaries
from harness.testbeds.k8s.configs import CEPH_FS_CLASS, NODE, NODES, Layout, Node
from harness.testbeds.mounts import ANSWER_S, answers, mounted, removed_within, unmount_under

MARKER = "testbed.json"
READY_TIMEOUT_S = 300
REMOVE_S = 120  # the longest the ceph-fs class's volumes may take to go on purge
STATIC_PVS = 40  # enough for every scenario at small scale; `up` again makes used ones anew
STATIC_PV_SIZE = "2Gi"
BLOCK_PVS = 6  # the local-block class: fio in Block mode, one a PVC
BLOCK_PV_GIB = 1  # a sparse file each: space is taken only where fio writes
BLOCK_PV_SIZE = f"{BLOCK_PV_GIB}Gi"
DAEMON_ORDER = (
    "etcd",
    "containerd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kubelet",
    "containerd-2",  # with a second node only
    "kubelet-2",
    "ceph-fuse",  # with a Ceph testbed only
    "local-path-provisioner",
)
CGROUP_ROOT = Path("/sys/fs/cgroup")
COUNTING_BPS = 10**15  # a throttle limit no device reaches (1 PB/s)


class K8sTestbed(Testbed):
    def __init__(
        self,
        state: Path,
        base_port: int | None = None,
        static_pvs: int | None = None,
        ceph_state: Path | None = None,
        nodes: int | None = None,
    ):
        """``static_pvs``: the local-static class's pre-made PVs (default the number the
        testbed was made with, else STATIC_PVS); more for the scale runs, one a PVC.
        ``ceph_state``: a Ceph testbed whose CephFS backs the class ceph-fs (kept by the
        testbed once given). ``nodes``: 1 or 2 (default the number the testbed has, else
        1); fewer than it has removes the others."""
        self.state = state
        self.marker = state / MARKER
        record = self._load()
        port = record.get("base_port") or base_port or configs.DEFAULT_BASE_PORT
        self.layout = Layout(state, int(port))
        self.static_pvs = static_pvs or int(record.get("static_pvs") or STATIC_PVS)
        self.nodes = nodes or int(record.get("nodes") or 1)
        if not 1 <= self.nodes <= len(NODES):
            raise TestbedError(f"--nodes {self.nodes}: the testbed runs 1 to {len(NODES)} nodes")
        given = record.get("ceph_state") or ceph_state
        self.ceph_state = Path(given).resolve() if given else None

    def _load(self) -> dict[str, Any]:
        try:
            return json.loads(self.marker.read_text())
        except (OSError, ValueError):
            return {}

    @property
    def kubeconfig(self) -> Path:
        return self.layout.kubeconfig("admin")

    # processes
    def daemons(self) -> list[Daemon]:
        run = self.state / "run"

        def wanted(name: str) -> bool:
            if name == "ceph-fuse":
                return self.ceph_state is not None
            if name.endswith("-2"):  # or left running by a testbed that had it
                return self.nodes >= 2 or (run / f"{name}.pid").exists()
            return True

        names = [n for n in DAEMON_ORDER if wanted(n)]
        return [Daemon(name, run / f"{name}.pid", str(self.state), group=True) for name in names]

    def _daemon(self, name: str) -> Daemon:
        return next(d for d in self.daemons() if d.name == name)

    def _start(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        if self._daemon(name).pid() is not None:
            return
        log = self.state / "log" / f"{name}.log"
        with log.open("ab") as out:
            process = subprocess.Popen(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **(env or {})},
                cwd=self.state,
                start_new_session=True,
            )
        (self.state / "run" / f"{name}.pid").write_text(f"{process.pid}\n")

    @classmethod
    def from_options(cls, state: Path, options: TestbedOptions) -> K8sTestbed:
        return cls(state, options.base_port, options.static_pvs, options.ceph_state, options.nodes)

    @staticmethod
    def build(say: Progress) -> None:
        """What the testbed runs and is not a Debian package, built into volperf's cache
        if missing: the Kubernetes programs (Go, CPU-bound) and the images (debootstrap
        and the Go tools, mostly waiting on the mirror), side by side."""
        with ThreadPoolExecutor(2) as pool:
            images_built = pool.submit(images.ensure_images, cache_root() / "images", say)
            ensure_binaries(say)
            images_built.result()

    # up
    def up(self, say: Progress, timeout_s: float = READY_TIMEOUT_S) -> None:
        """Build what is missing (each build step has its own limit), then start what is
        not running and wait until it is ready, each wait for at most ``timeout_s`` s from
        when it starts. On failure, what this call started is stopped again; the state
        dir and its logs are kept."""
        if os.geteuid() != 0:
            raise TestbedError("the Kubernetes testbed runs containers: run as root")
        missing = [p for p in ("etcd", "containerd", "runc") if shutil.which(p) is None]
        if missing or not Path(configs.CNI_BIN, "bridge").exists():
            raise TestbedError(
                f"missing {', '.join(missing) or 'CNI plugins'}: install "
                "tools/debian-packages.txt (tools/setup.sh)"
            )
        bin_dir = ensure_binaries(say)
        archives = images.ensure_images(cache_root() / "images", say)
        started = time.monotonic()
        before = running(self.daemons())
        bridges_there = [Path("/sys/class/net", node.bridge).exists() for node in NODES]
        ceph = CephTestbed(self.ceph_state, cephfs=True) if self.ceph_state else None
        ceph_before = running(ceph.daemons()) if ceph else set()
        try:
            if ceph and not (ceph.recorded().get("cephfs") and ceph.status()["ready"]):
                say(f"bringing up the Ceph testbed in {ceph.state} with CephFS (class ceph-fs)")
                ceph.up(say, timeout_s)
            self._start_all(bin_dir, archives, timeout_s, ceph)
            for node in NODES[self.nodes :]:  # fewer nodes asked for than the testbed had
                if node.home(self.state).exists():
                    self.remove_node(node, say)
        except BaseException:
            self._stop_started(before, bridges_there, say)
            if ceph:
                stop_started(ceph.daemons(), ceph_before)  # a Ceph that ran stays
            raise
        say(f"Kubernetes ready in {time.monotonic() - started:.0f} s")

    def _start_all(
        self, bin_dir: Path, archives: list[Path], timeout: float, ceph: CephTestbed | None
    ) -> None:
        self._prepare()
        layout = self.layout
        self._start("etcd", configs.etcd_command(layout))
        self._start_runtime(NODES[0], layout, archives, timeout)
        self._start("kube-apiserver", configs.apiserver_command(layout, bin_dir))
        self._wait(
            "kube-apiserver /readyz",
            lambda: self._get("/readyz") == "ok",
            timeout,
            "kube-apiserver",
        )
        self._start("kube-controller-manager", configs.controller_manager_command(layout, bin_dir))
        self._start("kube-scheduler", configs.scheduler_command(layout, bin_dir))
        self._start("kubelet", configs.kubelet_command(layout, bin_dir))
        self._wait(f"node {NODE} Ready", self._node_ready, timeout, "kubelet")
        for node in NODES[1 : self.nodes]:
            self._start_node(node, bin_dir, archives, timeout)
        count_block_io(self.state)
        if ceph:
            self._mount_cephfs(ceph, timeout)
        self._apply_storage()
        self._start("local-path-provisioner", configs.lpp_command(layout, bin_dir))

    def _start_runtime(
        self, node: Node, layout: Layout, archives: list[Path], timeout: float
    ) -> None:
        """A node's pod bridge, and its containerd with the testbed's images."""
        make_bridge(node.bridge, f"{node.ip}/{node.pod_cidr.split('/')[1]}")
        name = f"containerd{node.suffix}"
        if self._daemon(name).pid() is None:  # a crashed one's socket file stays behind
            layout.socket.unlink(missing_ok=True)
        self._start(name, configs.containerd_command(layout))
        self._wait(name, lambda: layout.socket.exists(), timeout, name)
        for archive in archives:
            self._ctr("images", "import", "--no-unpack", str(archive), socket=layout.socket)

    def _start_node(self, node: Node, bin_dir: Path, archives: list[Path], timeout: float) -> None:
        """Another node on this machine: its own files under the state dir, certificates,
        containerd, pod bridge and subnet, cgroup root, and kubelet; Ready."""
        layout = configs.node_layout(self.layout, node)
        for sub in ("etc/containerd", "etc/cni/net.d", "data/cni-ipam", configs.POD_LOGS):
            layout.path(sub).mkdir(parents=True, exist_ok=True)
        from harness.testbeds.k8s.certs import make_node_pki, write_kubeconfig  # cryptography

        make_node_pki(self.layout.pki, layout.pki, node.name, node.ip)
        write_kubeconfig(layout.kubeconfig("kubelet"), layout.pki, "kubelet", self.layout.server)
        files = {
            "etc/containerd/config.toml": configs.containerd_config(layout),
            "etc/cni/net.d/10-volperf.conflist": configs.cni_config(layout, node),
            "etc/kubelet-config.yaml": configs.kubelet_config(layout, node),
        }
        for name, text in files.items():
            layout.path(name).write_text(text)
        make_cgroup_root(node.cgroup_root)
        self._start_runtime(node, layout, archives, timeout)
        kubelet = f"kubelet{node.suffix}"
        self._start(kubelet, configs.kubelet_command(layout, bin_dir, node))
        self._wait(f"node {node.name} Ready", lambda: self._node_ready(node.name), timeout, kubelet)

    def remove_node(self, node: Node, say: Progress) -> None:
        """A node gone for good: its kubelet, pods and containerd stopped, its bridge,
        cgroups and files removed, its Node deleted (the pod GC then deletes its pods)."""
        from kubernetes import client
        from kubernetes.client.exceptions import ApiException

        daemons = {d.name: d for d in self.daemons()}
        for name in (f"kubelet{node.suffix}", f"containerd{node.suffix}"):
            if name in daemons and daemons[name].stop():
                say(f"stopped {name}")
            if name.startswith("kubelet"):
                kill_pod_processes((node.cgroup_root,))
            (self.state / "run" / f"{name}.pid").unlink(missing_ok=True)  # not ours now
        home = node.home(self.state)
        kill_shims(str(home))
        unmount_under(home)
        delete_bridge(node.bridge)
        remove_kubepods_cgroups((node.cgroup_root,))
        with contextlib.suppress(ApiException):  # already gone (404)
            client.CoreV1Api(self.client()).delete_node(node.name)
        shutil.rmtree(home, ignore_errors=True)
        say(f"node {node.name} removed")

    def crash_node(self, name: str, say: Progress) -> None:
        """A node's power lost, as near as this machine allows: its kubelet, containerd,
        pods and shims killed at once; its files and Node kept, so that `up` brings it
        back (its kubelet then cleans up what the pods left). The API server still calls
        it Ready until the node's lease runs out."""
        node = next((n for n in NODES[: self.nodes] if n.name == name), None)
        if node is None:
            names = ", ".join(n.name for n in NODES[: self.nodes])
            raise TestbedError(f"no node {name} in this testbed: its nodes are {names}")
        daemons = {d.name: d for d in self.daemons()}
        for daemon in (f"kubelet{node.suffix}", f"containerd{node.suffix}"):
            if daemons[daemon].kill():
                say(f"killed {daemon}")
        killed = kill_pod_processes((node.cgroup_root,))
        kill_shims(str(node.home(self.state) / "run" / "containerd"))  # its runtime's only
        say(f"node {node.name} crashed: {killed} pod processes killed")

    def _mount_cephfs(self, ceph: CephTestbed, timeout: float) -> None:
        """ceph-fuse mounts the whole CephFS on the node; the class's volumes go in a
        folder of their own there."""
        mount = self.layout.cephfs_mount
        mount.mkdir(parents=True, exist_ok=True)
        if not mounted(mount):  # the provisioner's folder made while unmounted, if empty
            with contextlib.suppress(OSError):
                self.layout.cephfs_volumes.rmdir()
        command = configs.ceph_fuse_command(self.layout, ceph.conf, FS_USER, ceph.fs_keyring)
        self._start("ceph-fuse", command)
        self._wait(f"CephFS mounted on {mount}", lambda: mounted(mount), timeout, "ceph-fuse")
        self.layout.cephfs_volumes.mkdir(exist_ok=True)

    def _lpp_files(self) -> dict[str, str]:
        shared = self.layout.cephfs_volumes if self.ceph_state else None
        return configs.lpp_files(self.layout, shared)

    def _stop_started(self, before: set[str], bridges_there: list[bool], say: Progress) -> None:
        """After a failed bring-up: stop what it started, and if that includes a node's
        container runtime or kubelet, that node's pods and the host state they made as
        well (all of the testbed's, when the first node's; a node that kept running keeps
        its pods)."""
        daemons = self.daemons()
        new = running(daemons) - before
        stopped = []
        for kubelet in ("kubelet", "kubelet-2"):  # first: they would start the pods again
            if kubelet in new and self._daemon(kubelet).stop():
                stopped.append(kubelet)
        restarted = [n for n in NODES if {f"containerd{n.suffix}", f"kubelet{n.suffix}"} & new]
        roots = tuple(n.cgroup_root for n in restarted)
        if restarted:
            kill_pod_processes(roots)
        stopped += stop_started(daemons, before)
        if NODES[0] in restarted:
            kill_shims(str(self.state))
            loopdev.detach_under(self.state)
            unmount_under(self.state)
        else:
            for node in restarted:
                kill_shims(str(node.home(self.state)))
                unmount_under(node.home(self.state))
        if restarted:
            remove_kubepods_cgroups(roots)
        for node, there in zip(NODES, bridges_there, strict=True):
            if not there:
                delete_bridge(node.bridge)
        if stopped:
            say(
                f"bring-up failed: stopped what it started ({', '.join(stopped)}); kept for "
                f"diagnosis: logs in {self.state / 'log'}"
            )

    def _prepare(self) -> None:
        layout = self.layout
        record = self._load()
        if not record:
            self.state.mkdir(parents=True, exist_ok=True)
            record = {
                "kind": "k8s",
                "base_port": layout.base_port,
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            }
        ceph = str(self.ceph_state) if self.ceph_state else None
        if (
            record.get("static_pvs", STATIC_PVS) != self.static_pvs
            or record.get("ceph_state") != ceph
            or record.get("nodes", 1) != self.nodes
            or not self.marker.exists()
        ):
            record["static_pvs"] = self.static_pvs
            record["ceph_state"] = ceph
            record["nodes"] = self.nodes
            self.marker.write_text(json.dumps(record))
        for sub in (
            "run",
            "log",
            "etc/containerd",
            "etc/cni/net.d",
            "etc/local-path",
            "data/local-path",
            "data/cni-ipam",
        ):
            (self.state / sub).mkdir(parents=True, exist_ok=True)
        from harness.testbeds.k8s.certs import clients, make_pki, write_kubeconfig  # cryptography

        make_pki(layout.pki, NODES[0].name, NODES[0].ip)
        for client in clients(NODE):
            if client.name != "apiserver-kubelet":
                write_kubeconfig(
                    layout.kubeconfig(client.name), layout.pki, client.name, layout.server
                )
        files = {
            "etc/containerd/config.toml": configs.containerd_config(layout),
            "etc/cni/net.d/10-volperf.conflist": configs.cni_config(layout),
            "etc/kubelet-config.yaml": configs.kubelet_config(layout),
        }
        files |= {f"etc/local-path/{k}": v for k, v in self._lpp_files().items()}
        for name, text in files.items():
            (self.state / name).write_text(text)

    def _ctr(self, *args: str, socket: Path | None = None) -> str:
        address = socket or self.layout.socket
        argv = ["ctr", "--address", str(address), "--namespace", "k8s.io", *args]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            raise TestbedError(f"ctr {' '.join(args[:2])}: {done.stderr.strip()[-500:]}")
        return done.stdout

    def _ssl(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.layout.pki / "ca.crt"))
        context.load_cert_chain(self.layout.pki / "admin.crt", self.layout.pki / "admin.key")
        return context

    def _get(self, path: str) -> str:
        try:
            with urllib.request.urlopen(
                self.layout.server + path,
                context=self._ssl(),
                timeout=5,
            ) as answer:
                return answer.read().decode()
        except (urllib.error.URLError, OSError):
            return ""

    def _wait(
        self, what: str, ready: Callable[[], bool], timeout: float, daemon: str | None = None
    ) -> None:
        """Poll until ready, for at most ``timeout`` s from now; a ``daemon`` that exits
        meanwhile ends the wait with its log's last words."""
        deadline = time.monotonic() + timeout
        while not ready():
            if daemon is not None and self._daemon(daemon).pid() is None:
                log = self.state / "log" / f"{daemon}.log"
                raise TestbedError(f"{daemon} exited: {log_tail(log)}; log in {log}")
            if time.monotonic() > deadline:
                raise TestbedError(
                    f"{what}: not ready within {timeout:.0f} s; logs in {self.state / 'log'}"
                )
            time.sleep(0.5)

    def client(self) -> Any:
        from kubernetes import client, config

        return client.ApiClient(config.new_client_from_config(str(self.kubeconfig)).configuration)

    def _node_ready(self, name: str = NODE) -> bool:
        from kubernetes import client

        try:
            node = client.CoreV1Api(self.client()).read_node(name)
        except Exception:
            return False
        return any(c.type == "Ready" and c.status == "True" for c in node.status.conditions or [])

    def _apply_storage(self) -> None:
        """StorageClasses local-path (dynamic), local-static and local-block (pre-made
        PVs), and what the provisioner needs in the cluster (its namespace, account,
        ConfigMap)."""
        from kubernetes import client
        from kubernetes.client.exceptions import ApiException

        api = self.client()
        core, storage = client.CoreV1Api(api), client.StorageV1Api(api)

        def create(call: Callable[..., Any], *args: Any) -> None:
            with contextlib.suppress(ApiException):  # already there (409)
                call(*args)

        create(core.create_namespace, {"metadata": {"name": configs.LPP_NAMESPACE}})
        create(
            core.create_namespaced_service_account,
            configs.LPP_NAMESPACE,
            {"metadata": {"name": configs.LPP_ACCOUNT}},
        )
        create(
            core.create_namespaced_config_map,
            configs.LPP_NAMESPACE,
            {"metadata": {"name": configs.LPP_CONFIGMAP}, "data": self._lpp_files()},
        )
        classes = [
            ("local-path", "rancher.io/local-path"),
            ("local-static", "kubernetes.io/no-provisioner"),
            ("local-block", "kubernetes.io/no-provisioner"),
        ]
        if self.ceph_state:
            classes.append((CEPH_FS_CLASS, "rancher.io/local-path"))
        for name, provisioner in classes:
            create(
                storage.create_storage_class,
                {
                    "metadata": {"name": name, "labels": {"volperf": "testbed"}},
                    "provisioner": provisioner,
                    "volumeBindingMode": "WaitForFirstConsumer",
                    "reclaimPolicy": "Delete" if provisioner.startswith("rancher") else "Retain",
                },
            )
        self.refresh_static_pvs()

    def refresh_static_pvs(self) -> list[str]:
        """Make the pre-made PVs that are missing, and again those released by a PVC
        (their data wiped): the classes can be used over and over. local-block's only
        where the kernel has loop devices."""
        made = self._refresh_pvs("volperf-static", self.static_pvs, self._folder_pv)
        if loopdev.available():
            made += self._refresh_pvs("volperf-block", BLOCK_PVS, self._block_pv, self._block_lost)
        return made

    def _folder_pv(self, name: str) -> dict[str, Any]:
        folder = self.state / "data" / "pv" / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        labels = {"volperf-static": "true"}
        return configs.local_pv(name, folder, "local-static", STATIC_PV_SIZE, labels)

    def block_image(self, name: str) -> Path:
        return self.state / "data" / "block" / f"{name}.img"

    def _block_device(self, name: str) -> str | None:
        """The loop device on the PV's file, if attached."""
        image = self.block_image(name)
        loops = loopdev.backed_under(image.parent)
        return next((loop.device for loop in loops if loop.backing_file == str(image)), None)

    def _block_pv(self, name: str) -> dict[str, Any]:
        """A new empty sparse file, a loop device on it, a Block PV on the device."""
        device = self._block_device(name)
        if device is not None:
            loopdev.detach(device)
        image = self.block_image(name)
        image.parent.mkdir(parents=True, exist_ok=True)
        image.unlink(missing_ok=True)
        with image.open("wb") as sparse:
            sparse.truncate(BLOCK_PV_GIB * 2**30)
        device = loopdev.attach(image)
        labels = {"volperf-block": "true"}
        return configs.local_pv(
            name, Path(device), "local-block", BLOCK_PV_SIZE, labels, volume_mode="Block"
        )

    def _block_lost(self, pv: Any) -> bool:
        """A block PV not in use whose loop device is gone (`down` detached it)."""
        return (
            pv.status.phase != "Bound"
            and self._block_device(pv.metadata.name) != pv.spec.local.path
        )

    def _refresh_pvs(
        self,
        label: str,
        count: int,
        make: Callable[[str], dict[str, Any]],
        lost: Callable[[Any], bool] = lambda pv: False,
    ) -> list[str]:
        """The PVs ``label``-01 … ``count`` made where missing, and again where released
        by their claim or ``lost``."""
        from kubernetes import client

        core = client.CoreV1Api(self.client())
        selector = f"{label}=true"
        existing = {
            pv.metadata.name: pv
            for pv in core.list_persistent_volume(label_selector=selector).items
        }
        names = [f"{label}-{index:02d}" for index in range(1, count + 1)]
        stale = [
            n
            for n in names
            if n in existing and (existing[n].status.phase == "Released" or lost(existing[n]))
        ]
        for name in stale:  # all at once, then one wait: hundreds at scale
            core.delete_persistent_volume(name)

        def deleted() -> bool:
            left = {p.metadata.name for p in core.list_persistent_volume().items}
            return not left.intersection(stale)

        if stale:
            self._wait(f"{len(stale)} released PVs deleted", deleted, 120)
        made = []
        for name in names:
            if name in existing and name not in stale:
                continue
            core.create_persistent_volume(make(name))
            made.append(name)

        def available() -> bool:  # the PV controller moves new PVs from Pending
            phases = {
                pv.status.phase for pv in core.list_persistent_volume(label_selector=selector).items
            }
            return phases <= {"Available", "Bound"}

        self._wait(f"the {label} PVs Available", available, 60)
        return made

    # status / down
    def status(self) -> dict[str, Any]:
        daemons = [
            {"name": d.name, "pid": d.pid(), "rss_kib": d.group_rss_kib()} for d in self.daemons()
        ]
        ready = self.marker.exists() and all(d["pid"] for d in daemons)
        return {
            "state": str(self.state),
            "exists": self.marker.exists(),
            "daemons": daemons,
            "kubeconfig": str(self.kubeconfig),
            "ports": self.layout.ports,
            "nodes": [node.name for node in NODES[: self.nodes]],
            "ready": ready
            and self._get("/readyz") == "ok"
            and all(self._node_ready(node.name) for node in NODES[: self.nodes]),
        }

    def down(self, purge: bool, say: Progress) -> list[str]:
        if purge and self.state.exists() and not self.marker.exists():
            raise TestbedError(
                f"{self.state} has no {MARKER}: not a volperf Kubernetes testbed, not purged"
            )
        stopped = []
        daemons = {d.name: d for d in self.daemons()}
        kubelets = [name for name in daemons if name.startswith("kubelet")]
        for name in kubelets:  # first: they would start the pods again
            if daemons[name].stop():
                stopped.append(name)
        killed = kill_pod_processes()
        if killed:
            say(f"killed {killed} pod processes")
        self._leave_cephfs(purge, daemons, stopped, say)
        for name in reversed(daemons):
            if name not in kubelets and daemons[name].stop():
                say(f"stopped {name}")
                stopped.append(name)
        kill_shims(str(self.state))
        detached = loopdev.detach_under(self.state)
        if detached:
            say(f"detached {detached} loop devices on files under {self.state}")
        unmounted = unmount_under(self.state)
        if unmounted:
            say(f"unmounted {unmounted} mounts under {self.state}")
        for node in NODES:
            delete_bridge(node.bridge)
        remove_kubepods_cgroups()
        if purge and self.state.exists():
            shutil.rmtree(self.state)
            say(f"removed {self.state}")
        return stopped

    def _leave_cephfs(
        self, purge: bool, daemons: dict[str, Daemon], stopped: list[str], say: Progress
    ) -> None:
        """The ceph-fs class's volumes (this testbed's own folder in CephFS) removed on
        purge; a CephFS that does not answer (its Ceph testbed went first: its MDS is
        stopped), or does not end that removal within REMOVE_S, is left by stopping
        ceph-fuse, which ends every look into it."""
        mount, volumes = self.layout.cephfs_mount, self.layout.cephfs_volumes
        if not mounted(mount):
            return
        if not answers(mount):
            why = f"did not answer within {ANSWER_S:.0f} s (its Ceph testbed stopped first?)"
        elif not purge or not volumes.exists():
            return
        elif removed_within(volumes, REMOVE_S):
            say(f"removed {volumes} (CephFS of the Ceph testbed in {self.ceph_state})")
            return
        else:
            why = f"did not remove {volumes.name} within {REMOVE_S:.0f} s (a PG of it stuck?)"
        fuse = daemons.get("ceph-fuse")
        if fuse is not None and fuse.kill():  # nothing of it answers: no clean end
            stopped.append("ceph-fuse")
        say(
            f"CephFS on {mount} {why}: ceph-fuse killed; {volumes.name} is left in the CephFS "
            f"of the Ceph testbed in {self.ceph_state}, which goes with that testbed"
        )

    def usage(self) -> list[str]:
        classes = [
            "local-path (dynamic, rancher local-path-provisioner)",
            f"local-static ({self.static_pvs} pre-made local PVs of {STATIC_PV_SIZE})",
            f"local-block ({BLOCK_PVS} pre-made local PVs of {BLOCK_PV_SIZE} in Block mode, "
            "each a loop device on a sparse file)"
            if loopdev.available()
            else "local-block (no PVs: this kernel has no loop devices)",
        ]
        if self.ceph_state:
            classes.append(
                f"{CEPH_FS_CLASS} (dynamic, on the CephFS of the Ceph testbed in "
                f"{self.ceph_state}, mounted with ceph-fuse on {self.layout.cephfs_mount})"
            )
        nodes = [f"{node.name} ({node.ip}, pods {node.pod_cidr})" for node in NODES[: self.nodes]]
        return [
            f"export KUBECONFIG={self.kubeconfig}   (cluster admin; file mode 0600)",
            f"nodes: {', '.join(nodes)} (local-static and local-block volumes are on the first)",
            "StorageClasses: " + ", ".join(classes[:-1]) + " and " + classes[-1],
            "images (imagePullPolicy: Never): " + ", ".join(image.name for image in images.IMAGES),
            "no kube-proxy or cluster DNS: pod IPs work, Services do not",
        ]


CGROUP_ROOTS = tuple(node.cgroup_root for node in NODES)  # "": the host's root


def _kubepods(roots: tuple[str, ...] = CGROUP_ROOTS) -> list[Path]:
    """The kubepods cgroups of the nodes' cgroup roots, in every hierarchy (cgroup v1) or
    the unified one."""
    found = []
    hierarchies = [CGROUP_ROOT]
    with contextlib.suppress(OSError):
        hierarchies += [c for c in CGROUP_ROOT.iterdir() if c.is_dir()]
    for hierarchy in hierarchies:
        found += [
            hierarchy / root / "kubepods" if root else hierarchy / "kubepods" for root in roots
        ]
    return [p for p in found if p.is_dir()]


def make_cgroup_root(root: str) -> None:
    """A node's cgroup root in every hierarchy (its kubelet wants it there); a cpuset one
    gets its parent's CPUs and memory nodes, without which nothing can join it."""
    hierarchies = [CGROUP_ROOT] if (CGROUP_ROOT / "cgroup.procs").exists() else []
    with contextlib.suppress(OSError):
        hierarchies += [
            c for c in CGROUP_ROOT.iterdir() if c.is_dir() and (c / "cgroup.procs").exists()
        ]
    for hierarchy in hierarchies:
        folder = hierarchy / root
        folder.mkdir(exist_ok=True)
        for name in ("cpuset.cpus", "cpuset.mems"):
            if (folder / name).exists() and not (folder / name).read_text().strip():
                (folder / name).write_text((hierarchy / name).read_text())


def disk_of(path: Path) -> str | None:
    """MAJ:MIN of the whole disk holding ``path`` (a partition's disk); None on a file
    system of no block device (tmpfs, overlay)."""
    dev = os.stat(path).st_dev
    disk = f"{os.major(dev)}:{os.minor(dev)}"
    block = Path("/sys/dev/block", disk)
    if not block.exists():
        return None
    if (block / "partition").exists():
        disk = (block.resolve().parent / "dev").read_text().strip()
    return disk


def count_block_io(path: Path, limit: int = COUNTING_BPS) -> str | None:
    """Make cgroup v1 count each pod's block I/O on the disk of ``path`` (the testbed's
    volumes): its blkio.throttle counters stay at "Total 0" until a throttle rule has
    been set on the disk (in any cgroup; it counts from then until the next boot), so
    put one no device reaches on the kubepods blkio cgroup (``limit`` 0 removes it, the
    counting stays). A database pod then reads its own I/O from its counters, as
    cgroup v2's io.stat gives it without a rule. The disk, or None where there is no
    v1 blkio hierarchy (or no kubepods cgroup in it) or ``path`` is on no disk: then
    database steps say their device I/O is unknown."""
    kubepods = CGROUP_ROOT / "blkio" / "kubepods"
    disk = disk_of(path)
    if disk is None or not (kubepods / "blkio.throttle.read_bps_device").exists():
        return None
    for direction in ("read", "write"):
        (kubepods / f"blkio.throttle.{direction}_bps_device").write_text(f"{disk} {limit}\n")
    return disk


def kill_pod_processes(roots: tuple[str, ...] = CGROUP_ROOTS) -> int:
    killed: set[int] = set()
    for _ in range(3):
        pids = {
            int(line)
            for cgroup in _kubepods(roots)
            for procs in cgroup.rglob("cgroup.procs")
            for line in _read_lines(procs)
        }
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed |= pids
        time.sleep(0.5)
    return len(killed)


def _read_lines(path: Path) -> list[str]:
    try:
        return [line for line in path.read_text().split() if line]
    except OSError:
        return []


def kill_shims(marker: str) -> None:
    """containerd's shims of this testbed (each in a session of its own, so not killed with
    containerd); never this process or a parent of it, whose command line may name the
    state dir too."""
    for pid in pids_naming("containerd-shim", marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def make_bridge(name: str, address: str) -> None:
    """The pod bridge with the node's address (the CNI bridge plugin then uses it)."""
    if not Path("/sys/class/net", name).exists():
        _ip("link", "add", name, "type", "bridge")
    shown = subprocess.run(
        ["ip", "-o", "addr", "show", "dev", name], capture_output=True, text=True, check=False
    ).stdout
    if f" {address} " not in shown:
        _ip("addr", "add", address, "dev", name)
    _ip("link", "set", name, "up")


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise TestbedError(f"ip {' '.join(args)}: {done.stderr.strip()}")


def delete_bridge(name: str) -> None:
    if Path("/sys/class/net", name).exists():
        subprocess.run(["ip", "link", "delete", name], capture_output=True, check=False)


def remove_kubepods_cgroups(roots: tuple[str, ...] = CGROUP_ROOTS) -> None:
    """The kubepods cgroups of the nodes' roots, and the roots a node had of its own."""
    for cgroup in _kubepods(roots):
        for folder in sorted(
            (p for p in cgroup.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True
        ):
            with contextlib.suppress(OSError):
                folder.rmdir()
        with contextlib.suppress(OSError):
            cgroup.rmdir()
    for root in filter(None, roots):
        for own in CGROUP_ROOT.glob(f"*/{root}"):
            with contextlib.suppress(OSError):
                own.rmdir()
        with contextlib.suppress(OSError):
            (CGROUP_ROOT / root).rmdir()
