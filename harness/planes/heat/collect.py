"""Wait for a cinder-fio stack's VMs and keep what Heat says of them under raw/heat/NAME/:
stack.json (with outputs), resources.json and events.json (nested two deep), vm-I.json
(each VM's own nested stack, whose outputs carry its agent's result), fio-CONSUMER.json
(the agent's fio output, unpacked from its signal) and logs-CONSUMER/ (fio's per-second
logs and the agent's agent.log that came with it)."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

from harness.core.store import atomic_write_json, atomic_write_text
from harness.planes.heat import api
from harness.planes.heat.parameters import StackPlan
from harness.planes.heat.step import HEAT_DIR, LOGS_PREFIX
from harness.tools.fio.printout import split_printout

GROUP = "vms"  # the ResourceGroup of main.yaml
POLL_S = 3.0  # between looks at whether the stacks have settled
WAIT_MARGIN_S = 120  # beyond Heat's own stack timeout


def vm_stacks(conn: Any, path: str) -> dict[int, str]:
    """VM index -> its nested stack's API path, for the members Heat has created."""
    found = {}
    for resource in api.resources(conn, path, nested_depth=1):
        if resource.get("parent_resource") != GROUP or not resource["resource_name"].isdigit():
            continue
        nested = [link["href"] for link in resource.get("links", []) if link["rel"] == "nested"]
        if nested:
            found[int(resource["resource_name"])] = "stacks/" + nested[0].split("/stacks/", 1)[1]
    return found


def settled(conn: Any, path: str) -> bool:
    """The stack and every VM stack of it reached a final state: a failed VM fails the
    stack at once while the others still run fio, whose results are still wanted."""
    if not api.is_final(api.show(conn, path)["stack_status"]):
        return False
    return all(
        api.is_final(api.show(conn, vm)["stack_status"]) for vm in vm_stacks(conn, path).values()
    )


def result_text(output_value: Any) -> str:
    """fio's JSON from a wait condition's data ({"signal id": base64 of gzip})."""
    data = json.loads(output_value) if isinstance(output_value, str) else output_value
    if not isinstance(data, dict) or not data:
        raise ValueError("the wait condition holds no signal data")
    packed = next(iter(data.values()))
    if not packed:
        raise ValueError("the signal carried no data")
    return gzip.decompress(base64.b64decode(packed)).decode("utf-8", errors="replace")


def output(stack: dict[str, Any], key: str) -> Any:
    for item in stack.get("outputs") or []:
        if item.get("output_key") == key and "output_error" not in item:
            return item.get("output_value")
    return None


def collect(conn: Any, path: str, consumers: list[str], out: Path) -> list[str]:
    """Write Heat's answers on the stack and its VMs, and each VM's fio output, to out/;
    returns what could not be read (a line each)."""
    out.mkdir(parents=True, exist_ok=True)
    problems = []
    atomic_write_json(out / "stack.json", api.show(conn, path))
    atomic_write_json(out / "resources.json", api.resources(conn, path, nested_depth=2))
    atomic_write_json(out / "events.json", api.events(conn, path, nested_depth=2))
    for index, vm_path in sorted(vm_stacks(conn, path).items()):
        vm = api.show(conn, vm_path)
        atomic_write_json(out / f"vm-{index}.json", vm)
        result = output(vm, "result")
        if vm.get("stack_status") != "CREATE_COMPLETE" or result is None:
            continue  # a failed VM: its reason is in vm-I.json
        if index >= len(consumers):
            problems.append(f"VM {index} of {path.split('/')[1]}: more VMs than planned")
            continue
        try:
            fio_text, logs = split_printout(result_text(result))
            atomic_write_text(out / f"fio-{consumers[index]}.json", fio_text)
            if logs:
                folder = out / f"{LOGS_PREFIX}{consumers[index]}"
                folder.mkdir(exist_ok=True)
                for name, text in logs.items():
                    atomic_write_text(folder / name, text)
        except (ValueError, OSError, EOFError) as exc:  # binascii.Error is a ValueError
            problems.append(
                f"VM {index} of {path.split('/')[1]}: its result is not "
                f"gzip+base64 fio output ({exc})"
            )
    return problems


def collect_stacks(conn: Any, created: list[tuple[StackPlan, str]], raw: Path) -> list[str]:
    """Every created stack collected into raw/heat/NAME/; what could not be read."""
    problems = []
    for plan, path in created:
        try:
            problems += collect(conn, path, list(plan.consumers), raw / HEAT_DIR / plan.name)
        except Exception as exc:
            problems.append(f"stack {plan.name}: not collected ({type(exc).__name__}: {exc})")
    return problems
