"""The Kubernetes testbed's configuration files and command lines, every path under its
state dir and every port from its base port (see ../shared/testbeds/kubernetes.notes.txt
for why each setting is what it is)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from harness.testbeds.k8s.images import FIO, PAUSE

DEFAULT_BASE_PORT = 23000  # below the ephemeral range, as the Ceph testbed's (ceph.Ports)
NODE = "volperf-node"
BRIDGE = "volperf0"
# room for MAX_PODS pods: the 250-namespace scale runs (benchmarks/scale) and what else
# runs on the node
POD_CIDR = "10.244.0.0/22"
MAX_PODS = 500
# the node's address: the pod bridge's gateway, made by `up` (the kubelet refuses a
# loopback node IP, and the API server reaches the kubelet by the node's address)
NODE_IP = "10.244.0.1"
SERVICE_CIDR = "10.96.0.0/24"
CNI_BIN = "/usr/lib/cni"
LPP_NAMESPACE = "local-path-storage"
LPP_CONFIGMAP = "local-path-config"
LPP_ACCOUNT = "local-path-provisioner-service-account"
CEPH_FS_CLASS = "ceph-fs"


@dataclass(frozen=True)
class Node:
    """A node of the testbed: its own kubelet and containerd, pod bridge and subnet, and
    cgroup root, all on this machine. The first node's files are the state dir's own."""

    name: str
    ip: str  # its bridge's address: the node's InternalIP
    pod_cidr: str
    bridge: str
    cgroup_root: str  # the kubelet's cgroupRoot, made by `up`; "" for the host's root
    suffix: str  # of its daemons' and ports' names: "" for the first node

    def home(self, state: Path) -> Path:
        return state / self.name.removeprefix("volperf-") if self.suffix else state


NODES = (
    Node(NODE, NODE_IP, POD_CIDR, BRIDGE, "", ""),
    # a second node, routed to the first through the host (forwarding between bridges)
    Node("volperf-node-2", "10.244.4.1", "10.244.4.0/22", "volperf1", "volperf-node-2", "-2"),
)


@dataclass(frozen=True)
class Layout:
    state: Path
    base_port: int

    @property
    def ports(self) -> dict[str, int]:
        names = (
            "apiserver",
            "etcd",
            "etcd-peer",
            "kubelet",
            "kubelet-healthz",
            "controller-manager",
            "scheduler",
            "kubelet-2",
            "kubelet-healthz-2",
        )
        return {name: self.base_port + i for i, name in enumerate(names)}

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.ports['apiserver']}"

    def path(self, *parts: str) -> Path:
        return self.state.joinpath(*parts)

    @property
    def pki(self) -> Path:
        return self.path("pki")

    @property
    def socket(self) -> Path:
        return self.path("run", "containerd", "containerd.sock")

    def kubeconfig(self, client: str) -> Path:
        return self.path(f"{client}.kubeconfig")

    @property
    def cephfs_mount(self) -> Path:
        """Where ceph-fuse mounts the Ceph testbed's CephFS (with --ceph-state)."""
        return self.path("mnt", "ceph-fs")

    @property
    def cephfs_volumes(self) -> Path:
        """The ceph-fs class's volumes: a folder of its own in CephFS, made by `up`."""
        return self.cephfs_mount / "volperf-k8s-volumes"


def containerd_config(layout: Layout) -> str:
    s = layout.state
    # restrict_oom_score_adj: this VM lacks CAP_SYS_RESOURCE, so the kubelet's -998 for
    # every sandbox made runc fail; clamped to containerd's own score instead
    return f"""version = 2
root = "{s}/data/containerd"
state = "{s}/run/containerd"
[grpc]
  address = "{layout.socket}"
[ttrpc]
  address = "{s}/run/containerd/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "{s}/data/containerd-opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{PAUSE}"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "{CNI_BIN}"
    conf_dir = "{s}/etc/cni/net.d"
"""


def node_layout(layout: Layout, node: Node) -> Layout:
    """The paths of a node's own files (its containerd, kubelet, certificates)."""
    return Layout(node.home(layout.state), layout.base_port)


def cni_config(layout: Layout, node: Node = NODES[0]) -> str:
    return json.dumps(
        {
            "cniVersion": "0.4.0",
            "name": "volperf",
            "plugins": [
                {
                    "type": "bridge",
                    "bridge": node.bridge,
                    "isGateway": True,
                    "ipMasq": False,
                    "ipam": {
                        "type": "host-local",
                        "ranges": [[{"subnet": node.pod_cidr}]],
                        "routes": [{"dst": "0.0.0.0/0"}],
                        "dataDir": str(layout.path("data", "cni-ipam")),
                    },
                },
                {"type": "loopback"},
            ],
        },
        indent=2,
    )


POD_LOGS = "pod-logs"  # under a second node's own folder


def kubelet_config(layout: Layout, node: Node = NODES[0]) -> str:
    pki = layout.pki
    config: dict[str, Any] = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "address": node.ip,
        "port": layout.ports[f"kubelet{node.suffix}"],
        "healthzBindAddress": "127.0.0.1",
        "healthzPort": layout.ports[f"kubelet-healthz{node.suffix}"],
        "readOnlyPort": 0,
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": True},
            "x509": {"clientCAFile": str(pki / "ca.crt")},
        },
        "authorization": {"mode": "Webhook"},
        "tlsCertFile": str(pki / "kubelet-serving.crt"),
        "tlsPrivateKeyFile": str(pki / "kubelet-serving.key"),
        "cgroupDriver": "cgroupfs",
        "failCgroupV1": False,
        "failSwapOn": False,
        # local images cannot be pulled again: never collect them
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        "evictionHard": {
            "memory.available": "1%",
            "nodefs.available": "1%",
            "imagefs.available": "1%",
            "nodefs.inodesFree": "1%",
        },
        "serializeImagePulls": False,
        "resolvConf": "/etc/resolv.conf",
        "containerRuntimeEndpoint": f"unix://{layout.socket}",
        "staticPodPath": "",
        "maxPods": MAX_PODS,
    }
    if node.cgroup_root:  # its pods under a cgroup of its own, apart from the first node's
        config["cgroupRoot"] = f"/{node.cgroup_root}"
    if node.suffix:
        # its pods' logs apart too: a kubelet's garbage collection removes the log folders
        # of every pod it does not run from its folder (default /var/log/pods)
        config["podLogsDir"] = str(layout.path(POD_LOGS))
    return yaml.safe_dump(config)


def etcd_command(layout: Layout) -> list[str]:
    client = f"http://127.0.0.1:{layout.ports['etcd']}"
    peer = f"http://127.0.0.1:{layout.ports['etcd-peer']}"
    return [
        "etcd",
        "--name",
        "volperf",
        "--data-dir",
        str(layout.path("data", "etcd")),
        "--listen-client-urls",
        client,
        "--advertise-client-urls",
        client,
        "--listen-peer-urls",
        peer,
        "--initial-advertise-peer-urls",
        peer,
        "--initial-cluster",
        f"volperf={peer}",
        "--log-level",
        "warn",
    ]


def containerd_command(layout: Layout) -> list[str]:
    return ["containerd", "--config", str(layout.path("etc", "containerd", "config.toml"))]


def apiserver_command(layout: Layout, bin_dir: Path) -> list[str]:
    pki = layout.pki
    return [
        str(bin_dir / "kube-apiserver"),
        f"--etcd-servers=http://127.0.0.1:{layout.ports['etcd']}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--secure-port={layout.ports['apiserver']}",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        f"--tls-cert-file={pki / 'apiserver.crt'}",
        f"--tls-private-key-file={pki / 'apiserver.key'}",
        f"--client-ca-file={pki / 'ca.crt'}",
        f"--kubelet-client-certificate={pki / 'apiserver-kubelet.crt'}",
        f"--kubelet-client-key={pki / 'apiserver-kubelet.key'}",
        f"--kubelet-certificate-authority={pki / 'ca.crt'}",
        "--kubelet-preferred-address-types=InternalIP,Hostname",
        "--service-account-issuer=https://kubernetes.default.svc",
        f"--service-account-key-file={pki / 'sa.pub'}",
        f"--service-account-signing-key-file={pki / 'sa.key'}",
        "--authorization-mode=Node,RBAC",
        "--enable-admission-plugins=NodeRestriction",
        "--allow-privileged=true",
        "--profiling=false",
        f"--cert-dir={layout.path('data', 'apiserver')}",
    ]


def controller_manager_command(layout: Layout, bin_dir: Path) -> list[str]:
    pki, kubeconfig = layout.pki, layout.kubeconfig("controller-manager")
    return [
        str(bin_dir / "kube-controller-manager"),
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        "--bind-address=127.0.0.1",
        f"--secure-port={layout.ports['controller-manager']}",
        "--leader-elect=false",
        "--use-service-account-credentials=true",
        f"--cluster-signing-cert-file={pki / 'ca.crt'}",
        f"--cluster-signing-key-file={pki / 'ca.key'}",
        f"--root-ca-file={pki / 'ca.crt'}",
        f"--service-account-private-key-file={pki / 'sa.key'}",
        f"--cert-dir={layout.path('data', 'controller-manager')}",
        "--profiling=false",
    ]


def scheduler_command(layout: Layout, bin_dir: Path) -> list[str]:
    kubeconfig = layout.kubeconfig("scheduler")
    return [
        str(bin_dir / "kube-scheduler"),
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        "--bind-address=127.0.0.1",
        f"--secure-port={layout.ports['scheduler']}",
        "--leader-elect=false",
        "--profiling=false",
        f"--cert-dir={layout.path('data', 'scheduler')}",
    ]


def kubelet_command(layout: Layout, bin_dir: Path, node: Node = NODES[0]) -> list[str]:
    return [
        str(bin_dir / "kubelet"),
        f"--config={layout.path('etc', 'kubelet-config.yaml')}",
        f"--kubeconfig={layout.kubeconfig('kubelet')}",
        f"--root-dir={layout.path('data', 'kubelet')}",
        f"--hostname-override={node.name}",
        f"--node-ip={node.ip}",
        f"--cert-dir={layout.path('data', 'kubelet-pki')}",
    ]


def ceph_fuse_command(layout: Layout, conf: Path, user: str, keyring: Path) -> list[str]:
    """ceph-fuse in the foreground (its pid is the daemon's), the whole CephFS."""
    return [
        "ceph-fuse",
        "-f",
        "-c",
        str(conf),
        "--id",
        user,
        "--keyring",
        str(keyring),
        str(layout.cephfs_mount),
    ]


def lpp_command(layout: Layout, bin_dir: Path) -> list[str]:
    return [
        str(bin_dir / "local-path-provisioner"),
        "start",
        f"--kubeconfig={layout.kubeconfig('admin')}",
        f"--config={layout.path('etc', 'local-path', 'config.json')}",
        f"--helper-pod-file={layout.path('etc', 'local-path', 'helperPod.yaml')}",
        f"--namespace={LPP_NAMESPACE}",
        f"--configmap-name={LPP_CONFIGMAP}",
        f"--service-account-name={LPP_ACCOUNT}",
        f"--helper-image={FIO}",
    ]


def local_pv(
    name: str,
    folder: Path,
    storage_class: str,
    size: str,
    labels: dict[str, str] | None = None,
    node: str = NODE,
    volume_mode: str = "Filesystem",
) -> dict[str, Any]:
    """A local PV on a folder of the node (``volume_mode`` Block: on a block device of
    the node), kept when its claim goes (Retain: Released)."""
    on_node = {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}
    return {
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {
            "capacity": {"storage": size},
            "accessModes": ["ReadWriteOnce"],
            "volumeMode": volume_mode,
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": storage_class,
            "local": {"path": str(folder)},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [on_node]}]}},
        },
    }


def lpp_files(layout: Layout, shared: Path | None = None) -> dict[str, str]:
    """config.json and the helper pod: volumes under data/local-path, made and removed by a
    pod of the local fio image (the default, busybox, cannot be pulled here). ``shared``:
    a file system mounted on every node, where the class ceph-fs's volumes go (the
    provisioner's sharedFileSystemPath: they carry no node affinity)."""
    node_paths = [
        {
            "node": "DEFAULT_PATH_FOR_NON_LISTED_NODES",
            "paths": [str(layout.path("data", "local-path"))],
        }
    ]
    config: dict[str, Any] = {"nodePathMap": node_paths}
    if shared is not None:  # one config per class, the top level's node paths empty
        config = {
            "nodePathMap": [],
            "storageClassConfigs": {
                "local-path": {"nodePathMap": node_paths},
                CEPH_FS_CLASS: {"sharedFileSystemPath": str(shared)},
            },
        }
    helper = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "helper-pod"},
        "spec": {
            "priorityClassName": "system-node-critical",
            "containers": [{"name": "helper-pod", "image": FIO, "imagePullPolicy": "Never"}],
        },
    }
    return {
        "config.json": json.dumps(config),
        "helperPod.yaml": yaml.safe_dump(helper),
        "setup": '#!/bin/sh\nset -eu\nmkdir -m 0777 -p "$VOL_DIR"\n',
        "teardown": '#!/bin/sh\nset -eu\nrm -rf "$VOL_DIR"\n',
    }
