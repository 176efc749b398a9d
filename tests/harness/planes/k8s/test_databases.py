"""The database objects' pure parts: the password stays in the container's environment,
server options in each engine's own syntax, the StatefulSet's shape, the dataset's
sizes as the server's container prints them."""

from __future__ import annotations

import shlex
import subprocess
import time

from harness.planes.k8s import databases


def test_the_password_is_expanded_by_the_shell_never_written_out():
    line = databases.with_password(["sysbench", "oltp_read_write", "--mysql-host=db 0", "run"])
    assert '"$DB_PASSWORD"' in line and "'--mysql-host=db 0'" in line
    echoed = subprocess.run(
        ["sh", "-c", line.replace("sysbench", "printf '%s|'", 1)],
        env={"DB_PASSWORD": "s3cr et"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert echoed == "--mysql-password=s3cr et|oltp_read_write|--mysql-host=db 0|run|"
    assert databases.with_password(["pgbench", "-i"]) == shlex.join(["pgbench", "-i"])


def test_server_options_in_each_engines_syntax():
    options = {"innodb_buffer_pool_size": "128M", "max_connections": 50}
    assert databases.server_options("mariadb", options) == (
        "--innodb-buffer-pool-size=128M --max-connections=50"
    )
    assert databases.server_options("postgresql", {"shared_buffers": "128MB"}) == (
        "-c shared_buffers=128MB"
    )


def test_statefulset_pods_have_their_own_claim_server_and_client():
    labels = {"volperf-campaign": "c"}
    made = databases.statefulset(
        "mariadb-c002",
        "mariadb",
        2,
        "img",
        "Never",
        "fast",
        "600Mi",
        {"innodb_buffer_pool_size": "64M"},
        labels,
    )
    spec = made["spec"]
    assert spec["replicas"] == 2 and spec["podManagementPolicy"] == "Parallel"
    [claim] = spec["volumeClaimTemplates"]
    assert claim["spec"]["storageClassName"] == "fast" and claim["metadata"]["labels"] == labels
    assert claim["spec"]["resources"]["requests"]["storage"] == "600Mi"
    server, client = spec["template"]["spec"]["containers"]
    assert server["readinessProbe"]["exec"]["command"] == databases.READY["mariadb"]
    assert {"name": "VOLPERF_OPTIONS", "value": "--innodb-buffer-pool-size=64M"} in server["env"]
    secret = [e for e in client["env"] if e["name"] == "DB_PASSWORD"][0]
    assert secret["valueFrom"]["secretKeyRef"]["name"] == databases.SECRET
    assert spec["template"]["metadata"]["labels"] == {**labels, "volperf-set": "mariadb-c002"}
    assert "affinity" not in spec["template"]["spec"] and "updateStrategy" not in spec


def test_the_client_container_ends_at_once_on_sigterm():
    """A drained pod's containers get SIGTERM: a client sleeping as PID 1 would ignore it
    and hold the pod for its whole grace period."""
    command = databases.client_container("img", "Never")["command"]
    client = subprocess.Popen(command)
    time.sleep(0.3)  # the trap is set
    client.terminate()
    assert client.wait(timeout=5) == 0


def test_a_migration_s_set_starts_on_its_node_and_replaces_pods_only_when_deleted():
    pinned = databases.statefulset(
        "mariadb-c002-m", "mariadb", 2, "img", "Never", "fast", "1Gi", {}, {}, node="node-a"
    )
    spec = pinned["spec"]
    assert spec["updateStrategy"] == {"type": "OnDelete"}
    term = spec["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]["matchExpressions"][0]
    assert term == {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}
    assert databases.UNPINNED == {"spec": {"template": {"spec": {"affinity": None}}}}
    client = databases.client_pod("c", "img", "Never", {}, avoid="node-a")["spec"]["affinity"]
    avoided = client["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert avoided["nodeSelectorTerms"][0]["matchExpressions"][0]["operator"] == "NotIn"


def test_start_scripts_are_valid_shell():
    for script in databases.START.values():
        subprocess.run(["sh", "-n", "-c", script], check=True)


def test_a_memory_limit_bounds_the_server_container_only():
    limited = databases.statefulset(
        "mariadb-c001", "mariadb", 1, "img", "Never", "fast", "1Gi", {}, {}, "512Mi"
    )
    server, client = limited["spec"]["template"]["spec"]["containers"]
    assert server["resources"] == {"limits": {"memory": "512Mi"}, "requests": {"memory": "512Mi"}}
    assert "resources" not in client
    plain = databases.statefulset(
        "mariadb-c001", "mariadb", 1, "img", "Never", "fast", "1Gi", {}, {}
    )
    assert "resources" not in plain["spec"]["template"]["spec"]["containers"][0]


def test_dataset_sizes_as_the_containers_print_them():
    assert databases.dataset_sizes("data 46144821\ndatadir 243741440\n") == {
        "data": 46144821,
        "datadir": 243741440,
    }
    assert databases.dataset_sizes("data \ndatadir 10\n") == {"data": None, "datadir": 10}
    for engine in ("mariadb", "postgresql"):
        assert "du -sb /data/" in databases.DATASET_LINE[engine]


def test_a_fileio_set_is_one_sleeping_container_on_the_claim():
    """sysbench fileio has no server: volperf execs sysbench in the claim's container."""
    made = databases.statefulset("fileio-c002", "fileio", 2, "img", "Never", "fast", "1Gi", {}, {})
    pod = made["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert container["name"] == "db" and "readinessProbe" not in container
    assert container["command"] == ["/bin/sh", "-c", databases.SLEEP]
    assert container["volumeMounts"] == [{"name": "data", "mountPath": databases.DATA}]
    assert "volumes" not in pod  # no run folder, no reconnect script
    assert databases.FILEIO_DIR.startswith(databases.DATA + "/")


def test_fileio_s_dataset_is_its_files(tmp_path):
    """The dataset line run by sh on a folder laid out as the pod's claim."""
    files = tmp_path / "fileio"
    files.mkdir()
    (files / "test_file.0").write_bytes(b"x" * 5000)
    (files / "test_file.1").write_bytes(b"x" * 3000)
    (tmp_path / "other").write_bytes(b"y" * 1000)
    line = databases.DATASET_LINE["fileio"].replace(databases.DATA, str(tmp_path))
    printed = subprocess.run(["sh", "-c", line], capture_output=True, text=True, check=True)
    sizes = databases.dataset_sizes(printed.stdout)
    assert sizes["data"] is not None and sizes["data"] >= 8000  # du counts the folder too
    assert sizes["datadir"] is not None and sizes["datadir"] >= sizes["data"] + 1000
