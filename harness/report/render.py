"""Write a campaign's page: doc/source/test_results/<name>/index.rst and its figures."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from jinja2 import Environment, PackageLoader, StrictUndefined

from harness import __version__
from harness.campaign.results import record_files
from harness.core.redact import redact_text
from harness.core.resources import package_path
from harness.core.store import CampaignStore, atomic_write_text
from harness.core.workloads.registry import TOOLS, family_of
from harness.core.workloads.registry import tool as by_tag
from harness.planes.heat.qos import TOLERANCE as QOS_TOLERANCE
from harness.planes.rally.runner import HTML_REPORT
from harness.report import plots, tables
from harness.report.data import CampaignData, load
from harness.report.describe import describe_sweep, describe_workload
from harness.tools.apps.parse import PHASES as APP_PHASES

APP_TOOLS = tuple(APP_PHASES)
_RST_SPECIAL = re.compile(r"([\\`*|_])")


def rst(value: object) -> str:
    """A value as inline RST text: markup characters escaped, on one line."""
    return _RST_SPECIAL.sub(r"\\\1", " ".join(str(value).split())) or "–"


def heading(text: str, char: str) -> str:
    text = rst(text)
    return f"{text}\n{char * len(text)}"


def templates() -> Environment:
    env = Environment(
        loader=PackageLoader("harness.report", "templates"),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["rst"] = rst
    env.filters["heading"] = heading
    env.filters["caption"] = plots.caption
    return env


def environment_rows(environment: dict[str, Any]) -> list[list[str]]:
    rows: list[list[str]] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), inner)
        elif isinstance(value, list):
            rows.append([prefix, ", ".join(str(v) for v in value)])
        elif prefix.endswith(("_bytes", "_kib")) and isinstance(value, int | float):
            scale = 2**30 if prefix.endswith("_bytes") else 2**20
            rows.append([prefix.rsplit("_", 1)[0], f"{value / scale:.1f} GiB"])
        else:
            rows.append([prefix, str(value)])

    walk("", environment)
    return rows


def heat_method(heat: dict[str, Any]) -> str:
    line = (
        "Each fio step creates Heat stacks of heat_templates/cinder-fio at once, one per rw "
        f"mode, whose VMs (image {heat.get('image')}, flavor {heat.get('flavor')}) each have "
        "their own Cinder volume; an agent in every VM runs fio on its volume (found by its "
        "id) and returns fio's JSON through the VM's wait condition; the stacks are deleted "
        "after the step."
    )
    if heat.get("device_mode") == "rbd":
        line += (
            " TEST STAND-IN: no VM booted (the OpenStack testbed's Nova runs the fake virt "
            "driver); volperf's local guest runner ran each server's own agent on the host, "
            "with fio's rbd engine on the volume's RBD image instead of a block device."
        )
    return line


def method_lines(data: CampaignData) -> list[str]:
    spec = data.spec
    if data.reference:
        return list(data.reference.get("method", []))
    target = spec.get("target", {})
    tools = {w.get("tool", "fio") for w in spec.get("workloads", [])}
    vm_runs = any(s.get("tool") == "rally" and s.get("runs") for s in data.steps)
    counted = "Consumers per step"
    if tools == {"rally"}:
        counted = "VMs per step" if vm_runs else "Concurrency"
    where = target.get("dir") or target.get("cloud") or target.get("storage_class") or ""
    lines = [
        f"Target: {target.get('type')} {where}".strip()
        + (f" ({data.backend})" if data.backend else ""),
        f"{counted}: {describe_sweep(spec.get('sweep'), data.steps)}; "
        f"{spec.get('repeats', 1)} run(s) of each.",
    ]
    if "fio" in tools and target.get("type") == "openstack":
        lines.append(heat_method(target.get("heat") or {}))
    elif "fio" in tools and target.get("type") == "k8s":
        lines.append(
            f"Each fio step starts one pod per consumer at once, each with its own PVC of "
            f"StorageClass {target.get('storage_class')} and volperf's fio job (image "
            f"{target.get('fio_image')}); every pod's fio JSON comes back through its log. PVC "
            "bound and pod running times are from volperf's create request, polled."
        )
    elif "fio" in tools:
        lines.append(
            "Each fio step is one fio process with one job per consumer on its own file, all "
            "starting together; the host's CPU, memory and the device's counters are sampled "
            "once a second."
        )
    if "rally" in tools:
        lines.append(
            "Each step runs the Rally task at one concurrency (Rally's constant runner, as "
            "Rally's Python API in a process of its own) as the cloud's admin; Rally's own "
            "statistics make the tables, and its HTML report of every step is linked below."
            + (" Ceph health was sampled during every step." if target.get("ceph_conf") else "")
        )
    if vm_runs:
        lines.append(
            "Data-plane steps (VolPerf.cinder_fio): every Rally iteration, one after another, "
            "creates the step's VMs through Heat, each running fio on its own Cinder volume; "
            "each iteration's VMs are aggregated as a fio step of that many consumers, and the "
            "step's figures are the mean over its iterations. The VMs' figures are their fio "
            "JSON where the run kept it (volperf run rally), else the table of every VM in "
            "Rally's report (a task run by plain Rally and exported): that table has no "
            "latency histograms, so merged percentiles are then not available."
        )
    databases = spec.get("databases") or {}
    settings = "; ".join(
        f"{engine}: " + ", ".join(f"{k}={v}" for k, v in (s.get("options") or {}).items())
        for engine, s in databases.items()
    )
    applications = tools & set(APP_TOOLS)
    if target.get("type") == "k8s" and tools - {"fio", "pvc-provision", *APP_TOOLS}:
        lines.append(
            "Database steps on Kubernetes: every consumer is a pod of a StatefulSet (its server "
            f"on its own PVC of StorageClass {target.get('storage_class')}, the client beside it "
            "in the same pod, run through the API's exec), loaded once per dataset and kept "
            "for the thread sweep. io-pause deletes the server pods (grace period 0) while a "
            "client pod of their own runs sysbench; the StatefulSet replaces each on its PVC "
            "and volperf points the client at the new pod's address (the testbed has no "
            f"cluster DNS). Server settings: {settings or 'defaults'}."
        )
    elif tools - {"fio", "rally", "pvc-provision", *APP_TOOLS}:
        lines.append(
            "Each database step starts its consumers' clients together; every consumer has its "
            "own server (volperf's own instances, data in the directory under test, reached "
            f"on a private socket) loaded once per dataset. Server settings: "
            f"{settings or 'defaults'}."
        )
    if applications and target.get("type") == "k8s":
        lines.append(
            f"Each {' and '.join(sorted(applications))} step makes a project per consumer: a "
            f"namespace with a PVC of StorageClass {target.get('storage_class')} and a pod "
            f"(image {target.get('app_image')}) that generates the workload's source into a "
            "scratch volume (untimed) and, once every project's pod is ready, runs the "
            "workload on its PVC at volperf's start signal; each pod's output comes back "
            "through its log. PVC bound times are from volperf's create request."
            + _setups(applications, "k8s")
        )
    elif applications:
        lines.append(
            f"Each {' and '.join(sorted(applications))} step runs every consumer's workload at "
            "once, each in its own folder of the directory under test, from a source volperf "
            "generated there beforehand (untimed); the host's CPU, memory and the device's "
            "counters are sampled once a second." + _setups(applications, "local")
        )
    settings = data.environment.get("backend_settings") or {}
    if settings:
        lines.append(
            "The backend's settings, as it said at the campaign's start: "
            + ", ".join(f"{name} {value}" for name, value in settings.items())
            + "."
        )
    lines += [
        f"Workload {w['name']}: {describe_workload(w, target.get('type'))}"
        for w in spec.get("workloads", [])
    ]
    if spec.get("labels"):
        lines.append("Labels: " + ", ".join(f"{k}={v}" for k, v in spec["labels"].items()))
    return lines


def _setups(applications: set[str], target_type: str) -> str:
    """What the applications' declarations add of how they run on the target type (their
    servers and clients), in the registry's order."""
    return "".join(
        f" {declared.setup[target_type]}"
        for declared in TOOLS
        if declared.tag in applications and target_type in declared.setup
    )


def rally_groups(data: CampaignData) -> list[dict[str, Any]]:
    """Rally's table per scenario and concurrency, from rally.csv, as Rally prints it."""
    groups: dict[tuple[str, str, str, str], list[list[str]]] = {}
    for row in data.rally_rows():
        key = (row["scenario"], row["concurrency"], row["times"], row["step"])
        success = f"{float(row['success_pct']):.1f}%" if row["success_pct"] else "n/a"
        groups.setdefault(key, []).append(
            [
                row["action"],
                row["min_s"],
                row["median_s"],
                row["p90_s"],
                row["p95_s"],
                row["max_s"],
                row["avg_s"],
                success,
                row["count"],
            ]
        )
    return [
        {
            "title": f"Response times, {scenario}, {times} iterations (concurrency {c})",
            "step": step,
            "rows": rows,
        }
        for (scenario, c, times, step), rows in groups.items()
    ]


def rally_reports(store: CampaignStore, out: Path) -> list[dict[str, str]]:
    """Rally's own HTML report of every step, copied beside the page for download."""
    found = []
    for step_id in store.step_ids():
        report = store.raw_dir(step_id) / HTML_REPORT
        if report.exists():
            name = f"rally-{step_id}.html"
            shutil.copyfile(report, out / name)
            found.append({"step": step_id, "file": name})
    return found


def campaign_location(root: Path) -> str:
    """results/... as the user knows it, without this machine's absolute path."""
    parts = root.parts
    if "results" in parts:
        return "/".join(parts[len(parts) - 1 - parts[::-1].index("results") :])
    return root.name


# Record files of other planes, shown as they are when a campaign has them.
EXTRA_TABLES = [("db.csv", "Database results per consumer"), ("events.csv", "Timed events")]


def extra_tables(data: CampaignData) -> list[dict[str, Any]]:
    """db.csv and events.csv as the campaign's records have them (rebuilt from raw/)."""
    found = []
    for name, title in EXTRA_TABLES:
        if name in data.files:
            rows = list(csv.reader(io.StringIO(data.files[name], newline="")))
            if rows:
                # a column no row fills (pgbench has no qps …) only widens the table
                kept = [i for i in range(len(rows[0])) if any(r[i] for r in rows[1:])]
                header = [rows[0][i] for i in kept]
                body = [[r[i] for i in kept] for r in rows[1:]]
                found.append({"title": title, "header": header, "rows": body, "file": name})
    return found


def site_source(build_dir: Path) -> Path:
    """The Sphinx sources of a results site built into ``build_dir``: ``DIR.source``
    beside it, made from the site volperf ships on first use, kept so pages of later
    campaigns join the same site."""
    source = build_dir.with_name(build_dir.name + ".source")
    if not (source / "conf.py").exists():
        shutil.copytree(
            package_path("harness.report", "site"),
            source,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("__pycache__", "__init__.py"),
        )
    return source


def page_dir(doc_source: Path, name: str) -> Path:
    return doc_source / "test_results" / name


HISTORY_PREFIX = "history-"  # history pages (harness.report.history) beside campaigns'
HISTORY_INDEX = "history.json"  # each names its campaigns


def history_pages(doc_source: Path, campaign: str) -> list[str]:
    """The history pages in ``doc_source`` that include this campaign, by directory."""
    found = []
    for index in sorted(page_dir(doc_source, "").glob(f"{HISTORY_PREFIX}*/{HISTORY_INDEX}")):
        try:
            document = json.loads(index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if campaign in document.get("campaigns", []):
            found.append(index.parent.name)
    return found


def write_report(store: CampaignStore, doc_source: Path) -> Path:
    """Generate the campaign's page and figures; returns the index.rst written."""
    data = load(store)
    out = page_dir(doc_source, data.name)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    workloads = []
    target_type = (data.spec.get("target") or {}).get("type")
    for index, name in enumerate(data.workloads, start=1):
        steps = data.steps_of(name)
        if data.capacity:  # a search tries its counts out of order: drawn in order
            steps = sorted(steps, key=lambda s: int(s["concurrency"]))
        spec_w = next((w for w in data.spec.get("workloads", []) if w.get("name") == name), {})
        prefix = f"w{index}"
        tool = spec_w.get("tool", "fio")
        if family_of(spec_w) == "rally" and not any(s.get("read") or s.get("write") for s in steps):
            continue  # Rally's tables and plots have a section of their own
        if tool in tables.DB_HEADERS:  # a table of its own (its declaration's columns)
            made = plots.plot_of(by_tag(tool).plot, steps, data.events, out, prefix)
            workloads.append(
                {
                    "name": name,
                    "tool": tool,
                    "description": describe_workload(spec_w, target_type),
                    "db_header": tables.DB_HEADERS[tool],
                    "db": tables.db_rows(steps, tool),
                    "storage_header": tables.STORAGE_HEADER,
                    "storage": tables.storage_rows(steps),
                    "repeats": tables.repeat_rows(steps),
                    "plots": [made] if made else [],
                }
            )
            continue
        made = plots.consumer_plots(steps, out, prefix)
        distribution = plots.distribution_plot(steps, data.records, out, prefix)
        workloads.append(
            {
                "name": name,
                "tool": tool,
                "description": describe_workload(spec_w, target_type) if spec_w else "",
                "average": tables.average_rows(steps),
                "sum": tables.sum_rows(steps),
                "window": tables.window_rows(steps),
                "repeats": tables.repeat_rows(steps),
                "tail": tables.tail_rows(steps) if not data.reference else [],
                "runs": tables.run_rows(steps) if not data.reference else [],
                "heat": tables.heat_rows(steps),
                "qos": tables.qos_rows(steps),
                "qos_tolerance": f"{QOS_TOLERANCE:.0%}",
                "vms": tables.vm_rows(steps, data.records)
                if tables.heat_rows(steps) or family_of(spec_w) == "rally"
                else [],
                "plots": made + ([distribution] if distribution else []),
            }
        )
    downloads = []
    for name in record_files():  # as rebuilt from raw/, not as the campaign folder has them
        if name in data.files:
            # what readers download passes the same secret filter as the page
            atomic_write_text(out / name, redact_text(data.files[name]))
            downloads.append(name)
    title = (data.reference or {}).get("title") or f"Results of campaign {data.name}"
    text = (
        templates()
        .get_template("campaign.rst.j2")
        .render(
            title=title,
            version=__version__,
            location=campaign_location(store.root),
            data=data,
            environment=environment_rows(data.environment),
            method=method_lines(data),
            workloads=workloads,
            rally=rally_groups(data),
            rally_plots=plots.rally_plots(data.rally_rows(), out),
            rally_reports=rally_reports(store, out),
            rally_phase_header=tables.RALLY_PHASE_HEADER,
            rally_phases=tables.rally_phase_rows(data.steps),
            rally_phase_sources=tables.rally_phase_sources(data.steps),
            rally_faults=tables.rally_fault_lines(data.steps),
            extras=extra_tables(data),
            node_header=tables.NODE_HEADER,
            nodes=tables.node_rows(data.steps),
            osd_header=tables.OSD_HEADER,
            osds=tables.osd_rows(data.steps),
            node_plot=plots.node_plot(
                data.steps, {s["step"]: store.raw_dir(s["step"]) for s in data.steps}, out
            )
            if not data.reference
            else None,
            cost_header=tables.COST_HEADER,
            cost=tables.cost_rows(data.steps) if not data.reference else [],
            warnings=tables.warning_items(data.steps),
            capacity=[
                {
                    **found,
                    "rows": tables.capacity_rows(found),
                    "plot": plots.capacity_plot(found, out, f"w{index}-capacity"),
                    "pace_plot": plots.pace_plot(found, data.steps, out, f"w{index}-pace"),
                }
                for index, found in enumerate(data.capacity, start=1)
            ],
            capacity_header=tables.CAPACITY_HEADER,
            phase_header=tables.PHASE_HEADER,
            phases=tables.phase_rows(data.steps),
            phase_sources=tables.phase_sources(data.steps),
            phase_plot=plots.phase_plot(data.steps, out, "phases"),
            faults=tables.fault_lines(data.steps),
            recoveries=tables.recovery_lines(data.steps),
            downloads=downloads,
            histories=history_pages(doc_source, data.name),
        )
    )
    index = out / "index.rst"
    atomic_write_text(index, text)
    return index


KEPT_PAGES = "pages.yaml"  # in a study kept under results/: the campaigns it shows


def write_kept_pages(study: Path, doc_source: Path) -> list[Path]:
    """The pages of the campaigns a study kept under results/ names in its pages.yaml
    (``campaigns: [name, …]``, folders beside it), as `volperf report` writes them."""
    kept = yaml.safe_load((study / KEPT_PAGES).read_text(encoding="utf-8")) or {}
    return [write_report(CampaignStore(study / name), doc_source) for name in kept["campaigns"]]


def build_html(doc_source: Path, build_dir: Path) -> subprocess.CompletedProcess[str]:
    """Build the whole documentation with Sphinx, warnings as errors."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            str(doc_source),
            str(build_dir),
        ],
        capture_output=True,
        text=True,
    )
