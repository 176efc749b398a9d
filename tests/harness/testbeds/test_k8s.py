"""`volperf testbed up|status|down k8s` for real: a single-node Kubernetes from the Go
module proxy's builds and Debian's etcd/containerd/runc/CNI, with the local images and
its StorageClasses (ceph-fs on the Ceph testbed's CephFS through ceph-fuse); fio in a pod
on a PVC of each class (local-block's a raw device, ceph-fs's a folder in CephFS);
down leaves nothing, loop devices included (checked by the session fixture)."""

from __future__ import annotations

import json
import stat
import subprocess
import time
from pathlib import Path

import pytest

from harness.host import loopdev
from harness.testbeds.k8s.images import FIO
from harness.testbeds.k8s.testbed import BLOCK_PVS, COUNTING_BPS, disk_of
from tests.harness.helpers import K8S_TEST_STATIC_PVS, k8s_status, k8s_up, volperf


def test_up_from_nothing_is_ready_with_its_storage_classes(k8s_testbed_up, k8s_ceph_testbed):
    """Run first of the k8s group, as brought up (tests/suite_groups.py: TURNS)."""
    from kubernetes import client

    k8s_testbed = k8s_testbed_up
    report = k8s_status(k8s_testbed)
    assert report["ready"]
    assert {d["name"] for d in report["daemons"] if d["pid"]} == {
        "etcd",
        "containerd",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kubelet",
        "ceph-fuse",
        "local-path-provisioner",
    }
    assert f"export KUBECONFIG={k8s_testbed.kubeconfig}" in k8s_testbed.up_output
    assert stat.S_IMODE(k8s_testbed.kubeconfig.stat().st_mode) == 0o600
    for key in (k8s_testbed.state / "pki").glob("*.key"):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600, key
    api = k8s_testbed.api()
    classes = {sc.metadata.name: sc for sc in client.StorageV1Api(api).list_storage_class().items}
    assert classes["local-path"].provisioner == "rancher.io/local-path"
    assert classes["local-static"].provisioner == "kubernetes.io/no-provisioner"
    assert classes["ceph-fs"].provisioner == "rancher.io/local-path"
    assert classes["ceph-fs"].reclaim_policy == "Delete"
    # its Ceph testbed has CephFS: an MDS serving its rank, a key that may mount it
    ceph = volperf(
        "testbed",
        "status",
        "ceph",
        "--state",
        str(k8s_ceph_testbed.state),
        "--json",
        cwd=k8s_testbed.state.parent,
    )
    ceph_report = json.loads(ceph.stdout)
    assert [d["name"] for d in ceph_report["daemons"]] == ["mon.a", "mgr.x", "osd.0", "mds.a"]
    assert ceph_report["ready"] and ceph_report["health"].endswith(", MDS 1/1 active")
    assert (k8s_ceph_testbed.state / "ceph.client.k8s.keyring").stat().st_mode & 0o077 == 0
    pvs = client.CoreV1Api(api).list_persistent_volume(label_selector="volperf-static=true")
    assert len(pvs.items) == K8S_TEST_STATIC_PVS  # as the suite asked for (default STATIC_PVS)
    assert {pv.status.phase for pv in pvs.items} == {"Available"}
    # local-block: each PV a loop device on its own sparse file in the state dir
    assert classes["local-block"].provisioner == "kubernetes.io/no-provisioner"
    blocks = client.CoreV1Api(api).list_persistent_volume(label_selector="volperf-block=true")
    loops = {loop.device: loop.backing_file for loop in loopdev.attached()}
    assert len(blocks.items) == BLOCK_PVS
    for pv in blocks.items:
        assert pv.spec.volume_mode == "Block" and pv.spec.storage_class_name == "local-block"
        image = k8s_testbed.state / "data" / "block" / f"{pv.metadata.name}.img"
        assert loops[pv.spec.local.path] == str(image)
        assert image.stat().st_size == 2**30
        if pv.status.phase == "Available":  # sparse and empty until a pod writes it
            assert image.stat().st_blocks == 0, pv.metadata.name
    # cgroup v1 counts the pods' block I/O once a throttle rule is set on the volumes' disk
    rule = Path("/sys/fs/cgroup/blkio/kubepods/blkio.throttle.read_bps_device")
    assert rule.read_text().split() == [disk_of(k8s_testbed.state), str(COUNTING_BPS)]


def _claim(core, namespace: str, name: str, storage_class: str, mode: str = "Filesystem"):
    core.create_namespaced_persistent_volume_claim(
        namespace,
        {
            "metadata": {"name": name},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": storage_class,
                "volumeMode": mode,
                "resources": {"requests": {"storage": "1Gi"}},
            },
        },
    )


def _mounts() -> list[str]:
    return subprocess.run(["mount"], capture_output=True, text=True, check=True).stdout.splitlines()


def _wait(what: str, check, timeout: float = 120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"{what}: not within {timeout} s")


@pytest.mark.parametrize("storage_class", ["local-path", "local-static", "local-block", "ceph-fs"])
def test_fio_runs_in_a_pod_on_a_pvc_of_each_class(k8s_testbed, storage_class):
    from kubernetes import client

    block = storage_class == "local-block"
    api = k8s_testbed.api()
    core = client.CoreV1Api(api)
    namespace = f"volperf-test-{storage_class}"
    core.create_namespace({"metadata": {"name": namespace}})
    try:
        _claim(core, namespace, "data", storage_class, "Block" if block else "Filesystem")
        filename = "/dev/probe" if block else "/data/probe"
        command = (
            f"fio --name=probe --filename={filename} --size=16M --rw=randwrite "
            "--bs=4k --direct=1 --runtime=1 --time_based --output-format=json "
            "--output=/tmp/fio.json && cat /tmp/fio.json"
        )  # stderr apart: on a raw device fio warns it may not drop the device's cache
        data = (
            {"volumeDevices": [{"name": "data", "devicePath": "/dev/probe"}]}
            if block
            else {"volumeMounts": [{"name": "data", "mountPath": "/data"}]}
        )
        core.create_namespaced_pod(
            namespace,
            {
                "metadata": {"name": "fio"},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "fio",
                            "image": FIO,
                            "imagePullPolicy": "Never",
                            "command": ["/bin/sh", "-c", command],
                            **data,
                        }
                    ],
                    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
                },
            },
        )

        def finished():
            phase = core.read_namespaced_pod("fio", namespace).status.phase
            return phase if phase in ("Succeeded", "Failed") else None

        assert _wait("the fio pod", finished) == "Succeeded"
        output = json.loads(core.read_namespaced_pod_log("fio", namespace))
        assert output["jobs"][0]["write"]["iops"] > 0
        claim = core.read_namespaced_persistent_volume_claim("data", namespace)
        assert claim.status.phase == "Bound" and claim.spec.storage_class_name == storage_class
        if block:  # fio wrote the loop device, which wrote its sparse file: at least every
            # block fio wrote (its random map writes each 4k block of the 16M once a pass; a
            # fixed 1 MiB failed on a loaded machine, where fio did 164 writes in its second)
            image = k8s_testbed.state / "data" / "block" / f"{claim.spec.volume_name}.img"
            written = min(output["jobs"][0]["write"]["io_bytes"], 16 * 2**20)
            assert image.stat().st_blocks * 512 >= written > 0
        if storage_class == "ceph-fs":  # a folder in CephFS, bound to no node
            pv = core.read_persistent_volume(claim.spec.volume_name)
            assert pv.spec.node_affinity is None
            mount = k8s_testbed.state / "mnt" / "ceph-fs"
            folder = Path(pv.spec.host_path.path)
            assert folder.parent == mount / "volperf-k8s-volumes"
            assert (folder / "probe").stat().st_size == 16 * 2**20
            assert any(f"ceph-fuse on {mount} type fuse.ceph-fuse" in line for line in _mounts())
    finally:
        core.delete_namespace(namespace)
    _wait(
        "the namespace gone",
        lambda: namespace not in {n.metadata.name for n in core.list_namespace().items},
    )


def test_up_again_starts_nothing_new_and_puts_static_pvs_back(k8s_testbed_alone):
    """Once nothing else uses the cluster: every PV is free again."""
    from kubernetes import client

    k8s_testbed = k8s_testbed_alone
    before = {d["name"]: d["pid"] for d in k8s_status(k8s_testbed)["daemons"]}
    more = K8S_TEST_STATIC_PVS + 4
    for options in (["--static-pvs", str(more)], []):  # more PVs, then kept as the testbed's
        again = k8s_up(k8s_testbed, *options)
        assert f"local-static ({more} pre-made local PVs" in " ".join(again.stderr.split())
        assert {d["name"]: d["pid"] for d in k8s_status(k8s_testbed)["daemons"]} == before
        pvs = client.CoreV1Api(k8s_testbed.api()).list_persistent_volume(
            label_selector="volperf-static=true"
        )
        assert len(pvs.items) == more
        assert {pv.status.phase for pv in pvs.items} == {"Available"}  # the released one remade


def _pod(core, namespace: str, name: str, node: str, command: str, claim: str | None = None):
    spec = {
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": 0,  # busybox's httpd as PID 1 ignores SIGTERM
        "nodeSelector": {"kubernetes.io/hostname": node},
        "containers": [
            {
                "name": "c",
                "image": FIO,
                "imagePullPolicy": "Never",
                "command": ["/bin/sh", "-c", command],
                **({"volumeMounts": [{"name": "data", "mountPath": "/data"}]} if claim else {}),
            }
        ],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
        if claim
        else [],
    }
    core.create_namespaced_pod(namespace, {"metadata": {"name": name}, "spec": spec})


def test_a_second_node_runs_pods_routed_to_the_first_and_goes_without_a_trace(
    k8s_testbed_alone,
):
    """`up --nodes 2` adds volperf-node-2 (its own kubelet, containerd, bridge, subnet and
    cgroup root): both Ready; a pod the scheduler puts on it reaches a pod on the first
    node; a local-static volume keeps a pod from it (node-bound, the scheduler says so);
    a ceph-fs volume written on the first node is read on the second.
    `up --nodes 1` removes it: nothing of it is left, the first node untouched."""
    from kubernetes import client

    from harness.testbeds.k8s.configs import NODES

    k8s_testbed = k8s_testbed_alone
    first, second = NODES
    core = client.CoreV1Api(k8s_testbed.api())

    before = {d["name"]: d["pid"] for d in k8s_status(k8s_testbed)["daemons"]}
    k8s_up(k8s_testbed, "--nodes", "2")
    try:
        _on_two_nodes(k8s_testbed, core, before)
    finally:  # whatever failed, the tests after this one have one node
        k8s_up(k8s_testbed, "--nodes", "1")
    report = k8s_status(k8s_testbed)
    assert report["ready"] and report["nodes"] == [first.name]
    assert {d["name"]: d["pid"] for d in report["daemons"]} == before
    assert [n.metadata.name for n in core.list_node().items] == [first.name]
    assert not Path("/sys/class/net", second.bridge).exists()
    assert not list(Path("/sys/fs/cgroup").glob(f"*/{second.cgroup_root}"))
    assert not (k8s_testbed.state / "node-2").exists()
    left = subprocess.run(
        ["pgrep", "-af", str(k8s_testbed.state / "node-2")], capture_output=True, text=True
    )
    assert left.stdout == ""


def _on_two_nodes(k8s_testbed, core, before: dict[str, int]) -> None:
    from harness.testbeds.k8s.configs import NODES, POD_LOGS

    first, second = NODES
    report = k8s_status(k8s_testbed)
    assert report["ready"] and report["nodes"] == [first.name, second.name]
    running = {d["name"]: d["pid"] for d in report["daemons"] if d["pid"]}
    assert {k: v for k, v in running.items() if k in before} == before  # the first untouched
    assert {"containerd-2", "kubelet-2"} <= set(running)
    addresses = {
        n.metadata.name: [a.address for a in n.status.addresses if a.type == "InternalIP"]
        for n in core.list_node().items
    }
    assert addresses == {first.name: [first.ip], second.name: [second.ip]}
    namespace = "volperf-test-two-nodes"
    core.create_namespace({"metadata": {"name": namespace}})
    try:
        _pod(
            core,
            namespace,
            "server",
            first.name,
            "echo served > /tmp/i; busybox httpd -f -p 8080 -h /tmp",
        )
        address = _wait(
            "the server's address",
            lambda: core.read_namespaced_pod("server", namespace).status.pod_ip,
        )
        fetch = (
            f"busybox wget -qO- http://{address}:8080/i && busybox grep kubepods /proc/self/cgroup"
        )
        _pod(core, namespace, "client", second.name, fetch)

        def ended(name: str):
            pod = core.read_namespaced_pod(name, namespace)
            return pod.status.phase if pod.status.phase in ("Succeeded", "Failed") else None

        assert _wait("the client", lambda: ended("client")) == "Succeeded"
        said = core.read_namespaced_pod_log("client", namespace)
        assert said.startswith("served\n") and f":/{second.cgroup_root}/kubepods/" in said
        client_pod = core.read_namespaced_pod("client", namespace)
        assert client_pod.spec.node_name == second.name
        assert client_pod.status.pod_ip.startswith(second.pod_cidr.rsplit(".", 2)[0])
        # a local-static volume is on the first node: a pod bound to the second cannot have it
        _claim(core, namespace, "data", "local-static")
        _pod(core, namespace, "bound", second.name, "true", claim="data")

        def unschedulable():
            events = core.list_namespaced_event(
                namespace, field_selector="involvedObject.name=bound"
            ).items
            return [e.message for e in events if e.reason == "FailedScheduling"]

        [message, *_] = _wait("the scheduler's refusal", unschedulable)
        # the PV is of the first node: none of the second's to bind the claim to
        assert "1 node(s) didn't find available persistent volumes to bind" in message, message
        # a ceph-fs volume is in CephFS: written from the first node, read on the second
        _claim(core, namespace, "shared", "ceph-fs")
        _pod(core, namespace, "writer", first.name, "echo kept > /data/f", claim="shared")
        assert _wait("the writer", lambda: ended("writer")) == "Succeeded"
        _pod(core, namespace, "reader", second.name, "cat /data/f", claim="shared")
        assert _wait("the reader", lambda: ended("reader")) == "Succeeded"
        assert core.read_namespaced_pod_log("reader", namespace) == "kept\n"
        # its pods' logs in its own folder: the first node's kubelet, which collects the
        # log folders of pods it does not run, never sees them
        logs = k8s_testbed.state / "node-2" / POD_LOGS
        assert any(d.name.startswith(f"{namespace}_reader_") for d in logs.iterdir())
    finally:
        core.delete_namespace(namespace)
    _wait(
        "the namespace gone",
        lambda: namespace not in {n.metadata.name for n in core.list_namespace().items},
    )
