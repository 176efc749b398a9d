"""The pytest plugin of k8s_scenarios (entry point `volperf_k8s`): its options and the
fixtures every scenario uses. Scenarios write campaigns that `volperf report` renders."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.planes.k8s.cluster import kubeconfig_path

PROVISION_STOP = {"no_space": True, "bound_p95_above_s": 600}
# applications grow until a project's PVC cannot be had, or a tenth of the projects fail
APP_STOP = {"no_space": True, "failures_above_pct": 10, "bound_p95_above_s": 600}
SCALES = {  # consumers per step and their work, by --volperf-scale
    "small": {
        "fio_sweep": [1, 4],
        "fio_size": "64M",
        "fio_runtime": 5,
        # namespaces per step, until the class gives out: no volume left for a claim, or
        # binding slower than the 600 s after which the seed study's deployments gave up
        "provision_sweep": {"counts": [2, 4], "stop_when": PROVISION_STOP},
        "provision_pace": {},
        "pvcs_per_namespace": 2,
        "db_sweep": [2],
        "db_threads": [1, 4],
        "db_runtime": 5,
        "tables": 2,
        "table_size": 2000,
        "pgbench_scale": 2,
        "fileio_size": "32M",
        "fileio_threads": [4],
        "fileio_sweep": [1],
        "db_dataset": None,  # tables x table_size, pgbench_scale as given
        "db_memory_limit": None,
        "databases": {},
        # how many pods, each writing 25 times a second, hold p99 <= 2 s: far below what
        # the testbed's classes do, so every count meets it (300 I/Os a pod: by Poisson
        # arrivals alone a pod the class keeps up with misses 75 % once in 40,000)
        "capacity": {
            "rate_iops": 25,
            "p99_ms": 2000,
            "achieved_pct": 75,
            "max_pods": 2,
            "size": "16M",
            "runtime": 12,
        },
        "failover_pods": 1,
        "failover_kills": 2,
        "migration_pods": 2,
        "app_sweep": {"counts": [1, 2], "stop_when": APP_STOP},
        "app_pace": {},
        "git_repo": {"files": 300, "file_size": "4K", "commits": 3},
        "git_iterations": 2,
        "build_source": {"files": 200, "file_size": "4K"},
        "build_jobs": 4,
        "build_iterations": 2,
        "redis": {
            "records": 2000,
            "operations": 5000,
            "appendfsync": "always",
            "client_threads": 4,
            "iterations": 1,
        },
        "broker": {
            "messages": 4000,
            "message_size": 1024,
            "clients": 2,
            "sync": "always",
            "iterations": 1,
        },
    },
    "reference": {
        "fio_sweep": [2, 4, 10, 20, 40],
        "fio_size": "4G",
        "fio_runtime": 600,
        "provision_sweep": {"counts": [1, 10, 50, 100, 250], "stop_when": PROVISION_STOP},
        "provision_pace": {"create_per_min": 10, "delete_per_min": 10},
        "pvcs_per_namespace": 1,
        "db_sweep": [60],
        "db_threads": [1, 2, 5, 10, 20],
        "db_runtime": 300,
        "tables": 50,
        "table_size": 1000000,
        "pgbench_scale": 100,
        # seed 002's file I/O test: 1 GiB of files per pod (the bare-host profile's), the
        # pods and thread counts of the database scenarios
        "fileio_size": "1G",
        "fileio_threads": [1, 2, 5, 10, 20],
        "fileio_sweep": [60],
        # the sysbench and pgbench scenarios size their data at twice the memory each
        # server may keep it in, so that they measure the storage (failover keeps the
        # sizes above: it measures pauses)
        "db_dataset": "2x-memory",
        "db_memory_limit": "2Gi",
        "databases": {
            "mariadb": {"options": {"innodb_buffer_pool_size": "1G"}},
            "postgresql": {"options": {"shared_buffers": "512MB"}},
        },
        # tenants of 100 random 4 KiB writes a second each, p99 <= 20 ms, 95 % of the
        # rate achieved, up to 256 pods, 5 minutes a step
        "capacity": {
            "rate_iops": 100,
            "p99_ms": 20,
            "achieved_pct": 95,
            "max_pods": 256,
            "size": "4G",
            "runtime": 300,
        },
        "failover_pods": 10,
        "failover_kills": 10,
        # the seed study's 10 database pods of one worker node, moved to another
        "migration_pods": 10,
        # the seed study's projects, created and deleted 10 a minute
        "app_sweep": {"counts": [1, 10, 50, 100, 250], "stop_when": APP_STOP},
        "app_pace": {"create_per_min": 10, "delete_per_min": 10},
        # about the size of the repository the seed study cloned (Eclipse Che, ~200 MB),
        # and its 10 iterations per project
        "git_repo": {"files": 20000, "file_size": "8K", "commits": 40},
        "git_iterations": 10,
        # a project's build of the size of a mid-sized Java or C service (the seed's
        # Jenkins built a Spring Boot application), 10 builds per project
        "build_source": {"files": 5000, "file_size": "8K"},
        "build_jobs": 4,
        "build_iterations": 10,
        # a session store's load: a million records of 1 KiB (1.1 GiB in memory and in
        # the append-only file), 5 million operations, fsynced once a second (Redis's own
        # default), 3 rounds per project
        "redis": {
            "records": 1_000_000,
            "operations": 5_000_000,
            "appendfsync": "everysec",
            "client_threads": 16,
            "iterations": 3,
        },
        # the seed study's AMQ projects: persistent messages of 1 KiB, each fsynced before
        # it is acknowledged, 4 producers and 4 consumers, a million messages, 3 rounds
        "broker": {
            "messages": 1_000_000,
            "message_size": 1024,
            "clients": 4,
            "sync": "always",
            "iterations": 3,
        },
    },
}

# the capacity search's settings a user may give instead of the scale's
# (--volperf-capacity-NAME)
CAPACITY_OPTIONS = (
    ("rate_iops", int, "random writes a second each pod is asked for (fio's rate_iops)"),
    ("p99_ms", float, "the objective: p99 write latency at most this, in ms"),
    ("p50_ms", float, "and p50 at most this, in ms (no p50 objective when not given)"),
    ("achieved_pct", float, "the share of its asked rate every pod must achieve, %"),
    ("max_pods", int, "the most pods the search tries"),
    ("runtime", int, "seconds each step runs"),
)


PREFIX = "--volperf-"  # every option of the plugin: it loads in every pytest session


def pytest_addoption(parser: pytest.Parser) -> None:
    # help strings are %-formatted by argparse: a literal percent sign is %%
    group = parser.getgroup("volperf", "volperf k8s_scenarios (Kubernetes PVC scenarios)")
    group.addoption(
        f"{PREFIX}kubeconfig",
        dest="volperf_kubeconfig",
        type=Path,
        default=None,
        help="cluster to run on (default $KUBECONFIG, the k8s testbed's, ~/.kube/config)",
    )
    group.addoption(
        f"{PREFIX}storage-class",
        dest="volperf_storage_class",
        action="append",
        default=[],
        help="StorageClass under test; give it twice or more to compare",
    )
    group.addoption(
        f"{PREFIX}scale",
        dest="volperf_scale",
        choices=sorted(SCALES),
        default="small",
        help="consumers per step and their work (default small)",
    )
    group.addoption(
        f"{PREFIX}campaign",
        dest="volperf_campaign",
        default=None,
        help="campaign name prefix (default k8s-YYYYmmdd-HHMMSS)",
    )
    group.addoption(
        f"{PREFIX}results",
        dest="volperf_results",
        type=Path,
        default=Path("results"),
        help="where campaigns are stored (default ./results)",
    )
    group.addoption(
        f"{PREFIX}doc-source",
        dest="volperf_doc_source",
        type=Path,
        default=None,
        help="Sphinx source the campaigns' pages and the StorageClass comparisons are "
        "written into (test_results/); default: no page is written",
    )
    group.addoption(
        f"{PREFIX}fio-image",
        dest="volperf_fio_image",
        default="registry.local/fio:3.33",
        help="fio in the fio and PVC provisioning scenarios' pods",
    )
    group.addoption(
        f"{PREFIX}mariadb-image",
        dest="volperf_mariadb_image",
        default="registry.local/mariadb-sysbench:bookworm",
        help="mariadbd, mariadb-install-db, mariadb-admin and sysbench",
    )
    group.addoption(
        f"{PREFIX}postgresql-image",
        dest="volperf_postgresql_image",
        default="registry.local/postgresql-pgbench:bookworm",
        help="PostgreSQL 15 and pgbench in /usr/lib/postgresql/15/bin",
    )
    group.addoption(
        f"{PREFIX}app-image",
        dest="volperf_app_image",
        default="registry.local/apps:bookworm-3",
        help="the git, build, redis and broker scenarios': sh, awk, tar, gzip, df, sync -f, "
        "git, make, redis-server, redis-cli, volperf-ycsb, nats-server and nats",
    )
    group.addoption(
        f"{PREFIX}pod-timeout",
        dest="volperf_pod_timeout",
        type=int,
        default=300,
        help="seconds for PVCs to bind and pods to become ready",
    )
    group.addoption(
        f"{PREFIX}image-pull-policy",
        dest="volperf_image_pull_policy",
        default="IfNotPresent",
        choices=["Never", "IfNotPresent", "Always"],
        help="imagePullPolicy of the scenarios' pods",
    )
    for name, kind, what in CAPACITY_OPTIONS:
        group.addoption(
            f"{PREFIX}capacity-{name.replace('_', '-')}",
            dest=f"volperf_capacity_{name}",
            type=kind,
            default=None,
            help=f"capacity search (test_fio_capacity.py): {what.replace('%', '%%')} "
            "(default: the scale's)",
        )


@dataclass(frozen=True)
class ScenarioOptions:
    kubeconfig: Path
    storage_classes: list[str]
    scale: dict[str, Any]
    campaign: str
    results: Path
    fio_image: str
    mariadb_image: str
    postgresql_image: str
    app_image: str
    image_pull_policy: str
    pod_timeout: int
    capacity: dict[str, Any]  # the scale's capacity search with the options given

    def data_size(self, size_key: str, size: int) -> dict[str, Any]:
        """A database scenario's data: ``size_key: size`` (table_size, scale), or the
        scale's dataset against the memory."""
        dataset = self.scale["db_dataset"]
        return {"dataset": dataset} if dataset else {size_key: size}

    def target(self, storage_class: str) -> dict[str, Any]:
        return {
            "type": "k8s",
            "kubeconfig": str(self.kubeconfig),
            "storage_class": storage_class,
            "fio_image": self.fio_image,
            "mariadb_image": self.mariadb_image,
            "postgresql_image": self.postgresql_image,
            "app_image": self.app_image,
            "image_pull_policy": self.image_pull_policy,
            "pod_timeout": self.pod_timeout,
            "db_memory_limit": self.scale["db_memory_limit"],
        }

    def spec(
        self,
        scenario: str,
        storage_class: str,
        workloads: list[dict[str, Any]],
        sweep: list[int] | dict[str, Any],
    ) -> dict[str, Any]:
        return {
            "name": f"{self.campaign}-{scenario}-{storage_class}",
            "target": self.target(storage_class),
            "databases": self.scale["databases"],
            "workloads": workloads,
            "sweep": sweep,
            "labels": {"storage_class": storage_class, "scenario": scenario},
        }

    def run(
        self,
        scenario: str,
        storage_class: str,
        workloads: list[dict[str, Any]],
        sweep: list[int] | dict[str, Any],
    ) -> Any:
        """The scenario's campaign on the class, whose steps must all be done, but where
        an open-ended sweep ended (said on the console) and after."""
        from harness.campaign.run import run_campaign
        from harness.core.spec import validate
        from harness.planes.k8s.target import KubernetesTarget

        spec = validate(self.spec(scenario, storage_class, workloads, sweep))
        outcome = run_campaign(spec, self.results, KubernetesTarget)
        CAMPAIGNS.setdefault(scenario, []).append(self.results / spec.name)
        failed = {
            r.summary["step"]: r.summary.get("error")
            for r in outcome.results
            if r.summary["step"] in outcome.failed_steps
        }
        assert not failed, failed
        for ended in outcome.ended_sweeps:
            print(f"{spec.name}: the sweep ended: {ended}")
        return outcome

    def capacity_search(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The capacity scenario's workload (each pod asked for the rate, random 4 KiB
        writes) and its sweep: from 1 pod up to the max, searching (sweep.search)."""
        capacity = self.capacity
        objective = {"p99_ms": capacity["p99_ms"], "achieved_pct": capacity["achieved_pct"]}
        if capacity.get("p50_ms") is not None:
            objective["p50_ms"] = capacity["p50_ms"]
        workload = {
            "name": "rate-randwrite-4k",
            "rw": "randwrite",
            "bs": "4k",
            "iodepth": 4,
            "size": capacity["size"],
            "runtime": capacity["runtime"],
            "rate_iops": capacity["rate_iops"],
        }
        return [workload], {"start": 1, "max": capacity["max_pods"], "search": objective}

    def run_projects(self, scenario: str, storage_class: str, workload: dict[str, Any]) -> Any:
        """An application scenario (git, build, redis, broker): its projects grown by the
        scale's sweep at its pace; every iteration of every step that ran to its end
        succeeded."""
        workload = {**workload, "name": scenario, "pace": self.scale["app_pace"]}
        outcome = self.run(scenario, storage_class, [workload], self.scale["app_sweep"])
        ran = [r for r in outcome.results if r.summary["state"] == "done"]
        assert ran, "no step ran to its end"
        for result in ran:
            app = result.summary["app"]
            assert app["tool"] == workload["tool"] and app["failed"] == 0, app
            assert app["iterations"] == result.summary["concurrency"] * workload["iterations"]
        return outcome


CAMPAIGNS: dict[str, list[Path]] = {}  # scenario: its campaigns, one per class


@pytest.fixture(scope="session")
def scenario_options(request: pytest.FixtureRequest) -> ScenarioOptions:
    config = request.config
    classes = config.getoption("volperf_storage_class")
    if not classes:
        pytest.fail("k8s_scenarios need --volperf-storage-class NAME (one or more)", pytrace=False)
    kubeconfig = kubeconfig_path(config.getoption("volperf_kubeconfig"))
    if not kubeconfig.exists():
        pytest.fail(
            f"{kubeconfig}: no such kubeconfig (--volperf-kubeconfig, $KUBECONFIG, or "
            "`volperf testbed up k8s`)",
            pytrace=False,
        )
    return ScenarioOptions(
        kubeconfig=kubeconfig,
        storage_classes=classes,
        scale=SCALES[config.getoption("volperf_scale")],
        campaign=config.getoption("volperf_campaign") or time.strftime("k8s-%Y%m%d-%H%M%S"),
        results=config.getoption("volperf_results"),
        fio_image=config.getoption("volperf_fio_image"),
        mariadb_image=config.getoption("volperf_mariadb_image"),
        postgresql_image=config.getoption("volperf_postgresql_image"),
        app_image=config.getoption("volperf_app_image"),
        image_pull_policy=config.getoption("volperf_image_pull_policy"),
        pod_timeout=config.getoption("volperf_pod_timeout"),
        capacity=capacity_of(
            SCALES[config.getoption("volperf_scale")]["capacity"],
            {name: config.getoption(f"volperf_capacity_{name}") for name, _, _ in CAPACITY_OPTIONS},
        ),
    )


def capacity_of(scale: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The scale's capacity search, with each setting given (--volperf-capacity-NAME)
    instead."""
    return {**scale, **{name: value for name, value in given.items() if value is not None}}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A scenario taking ``storage_class`` runs once per --volperf-storage-class (only the
    scenarios here: the plugin is loaded in every pytest run of the environment)."""
    here = Path(__file__).parent
    if "storage_class" in metafunc.fixturenames and Path(metafunc.definition.path).parent == here:
        classes = metafunc.config.getoption("volperf_storage_class") or ["(none given)"]
        metafunc.parametrize("storage_class", classes)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Pages: each campaign's, and for a scenario run on two classes or more the
    StorageClass comparison (every other class against the first), under
    --volperf-doc-source/test_results when it is given (else none: the campaigns stay in
    --volperf-results, for `volperf report`); `sphinx-build` (or `volperf report
    --build`) makes HTML."""
    from harness.core.store import CampaignStore
    from harness.records.compare import compare_campaigns
    from harness.report.comparison import write_comparison
    from harness.report.data import load
    from harness.report.render import write_report

    doc_source = session.config.getoption("volperf_doc_source")
    say = session.config.get_terminal_writer().line
    if not CAMPAIGNS:
        return
    if doc_source is None:
        say(
            "volperf: no pages written (--volperf-doc-source DIR writes them; "
            "`volperf report CAMPAIGN` makes one from the campaigns in "
            f"{session.config.getoption('volperf_results')})"
        )
        return
    if not (doc_source / "conf.py").exists():
        say(f"volperf: no pages written: {doc_source} is not a Sphinx source (no conf.py)")
        return
    for scenario, campaigns in CAMPAIGNS.items():
        done = [c for c in campaigns if (c / "summary.json").exists()]
        for campaign in done:
            say(f"volperf: {scenario}: page {write_report(CampaignStore(campaign), doc_source)}")
        if len(done) > 1:
            loaded = [load(CampaignStore(c)) for c in done]
            base, others = loaded[0], loaded[1:]
            comparisons = [compare_campaigns(base.compared(), o.compared()) for o in others]
            page = write_comparison(base.name, [o.name for o in others], comparisons, doc_source)
            say(f"volperf: {scenario}: StorageClass comparison {page}")
