"""One Rally task in a process of its own, through Rally's Python API: `volperf run rally`
starts it per step, so Rally's global state (oslo.config, its DB engine, its logging)
stays out of volperf's process and a hung task can be stopped with a signal.

    python -m harness.planes.rally.runner --rally-dir DIR --env NAME --task FILE
        --args JSON --out RAW [--poll-interval S] [--hooks JSON]
    python -m harness.planes.rally.runner --rally-dir DIR --env NAME --task FILE
        --validate-only [--args JSON ...]
    python -m harness.planes.rally.runner --rally-dir DIR --owner-ids-of TASK_UUID
    python -m harness.planes.rally.runner --warm   (then one of the above on its stdin)

It keeps its own Rally database in DIR (created if missing), makes the Rally environment
NAME from DIR/NAME.env.json (admin credentials, never written to results), renders the
task file with its args (a data-plane workload keeps its VMs' answers in RAW/data-plane/;
hooks given, such as a workload's faults, go on every workload of the task),
writes the Rally configuration it runs with to RAW/rally.conf (how often Rally polls),
creates the task and writes its uuid to RAW/rally-task.json before it starts (so cleanup
can find what a killed task left), runs it, adds the task's owner uuids to
RAW/rally-task.json (what cleanup looks for, without opening Rally's database again; volperf
checks the cloud for them while the runner goes on), exports Rally's JSON report into RAW,
then writes Rally's HTML report of the export with the phases of a
workload given faults added (planes/rally/phased_report.py). SIGINT or SIGTERM abort the
task the way `rally task abort` does: iterations stop, Rally's contexts clean up, the
reports are still written.

``--warm`` loads Rally and its plugins first, then runs the command volperf hands it
(harness/host/process.py: WarmProcess): a step's runner is started ahead, at the
campaign's preparation or the previous step's end. The runner leaves without the
interpreter's teardown (host/process.py: ``exit_without_teardown``).
"""

from __future__ import annotations

import argparse
import copy
import json
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

import yaml

from harness.host.process import WARM_FLAG, exit_without_teardown, warm_request

TASK_FILE = "rally-task.json"
JSON_REPORT = "rally.json"
HTML_REPORT = "report.html"
POLLING_FILE = "rally-polling.json"  # how the task's Rally polled, read from its own config
DATA_PLANE_SCENARIO = "VolPerf.cinder_fio"
WARM: dict[str, float] = {}  # a runner started ahead: its load and wait (warm_then_run)
DATA_PLANE_DIR = "data-plane"  # RAW/data-plane/subtask-I/iteration-N/: a VM plane's answers


def _openstack_options(*suffixes: str) -> list[Any]:
    """rally-openstack's options whose names end with one of ``suffixes``."""
    from rally_openstack.common.cfg import opts

    return [
        option
        for group, group_options in opts.list_opts()
        if group == "openstack"
        for option in group_options
        if option.name.endswith(suffixes)
    ]


def _polling_options() -> list[Any]:
    """rally-openstack's options for how often it checks the status of what it made:
    every ``*_poll_interval``, and every ``*_prepoll_delay`` (the wait before the first
    check)."""
    return _openstack_options("_poll_interval", "_prepoll_delay")


def polling(interval: float) -> dict[str, float]:
    """Every poll interval at ``interval``, every prepoll delay at most that. An atomic
    action that waits for a status is rounded up to them: Rally's defaults (1 to 4 s)
    would make a 0.3 s volume delete 2 s."""
    return {
        o.name: interval if o.name.endswith("_poll_interval") else min(o.default, interval)
        for o in _polling_options()
    }


def waiting(timeout: float) -> dict[str, float]:
    """Every ``*_timeout`` of rally-openstack at ``timeout``: how long Rally waits for a
    status (a volume available, a server active, a stack created …) before it fails the
    iteration."""
    return {o.name: timeout for o in _openstack_options("_timeout")}


def polling_in_effect() -> dict[str, float]:
    """The polling options as the Rally of this process holds them, once its configuration
    is loaded: what its scenarios read when they wait, whether set by ``poll_interval`` or
    left at Rally's defaults."""
    from rally.common import cfg

    return {o.name: getattr(cfg.CONF.openstack, o.name) for o in _polling_options()}


def rally_config(
    rally_dir: Path,
    poll_interval: float | None = None,
    where: Path | None = None,
    wait_timeout: float | None = None,
) -> Path:
    """Rally's own configuration, written in ``where`` (default ``rally_dir``): its database
    in ``rally_dir``, the status checks at ``poll_interval`` seconds and the waits for a
    status at most ``wait_timeout`` seconds, each if given."""
    rally_dir.mkdir(parents=True, exist_ok=True)
    rally_dir.chmod(0o700)  # environments in the DB hold credentials
    config = (where or rally_dir) / "rally.conf"
    text = f"[database]\nconnection = sqlite:///{rally_dir / 'rally.sqlite'}\n"
    options = {
        **(polling(poll_interval) if poll_interval is not None else {}),
        **(waiting(wait_timeout) if wait_timeout is not None else {}),
    }
    if options:
        text += "\n[openstack]\n" + "".join(
            f"{name} = {value:g}\n" for name, value in sorted(options.items())
        )
    config.write_text(text)
    return config


def open_api(rally_dir: Path, config: Path | None = None) -> Any:
    from rally import api as rally_api
    from rally import plugins
    from rally.common import db

    plain = rally_config(rally_dir)  # also for `rally --config-file` on volperf's database
    api = rally_api.API(config_file=str(config or plain), skip_db_check=True)
    if not db.schema.schema_revision():
        db.schema.schema_create()
    plugins.load()  # Rally's own, rally-openstack's and ours (the rally_plugins entry point)
    return api


def ensure_env(api: Any, rally_dir: Path, name: str) -> None:
    from rally import exceptions

    try:
        api.deployment.get(deployment=name)
        return
    except exceptions.DBRecordNotFound:
        pass
    spec = json.loads((rally_dir / f"{name}.env.json").read_text())
    try:
        api.deployment.create(config=spec, name=name)
    except exceptions.DBRecordExists:  # another campaign's runner made it meanwhile
        api.deployment.get(deployment=name)


def render(api: Any, task_file: Path, args: dict[str, Any]) -> dict[str, Any]:
    text = task_file.read_text(encoding="utf-8")
    rendered = api.task.render_template(
        task_template=text, template_dir=str(task_file.parent), **args
    )
    return yaml.safe_load(rendered)


def prepared(
    rally_dir: Path, env: str, task_file: Path, args: dict[str, Any], config: Path | None = None
) -> tuple[Any, dict[str, Any]]:
    """Rally's API with the environment in place, and the task rendered with its args."""
    api = open_api(rally_dir, config)
    ensure_env(api, rally_dir, env)
    return api, render(api, task_file, args)


def validate(rally_dir: Path, env: str, task_file: Path, arg_sets: list[dict[str, Any]]) -> int:
    """Render the task with each set of args and have Rally validate it against the cloud
    (syntax, plugins, and what its validators check there: image, flavor …), all in this
    one process (Rally and its plugins load once: seconds of CPU each time). Prints one
    JSON line per set, in order: ``{"args": I, "config": TASK}`` with the rendered task,
    or ``{"args": I, "error": WHY}``; exits 1 if any set was refused."""
    api = open_api(rally_dir)
    ensure_env(api, rally_dir, env)
    refused = 0
    for index, args in enumerate(arg_sets):
        try:
            config = render(api, task_file, args)
            api.task.validate(deployment=env, config=copy.deepcopy(config))  # rewrites it
        except Exception as exc:
            refused += 1
            print(json.dumps({"args": index, "error": f"{type(exc).__name__}: {exc}"}))
        else:
            print(json.dumps({"args": index, "config": config}))
        sys.stdout.flush()
    return 1 if refused else 0


def keep_data_plane_raw(config: dict[str, Any], out: Path) -> None:
    """Each data-plane workload keeps its VMs' Heat answers and fio JSON in
    RAW/data-plane/subtask-I/ (subtask-I-J/ for the J-th of a subtask's ``workloads``),
    unless the task says where, for the step's fio.csv."""
    for index, subtask in enumerate(config.get("subtasks") or [], start=1):
        if "workloads" in subtask:  # a subtask's several workloads (task format 2)
            named = [
                (f"subtask-{index}-{number}", workload)
                for number, workload in enumerate(subtask["workloads"] or [], start=1)
            ]
        else:
            named = [(f"subtask-{index}", subtask)]
        for folder, workload in named:
            args = (workload.get("scenario") or {}).get(DATA_PLANE_SCENARIO)
            if isinstance(args, dict) and not args.get("keep_raw"):
                args["keep_raw"] = str(out / DATA_PLANE_DIR / folder)


def add_hooks(config: dict[str, Any], hooks: list[dict[str, Any]]) -> None:
    """Put ``hooks`` on every workload of a rendered task (format 2: a subtask is a
    workload, or holds several in ``workloads``)."""
    for subtask in config.get("subtasks") or []:
        for workload in subtask.get("workloads") or [subtask]:
            workload["hooks"] = [*(workload.get("hooks") or []), *json.loads(json.dumps(hooks))]


def owner_uuids(task: dict[str, Any]) -> list[str]:
    """The uuids Rally put in the names of what a task made: its workloads' (Rally names a
    workload's users, projects, servers and volumes after the workload), then the task's
    own (the users context of its semantic validation, set up before any workload, has no
    workload and is named after the task: a failed cleanup of it left a project so named),
    from the task as Rally's database has it (detailed), which has them before a workload
    starts."""
    workloads = [w["uuid"] for subtask in task["subtasks"] for w in subtask["workloads"]]
    return [*workloads, task["uuid"]]


def owner_ids(rally_dir: Path, task_uuid: str) -> int:
    """Print a task's owner uuids (for a task whose runner died before it wrote them)."""
    task = open_api(rally_dir).task.get(task_id=task_uuid, detailed=True)
    print(json.dumps(owner_uuids(task)), flush=True)
    return 0


def run(
    rally_dir: Path,
    env: str,
    task_file: Path,
    args: dict[str, Any],
    out: Path,
    tags: list[str],
    poll_interval: float | None = None,
    hooks: list[dict[str, Any]] | None = None,
    wait_timeout: float | None = None,
) -> int:
    # the step's own copy of Rally's configuration: how it polled and waited is part of
    # the record
    rally_conf = rally_config(rally_dir, poll_interval, where=out, wait_timeout=wait_timeout)
    api, config = prepared(rally_dir, env, task_file, args, rally_conf)
    keep_data_plane_raw(config, out)
    add_hooks(config, hooks or [])  # the workload's faults, on every workload of the task
    (out / "rally-task-config.json").write_text(json.dumps(config, indent=2))
    (out / POLLING_FILE).write_text(
        json.dumps(polling_in_effect(), indent=2, sort_keys=True) + "\n"
    )
    task = api.task.create(deployment=env, tags=tags)
    uuid = task["uuid"]
    noted: dict[str, Any] = {"uuid": uuid, "env": env}
    if WARM:
        noted["warm"] = dict(WARM)
    (out / TASK_FILE).write_text(json.dumps(noted) + "\n")

    def abort(signum: int, frame: FrameType | None) -> None:
        print(f"signal {signum}: aborting Rally task {uuid}", file=sys.stderr, flush=True)
        threading.Thread(target=api.task.abort, args=(uuid,), daemon=True).start()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, abort)
    error = None
    try:
        api.task.start(deployment=env, config=config, task=uuid)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        print(f"Rally task {uuid} failed: {error}", file=sys.stderr, flush=True)
    # the owners first: volperf checks what the task left in the cloud meanwhile
    ended = api.task.get(task_id=uuid, detailed=True)
    noted["owners"] = owner_uuids(ended)
    if error is not None:
        noted["error"] = error  # Rally's export keeps no reason for a task it refused
    (out / TASK_FILE).write_text(json.dumps(noted) + "\n")
    export(api, uuid, "json", out / JSON_REPORT)
    # Rally's html-static report of that export (the page carries its scripts: it opens
    # offline and from the docs), with the phases of a workload given faults
    from harness.planes.rally.phased_report import write_report

    write_report(out, JSON_REPORT, HTML_REPORT)
    print(json.dumps({"task": uuid, "status": ended["status"], "error": error}), flush=True)
    return 0 if error is None else 1


def export(api: Any, uuid: str, kind: str, path: Path) -> None:
    """Rally's exporter ``kind`` into ``path`` (the API returns the files to write)."""
    report = api.task.export(tasks=[uuid], output_type=kind, output_dest=str(path))
    for name, content in report.get("files", {}).items():
        Path(name).write_text(content, encoding="utf-8")


def warm_then_run() -> int:
    """``--warm``: Rally and its plugins loaded (a couple of CPU-seconds) while volperf
    prepares or writes a step's records, then the command volperf hands over run as
    ``main`` runs it (harness/host/process.py: WarmProcess); 0 if none came."""
    started = time.monotonic()
    from rally import plugins

    plugins.load()
    loaded = time.monotonic()
    argv = warm_request()
    if argv is None:
        return 0
    # how long Rally took to load, and how long it then waited for its command: noted in
    # RAW/rally-task.json (a step that waited for its runner to load shows it)
    WARM["loaded_s"] = round(loaded - started, 3)
    WARM["idle_s"] = round(time.monotonic() - loaded, 3)
    return main(argv)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.planes.rally.runner")
    parser.add_argument("--rally-dir", type=Path, required=True)
    parser.add_argument("--env")
    parser.add_argument("--task", type=Path)
    parser.add_argument(
        "--args",
        action="append",
        help="task args as JSON (default {}); with --validate-only, once per set to validate",
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--tag", action="append", default=[])
    parser.add_argument("--poll-interval", type=float, help="seconds between Rally's status checks")
    parser.add_argument(
        "--wait-timeout", type=float, help="seconds Rally waits for a status at most"
    )
    parser.add_argument(
        "--hooks", type=json.loads, help="hooks (a JSON list) added to every workload of the task"
    )
    parser.add_argument(
        "--validate-only",
        action="store_true",
        help="render and validate the task, print it, run nothing",
    )
    parser.add_argument(
        "--owner-ids-of",
        metavar="TASK_UUID",
        help="print the uuids in the names of what that task made",
    )
    options = parser.parse_args(argv)
    if options.owner_ids_of:
        return owner_ids(options.rally_dir, options.owner_ids_of)
    if options.env is None or options.task is None:
        parser.error("--env and --task are needed")
    arg_sets = [json.loads(text) for text in options.args or ["{}"]]
    if options.validate_only:
        return validate(options.rally_dir, options.env, options.task, arg_sets)
    if options.out is None:
        parser.error("--out is needed to run a task")
    if len(arg_sets) > 1:
        parser.error("--args once: a run runs one task")
    return run(
        options.rally_dir,
        options.env,
        options.task,
        arg_sets[0],
        options.out,
        options.tag,
        options.poll_interval,
        options.hooks,
        options.wait_timeout,
    )


if __name__ == "__main__":
    exit_without_teardown(warm_then_run() if sys.argv[1:] == [WARM_FLAG] else main())
