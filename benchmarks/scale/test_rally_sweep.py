"""Rally's control plane at 2, 10, 20, 40, 80 and 120 concurrent users (times =
concurrency) on the OpenStack testbed, through `volperf run rally` and through plain
`rally task start` of the same task file with the same args, alternating which goes first
at each step. For each run: wall time, CPU seconds and peak RSS (the process's rusage from
wait4, Rally's runner process included for volperf), and from Rally's own JSON report
each workload's iterations, failures by cause (Rally's error type and message), load and
full duration. Checks that both rendered the same workloads and that the cloud holds no
server or volume after each run. Writes results/scale/rally-sweep/ (comparison.csv,
failures.csv, comparison-cN.json, the volperf campaigns and plain Rally's JSON reports,
gzipped).

Each tool's Rally database and environment are made before the sweep and kept across it,
as a user's are: plain Rally's by `rally db create` and `rally env create`, volperf's by
a first campaign of one iteration per scenario (the first campaign on a cloud makes
them). The OpenStack testbed (on a Ceph testbed) is conftest.py's, shared with the Heat
benchmark, purged at the end. Run alone on the
machine: ``.venv/bin/python -m pytest benchmarks/scale/test_rally_sweep.py -s``.
$VOLPERF_SCALE_RALLY_SCENARIOS (comma-separated: create_and_attach_volume,
boot_from_volume_and_delete; default both) and $VOLPERF_SCALE_RALLY_CONCURRENCY (default
2,10,20,40,80,120) narrow it; at the concurrencies in $VOLPERF_SCALE_RALLY_BOTH_ORDERS
(default 120; empty for none) the pair runs again in the other order, so that which tool
went second is seen apart from the tool. $VOLPERF_SCALE_RALLY_OUT (relative to the
checkout) writes elsewhere (tests/harness/records/fixtures/rally-c120/capture.sh uses
it). The comparison files say what ran. On 2 cores the
cloud does an iteration about every 3 s whatever the concurrency: the whole sweep, both
scenarios and both tools, 120 users both ways, took 71 minutes on 2026-11-24; on
2026-12-06, with the cloud about 1.5 times slower from 40 users up, it took 77 minutes
with 120 users one way only.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmarks.scale.measure import ROOT, gzipped, keep_gzipped, run_measured, write_figures
from harness.planes.rally.records import load_export, runner_of, scenario_of, workloads
from harness.planes.rally.target import TASKS_DIR, rally_env_spec
from harness.testbeds.openstack.testbed import CLOUD

OUT = ROOT / os.environ.get("VOLPERF_SCALE_RALLY_OUT", "results/scale/rally-sweep")
SCENARIOS = os.environ.get(
    "VOLPERF_SCALE_RALLY_SCENARIOS", "create_and_attach_volume,boot_from_volume_and_delete"
).split(",")
CONCURRENCY = [
    int(c)
    for c in os.environ.get("VOLPERF_SCALE_RALLY_CONCURRENCY", "2,10,20,40,80,120").split(",")
]
BOTH_ORDERS = [
    int(c) for c in os.environ.get("VOLPERF_SCALE_RALLY_BOTH_ORDERS", "120").split(",") if c
]
TOOLS = ("volperf", "rally")
TASK = TASKS_DIR / "control-plane.yaml"
RUN_TIMEOUT_S = 7200
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
RALLY_TASK = re.compile(r"Task (?:\[tags: [^]]*\] )?(" + UUID.pattern + r"): started")
# the names Rally gives what an iteration makes: s_rally_<task's 8>_<8 random>
RALLY_NAME = re.compile(r"\b[a-z]_rally_[0-9a-f]{8}_[A-Za-z0-9]{8}\b")


@pytest.fixture(scope="module")
def plain_rally(openstack_cloud, tmp_path_factory):
    """`rally` as a user runs it: its own database and environment (the same admin as
    volperf's), its globals in a home of its own."""
    work = tmp_path_factory.mktemp("plain-rally")
    home = work / "home"
    home.mkdir()
    config = work / "rally.conf"
    config.write_text(f"[database]\nconnection = sqlite:///{work / 'rally.sqlite'}\n")
    region = cloud_config(openstack_cloud)
    spec = work / "env.json"
    spec.touch(mode=0o600)
    spec.write_text(json.dumps(rally_env_spec(region)))
    rally = [str(Path(sys.executable).with_name("rally")), "--config-file", str(config)]
    env = {"HOME": str(home)}
    run_measured([*rally, "db", "create"], work, work / "db.log", env)
    create_env = [*rally, "env", "create", "--name", "plain", "--spec", str(spec)]
    run_measured(create_env, work, work / "env.log", env)
    return rally, env


def cloud_config(clouds: Path) -> Any:
    import openstack

    return openstack.config.OpenStackConfig(config_files=[str(clouds)]).get_one(cloud=CLOUD)


def task_args(concurrency: int) -> dict[str, Any]:
    return {"times": concurrency, "concurrency": concurrency, "scenarios": SCENARIOS}


def runs() -> list[tuple[int, str]]:
    """(concurrency, the tool that goes first): alternating, and both ways where asked."""
    pairs = []
    for index, concurrency in enumerate(CONCURRENCY):
        pairs.append((concurrency, TOOLS[index % 2]))
        if concurrency in BOTH_ORDERS:
            pairs.append((concurrency, TOOLS[1 - index % 2]))
    return pairs


@pytest.fixture(scope="module")
def volperf_state(openstack_cloud, tmp_path_factory) -> Path:
    """volperf's state (its Rally database and the cloud's Rally environment), kept across
    the sweep as a user's is, made by a first campaign of one iteration per scenario before
    it, as plain Rally's database and environment are made before it (plain_rally): the
    first campaign on a cloud waits for Rally to check the cloud, every later one uses
    what it made."""
    state = tmp_path_factory.mktemp("volperf-state")
    work = tmp_path_factory.mktemp("volperf-first")
    _, code, _ = volperf_campaign(1, openstack_cloud, work, "rally-sweep-first", state)
    assert code == 0, f"volperf's first campaign failed: {work / 'rally-sweep-first.log'}"
    return state


def volperf_campaign(
    concurrency: int, cloud: Path, work: Path, name: str, state: Path
) -> tuple[Any, int, Path]:
    """`volperf run rally` of a campaign of one step at ``concurrency``: its process's cost,
    exit code and campaign folder."""
    spec = work / f"{name}.yaml"
    args = {"scenarios": SCENARIOS}
    workload = {"name": "control-plane", "tool": "rally", "task": "control-plane"}
    workload |= {"times_per_user": 1, "args": args, "timeout": RUN_TIMEOUT_S}
    spec.write_text(
        yaml.safe_dump(
            {
                "name": name,
                "target": {"type": "openstack", "cloud": CLOUD},
                "workloads": [workload],
                "sweep": [concurrency],
            }
        )
    )
    results = work / "volperf-results"
    argv = [sys.executable, "-m", "harness.cli", "run", "rally", str(spec)]
    env = {"OS_CLIENT_CONFIG_FILE": str(cloud), "VOLPERF_STATE": str(state)}
    cost, code = run_measured(
        [*argv, "--results", str(results)], ROOT, work / f"{name}.log", env, exit_codes=(0, 1)
    )
    return cost, code, results / name


def run_volperf(concurrency: int, cloud: Path, work: Path, label: str, state: Path) -> dict:
    """`volperf run rally`: a campaign of one step at ``concurrency``, kept."""
    name = f"rally-sweep-{label}"
    cost, code, campaign = volperf_campaign(concurrency, cloud, work, name, state)
    [report] = campaign.glob("steps/*/raw/rally.json")
    kept = OUT / name
    shutil.rmtree(kept, ignore_errors=True)
    # the records, without Rally's 1 MB HTML page and created.json (names this run's paths)
    shutil.copytree(
        campaign, kept, ignore=shutil.ignore_patterns("report.html", "created.json", ".lock")
    )
    for path in kept.glob("steps/*/raw/rally.json"):
        gzipped(path)
    # Rally's configuration names volperf's state folder, this run's temporary one
    for path in kept.glob("steps/*/raw/rally.conf"):
        path.write_text(path.read_text().replace(str(state), "<volperf-state>"))
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    return {
        "process": asdict(cost),
        "exit_code": code,
        "step_state": step["state"],
        "step_cost": step["cost"],
        **rally_figures(report),
    }


def run_plain(
    concurrency: int, rally: tuple[list[str], dict[str, str]], work: Path, label: str
) -> dict:
    """`rally task start` of the same task file with the same args."""
    command, env = rally
    log = work / f"rally-{label}.log"
    argv = [*command, "task", "start", str(TASK), "--env", "plain", "--tag", "plain"]
    argv += ["--task-args", json.dumps(task_args(concurrency))]
    # exit 1: iterations failed; 2: an SLA failed (failure_rate max 0)
    cost, code = run_measured(argv, work, log, env, exit_codes=(0, 1, 2))
    [uuid] = RALLY_TASK.findall(log.read_text())
    report = work / f"rally-{label}.json"
    export = [*command, "task", "export", uuid, "--type", "json", "--to", str(report)]
    run_measured(export, work, work / "export.log", env)
    keep_gzipped(report, OUT / "plain-rally")
    return {"process": asdict(cost), "exit_code": code, **rally_figures(report)}


def cause(error: list[str]) -> str:
    """Rally's error of an iteration: its type and message, ids and Rally's names made
    alike so that the same cause counts once."""
    kind, message = (error + ["", ""])[:2]
    return alike(f"{kind}: {message}".strip())[:400]


def alike(text: str) -> str:
    return RALLY_NAME.sub("<name>", UUID.sub("<id>", text))


def rally_figures(report: Path) -> dict[str, Any]:
    """Per workload, from Rally's own JSON export: iterations, failures by cause, load and
    full duration; and what was asked (scenario args, runner, contexts, SLA)."""
    document = load_export(report)
    figures = []
    for _, workload in workloads(document):
        failures = Counter(cause(it["error"]) for it in workload["data"] if it["error"])
        iterations = len(workload["data"])
        figures.append(
            {
                "scenario": scenario_of(workload),
                "iterations": iterations,
                "failed": sum(failures.values()),
                "success_pct": round(100 * (1 - sum(failures.values()) / iterations), 1)
                if iterations
                else None,
                "load_duration_s": round(workload["load_duration"], 2),
                "full_duration_s": round(workload["full_duration"], 2),
                "failures": dict(failures),
                "asked": {
                    "args": workload["scenario"],
                    "runner": runner_of(workload),
                    "contexts": workload["contexts"],
                    "sla": workload["sla"],
                },
            }
        )
    return {"workloads": figures}


def leftovers(cloud: Path) -> list[str]:
    """Servers and volumes in any project of the cloud."""
    import openstack

    conn = openstack.connection.Connection(config=cloud_config(cloud))
    servers = [f"server {s.name}" for s in conn.compute.servers(all_projects=True)]
    volumes = [f"volume {v.name}" for v in conn.block_storage.volumes(all_projects=True)]
    return servers + volumes


@pytest.mark.parametrize(("concurrency", "first"), runs())
def test_volperf_against_plain_rally(
    openstack_cloud, plain_rally, volperf_state, concurrency, first, tmp_path
):
    cloud = openstack_cloud
    OUT.mkdir(parents=True, exist_ok=True)
    order = [first, *(t for t in TOOLS if t != first)]
    label = f"c{concurrency}-{first}-first"
    figures: dict[str, Any] = {"concurrency": concurrency, "task_args": task_args(concurrency)}
    figures["order"] = order
    for tool in order:
        if tool == "volperf":
            figures["volperf"] = run_volperf(concurrency, cloud, tmp_path, label, volperf_state)
        else:
            figures["rally"] = run_plain(concurrency, plain_rally, tmp_path, label)
        figures[f"left_after_{tool}"] = leftovers(cloud)
    mine, theirs = figures["volperf"], figures["rally"]
    figures["volperf_added_wall_pct"] = round(
        100 * (mine["process"]["wall_s"] / theirs["process"]["wall_s"] - 1), 1
    )
    # the cloud's own pace varies by several % from run to run; the time each tool spends
    # outside Rally's workloads is what the tool itself adds
    figures["volperf_added_s"] = round(outside_rally_s(mine) - outside_rally_s(theirs), 1)
    write_figures(OUT / f"comparison-{label}.json", figures)
    write_tables()
    print(json.dumps({k: v for k, v in figures.items() if k != "task_args"}, indent=1)[:4000])
    # the same workloads asked of Rally both ways, and nothing left in the cloud
    assert [w["asked"] for w in mine["workloads"]] == [w["asked"] for w in theirs["workloads"]]
    assert [w["iterations"] for w in mine["workloads"]] == [concurrency] * len(SCENARIOS)
    assert not figures["left_after_volperf"] and not figures["left_after_rally"]


def outside_rally_s(run: dict[str, Any]) -> float:
    """The run's wall time less its workloads' full durations (Rally's contexts included):
    the tool's start, Rally's task validation, reports and, for volperf, its records and
    its check that the task left nothing."""
    return round(run["process"]["wall_s"] - sum(w["full_duration_s"] for w in run["workloads"]), 1)


def write_tables() -> None:
    """comparison.csv (a row per concurrency, tool and scenario, and the process) and
    failures.csv (a row per cause), from the comparison files."""
    rows, causes = [], []
    runs = [json.loads(path.read_text()) for path in OUT.glob("comparison-c*.json")]
    for data in sorted(runs, key=lambda run: (run["concurrency"], run["order"] != list(TOOLS))):
        concurrency = data["concurrency"]
        for tool in TOOLS:
            run = data[tool]
            first = data["order"][0] == tool
            for workload in run["workloads"]:
                rows.append(
                    {
                        "concurrency": concurrency,
                        "tool": tool,
                        "ran_first": first,
                        "scenario": workload["scenario"],
                        **{k: workload[k] for k in ("iterations", "failed", "success_pct")},
                        "load_duration_s": workload["load_duration_s"],
                        "full_duration_s": workload["full_duration_s"],
                    }
                )
                # counted again by cause: files of an earlier cause() kept Rally's names
                counted = Counter()
                for text, count in workload["failures"].items():
                    counted[alike(text)] += count
                for text, count in counted.items():
                    causes.append(
                        {
                            "concurrency": concurrency,
                            "tool": tool,
                            "scenario": workload["scenario"],
                            "count": count,
                            "cause": text,
                        }
                    )
            rows.append(
                {
                    "concurrency": concurrency,
                    "tool": tool,
                    "ran_first": first,
                    "scenario": "(whole run)",
                    "iterations": sum(w["iterations"] for w in run["workloads"]),
                    "failed": sum(w["failed"] for w in run["workloads"]),
                    **run["process"],
                    "outside_rally_s": outside_rally_s(run),
                    "added_wall_pct": data["volperf_added_wall_pct"] if tool == "volperf" else "",
                }
            )
    fields = [
        "concurrency",
        "tool",
        "ran_first",
        "scenario",
        "iterations",
        "failed",
        "success_pct",
        "load_duration_s",
        "full_duration_s",
        "wall_s",
        "cpu_s",
        "peak_rss_mib",
        "outside_rally_s",
        "added_wall_pct",
    ]
    if not causes:  # a table with a body, which the docs' csv-table needs
        causes.append(dict.fromkeys(("concurrency", "tool", "scenario"), "all"))
        causes[0] |= {"count": 0, "cause": "no iteration failed"}
    for name, table, columns in (
        ("comparison.csv", rows, fields),
        ("failures.csv", causes, ["concurrency", "tool", "scenario", "count", "cause"]),
    ):
        with (OUT / name).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, columns)
            writer.writeheader()
            writer.writerows(table)
