"""Database servers as Kubernetes objects: a StatefulSet per engine and consumer count
whose pods each run one server ("db") on a PVC of the class under test and a client
container beside it ("client", sleeping until volperf execs sysbench or pgbench in it),
as the StatefulSet study did (one pod = MySQL + sysbench). The password is a Secret of
the namespace, made per campaign; it reaches the containers as environment only, never
a command line volperf records. sysbench fileio ("fileio") has no server: its pods have
one container ("db", sleeping) with the PVC, where volperf execs sysbench on its files.

The images need: mariadb-install-db, mariadbd, mariadb-admin and sysbench; or
PostgreSQL 15 under /usr/lib/postgresql/15/bin with pgbench and psql; and sh, runuser,
sleep (the testbed's registry.local images, made by debootstrap, have them).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from harness.host.databases.postgresql import PGBENCH_DATABASE
from harness.host.databases.server import SYSBENCH_DATABASE

SECRET = "volperf-db"
LUA_CONFIGMAP = "volperf-sysbench-lua"
LUA_DIR = "/volperf-lua"
MARIADB_PORT, POSTGRESQL_PORT = 3306, 5432
PG_BIN = "/usr/lib/postgresql/15/bin"
USER = "volperf"
DATA = "/data"
FILEIO_DIR = f"{DATA}/fileio"  # sysbench fileio's files
# sleep as PID 1 ignores SIGTERM: a drained pod would wait out its grace period
SLEEP = "trap 'exit 0' TERM; sleep infinity & wait"

MARIADB_START = r"""set -e
mkdir -p /data/mysql /run/mysqld
chown mysql:mysql /data/mysql /run/mysqld
if [ ! -d /data/mysql/mysql ]; then
  mariadb-install-db --no-defaults --datadir=/data/mysql --user=mysql \
    --auth-root-authentication-method=normal --skip-test-db $VOLPERF_OPTIONS >/dev/null
fi
umask 077
cat > /run/mysqld/init.sql <<EOF
CREATE DATABASE IF NOT EXISTS sbtest;
CREATE USER IF NOT EXISTS 'volperf'@'%' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER 'volperf'@'%' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL ON sbtest.* TO 'volperf'@'%';
EOF
chown mysql /run/mysqld/init.sql
exec mariadbd --no-defaults --user=mysql --datadir=/data/mysql \
  --socket=/run/mysqld/mysqld.sock --port=3306 --bind-address=0.0.0.0 --skip-name-resolve \
  --init-file=/run/mysqld/init.sql $VOLPERF_OPTIONS
"""

POSTGRESQL_START = rf"""set -e
mkdir -p /data/pg /run/postgresql
chown postgres:postgres /data/pg /run/postgresql
chmod 700 /data/pg
if [ ! -f /data/pg/PG_VERSION ]; then
  umask 077
  printf '%s\n' "$DB_PASSWORD" > /run/postgresql/pw
  chown postgres /run/postgresql/pw
  runuser -u postgres -- {PG_BIN}/initdb -D /data/pg -U {USER} --pwfile=/run/postgresql/pw \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /run/postgresql/pw
  echo "host all all 0.0.0.0/0 scram-sha-256" >> /data/pg/pg_hba.conf
fi
exec runuser -u postgres -- {PG_BIN}/postgres -D /data/pg -c listen_addresses='*' \
  -c unix_socket_directories=/run/postgresql $VOLPERF_OPTIONS
"""

MARIADB_ROOT = ["--no-defaults", "--socket=/run/mysqld/mysqld.sock", "-uroot"]
READY = {
    "mariadb": ["mariadb-admin", *MARIADB_ROOT, "ping"],
    "postgresql": [f"{PG_BIN}/pg_isready", "-q", "-h", "127.0.0.1", "-U", USER],
}
START = {"mariadb": MARIADB_START, "postgresql": POSTGRESQL_START}
RUN_DIR = {"mariadb": "/run/mysqld", "postgresql": "/run/postgresql"}

# In the server's container: the benchmark's database on disk ("data", MariaDB's database
# folder or PostgreSQL's own size query) and the whole data directory ("datadir")
DATASET_LINE = {
    "mariadb": f'echo "data $(du -sb /data/mysql/{SYSBENCH_DATABASE} | cut -f1)"; '
    'echo "datadir $(du -sb /data/mysql | cut -f1)"',
    "postgresql": f'echo "data $({PG_BIN}/psql -d {PGBENCH_DATABASE} -Atc '
    f'"SELECT pg_database_size(\'{PGBENCH_DATABASE}\')")"; '
    'echo "datadir $(du -sb /data/pg | cut -f1)"',
    "fileio": f'echo "data $(du -sb {FILEIO_DIR} | cut -f1)"; '
    f'echo "datadir $(du -sb {DATA} | cut -f1)"',
}


def dataset_sizes(text: str) -> dict[str, int | None]:
    """DATASET_LINE's output: bytes of "data" and "datadir", None where it said none."""
    sizes: dict[str, int | None] = {"data": None, "datadir": None}
    for line in text.splitlines():
        key, _, value = line.strip().partition(" ")
        if key in sizes and value.strip().isdigit():
            sizes[key] = int(value)
    return sizes


def server_options(engine: str, options: dict[str, str | int]) -> str:
    """The campaign's server options as the server takes them on its command line."""
    if engine == "mariadb":
        return " ".join(f"--{k.replace('_', '-')}={v}" for k, v in options.items())
    return " ".join(f"-c {k}={v}" for k, v in options.items())


def _password_env() -> list[dict[str, Any]]:
    secret = {"secretKeyRef": {"name": SECRET, "key": "password"}}
    return [
        {"name": "DB_PASSWORD", "valueFrom": secret},
        {"name": "PGPASSWORD", "valueFrom": secret},
        {"name": "PGUSER", "value": USER},
        {"name": "PGHOST", "value": "127.0.0.1"},
    ]


def client_container(image: str, pull_policy: str) -> dict[str, Any]:
    return {
        "name": "client",
        "image": image,
        "imagePullPolicy": pull_policy,
        "command": ["/bin/sh", "-c", SLEEP],
        "env": _password_env(),
        "volumeMounts": [{"name": "lua", "mountPath": LUA_DIR}],
    }


def statefulset(
    name: str,
    engine: str,
    replicas: int,
    image: str,
    pull_policy: str,
    storage_class: str,
    request: str,
    options: dict[str, str | int],
    labels: dict[str, str],
    memory_limit: str | None = None,
    node: str | None = None,
) -> dict[str, Any]:
    """``engine``: mariadb, postgresql, or fileio (one sleeping container on the PVC).
    ``memory_limit``: the server container's (its page cache is charged to it).
    ``node``: the pods start on that node only, and the set updates its pods only when
    they are deleted (OnDelete), so that ``unpinned`` lets their replacements go
    anywhere while the first ones keep running."""
    selector = {"volperf-set": name}
    server = _server(engine, image, pull_policy, options)
    if memory_limit is not None:
        memory = {"memory": memory_limit}
        server["resources"] = {"limits": memory, "requests": memory}
    pod_spec: dict[str, Any] = {"terminationGracePeriodSeconds": 10, "containers": [server]}
    if engine != "fileio":  # fileio's sysbench runs in the one container, on the PVC
        pod_spec["containers"].append(client_container(image, pull_policy))
        pod_spec["volumes"] = [
            {"name": "run", "emptyDir": {}},
            {"name": "lua", "configMap": {"name": LUA_CONFIGMAP}},
        ]
    strategy = {}
    if node is not None:
        pod_spec["affinity"] = node_affinity("In", node)
        strategy = {"updateStrategy": {"type": "OnDelete"}}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "serviceName": name,
            "replicas": replicas,
            "podManagementPolicy": "Parallel",
            "selector": {"matchLabels": selector},
            **strategy,
            "template": {"metadata": {"labels": {**labels, **selector}}, "spec": pod_spec},
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data", "labels": labels},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "storageClassName": storage_class,
                        "resources": {"requests": {"storage": request}},
                    },
                }
            ],
        },
    }


def _server(
    engine: str, image: str, pull_policy: str, options: dict[str, str | int]
) -> dict[str, Any]:
    """The container with the PVC: the engine's server, or fileio's sleeping one."""
    data = {"name": "data", "mountPath": DATA}
    container = {"name": "db", "image": image, "imagePullPolicy": pull_policy}
    if engine == "fileio":
        return {**container, "command": ["/bin/sh", "-c", SLEEP], "volumeMounts": [data]}
    return {
        **container,
        "command": ["/bin/sh", "-c", START[engine]],
        "env": [
            *_password_env(),
            {"name": "VOLPERF_OPTIONS", "value": server_options(engine, options)},
        ],
        "readinessProbe": {
            "exec": {"command": READY[engine]},
            "periodSeconds": 1,
            "failureThreshold": 1,
            "timeoutSeconds": 5,
        },
        "volumeMounts": [data, {"name": "run", "mountPath": RUN_DIR[engine]}],
    }


UNPINNED = {"spec": {"template": {"spec": {"affinity": None}}}}  # a patch of the set


def node_affinity(operator: str, node: str) -> dict[str, Any]:
    """Pods required on (In) or off (NotIn) a node."""
    term = {"key": "kubernetes.io/hostname", "operator": operator, "values": [node]}
    selector = {"nodeSelectorTerms": [{"matchExpressions": [term]}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": selector}}


def client_pod(
    name: str, image: str, pull_policy: str, labels: dict[str, str], avoid: str | None = None
) -> dict[str, Any]:
    """A client of its own, outside the database's pod: it outlives the pod's deletion;
    ``avoid``: a node it may not run on (the one that fails)."""
    spec: dict[str, Any] = {
        "terminationGracePeriodSeconds": 0,
        "containers": [client_container(image, pull_policy)],
        "volumes": [{"name": "lua", "configMap": {"name": LUA_CONFIGMAP}}],
    }
    if avoid is not None:
        spec["affinity"] = node_affinity("NotIn", avoid)
    return {"metadata": {"name": name, "labels": labels}, "spec": spec}


def count_rows_line(tables: int) -> str:
    """In the server's container: the rows of sysbench's tables, counted exactly."""
    counts = " + ".join(
        f"(SELECT COUNT(*) FROM {SYSBENCH_DATABASE}.sbtest{n})" for n in range(1, tables + 1)
    )
    return shlex.join(["mariadb", *MARIADB_ROOT, "-N", "-e", f"SELECT {counts}"])


def sysbench_connection(host: str) -> list[str]:
    """sysbench's options for the pod's server (the password is added by the shell)."""
    return [
        "--db-driver=mysql",
        f"--mysql-host={host}",
        f"--mysql-port={MARIADB_PORT}",
        f"--mysql-user={USER}",
        "--mysql-db=sbtest",
    ]


def pgbench_connection() -> list[str]:
    return [f"{PG_BIN}/pgbench"]  # PGHOST, PGUSER, PGPASSWORD come from the environment


def with_password(argv: list[str]) -> str:
    """A shell line running argv with the MariaDB password from the container's
    environment, so the password never appears in what volperf keeps."""
    line = shlex.join(argv)
    if argv and argv[0] == "sysbench":
        line = 'sysbench --mysql-password="$DB_PASSWORD"' + line[len("sysbench") :]
    return line


def command_line(argv: list[str], engine: str | None) -> str:
    """A shell line running a client's argv against the pod's server: MariaDB's password
    from the container's environment (with_password); PostgreSQL's is in the
    environment already (PGPASSWORD), fileio has no server."""
    return with_password(argv) if engine == "mariadb" else shlex.join(argv)


def create_database_line(name: str) -> str:
    """A shell line that makes PostgreSQL's database ``name`` (pgbench's, which the
    server's start does not make), quiet if it exists."""
    create = [f"{PG_BIN}/psql", "-d", "postgres", "-c", f"CREATE DATABASE {name}"]
    return f"{shlex.join(create)} >/dev/null 2>&1"


@dataclass(frozen=True)
class PodConnection:
    """A consumer's server as its client container reaches it (harness/tools/db_clients):
    its own pod's (127.0.0.1) or, under io-pause and migration, the server pod's name."""

    host: str = "127.0.0.1"

    def sysbench_options(self) -> list[str]:
        return sysbench_connection(self.host)

    def pgbench(self) -> list[str]:
        return pgbench_connection()
