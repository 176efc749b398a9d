"""Wait for a cinder-fio stack's VMs and keep what Heat says of them under raw/heat/NAME/:
stack.json (with outputs), resources.json and events.json (nested two deep), vm-I.json
(each VM's own nested stack, whose outputs carry its agent's result), fio-CONSUMER.json
(the agent's fio output, unpacked from its signal), console-CONSUMER.txt (the console's
last lines of a VM that gave no result), logs-CONSUMER/ (fio's per-second
logs and the agent's agent.log that came with it) and qos.json (what Cinder says of each
VM's volume, its type's QoS specs: qos.py)."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from harness.core.store import atomic_write_json, atomic_write_text
from harness.planes.heat import api
from harness.planes.heat.parameters import StackPlan
from harness.planes.heat.qos import QOS_FILE
from harness.planes.heat.step import CONSOLE_LINES, CONSOLE_PREFIX, HEAT_DIR, LOGS_PREFIX
from harness.tools.fio.printout import split_printout

GROUP = "vms"  # the ResourceGroup of main.yaml
POLL_S = 3.0  # between looks at whether the stacks have settled
WAIT_MARGIN_S = 120  # beyond Heat's own stack timeout
# the template's volumes' metadata, as Cinder's list filter takes it
VOLUME_METADATA = quote(json.dumps({"volperf": "cinder-fio"}, separators=(",", ":")))


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


def collect(
    conn: Any, path: str, consumers: list[str], out: Path, consoles: bool = False
) -> list[str]:
    """Write Heat's answers on the stack and its VMs, and each VM's fio output, to out/,
    and with ``consoles`` (real guests) the console of each VM that gave no result;
    returns what could not be read (a line each)."""
    out.mkdir(parents=True, exist_ok=True)
    problems = []
    atomic_write_json(out / "stack.json", api.show(conn, path))
    resources = api.resources(conn, path, nested_depth=2)
    atomic_write_json(out / "resources.json", resources)
    atomic_write_json(out / "events.json", api.events(conn, path, nested_depth=2))
    vms = vm_stacks(conn, path)
    for index, vm_path in sorted(vms.items()):
        vm = api.show(conn, vm_path)
        atomic_write_json(out / f"vm-{index}.json", vm)
        result = output(vm, "result")
        if vm.get("stack_status") != "CREATE_COMPLETE" or result is None:
            # a failed VM: its reason is in vm-I.json, and what it printed in its console
            server = member_ids(resources, vms, "OS::Nova::Server").get(index)
            if consoles and server and index < len(consumers):
                keep_console(conn, server, out / f"{CONSOLE_PREFIX}{consumers[index]}.txt")
            continue
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
    volumes = member_ids(resources, vms, "OS::Cinder::Volume")
    named = {consumers[i]: v for i, v in volumes.items() if i < len(consumers)}
    try:
        atomic_write_json(out / QOS_FILE, volumes_qos(conn, named))
    except Exception as exc:  # the figures stand without it; the step says so
        problems.append(f"stack {path.split('/')[1]}: volumes' QoS not read ({exc})")
    return problems


def member_ids(resources: list[dict[str, Any]], vms: dict[int, str], kind: str) -> dict[int, str]:
    """VM index -> the id of its resource of that type (OS::Cinder::Volume,
    OS::Nova::Server), from the stack's resources (two deep)."""
    index_of = {path.rsplit("/", 1)[-1]: index for index, path in vms.items()}
    found = {}
    for resource in resources:
        if resource.get("resource_type") != kind:
            continue
        stacks = [link["href"] for link in resource.get("links", []) if link["rel"] == "stack"]
        index = index_of.get(stacks[0].rstrip("/").rsplit("/", 1)[-1]) if stacks else None
        if index is not None and resource.get("physical_resource_id"):
            found[index] = resource["physical_resource_id"]
    return found


def keep_console(conn: Any, server_id: str, path: Path) -> None:
    """The last CONSOLE_LINES of a server's console, as Nova gives them (none if the
    server is gone or its hypervisor keeps no console)."""
    try:
        answer = conn.compute.get_server_console_output(server_id, length=CONSOLE_LINES)
    except Exception:  # the VM's own reason stands without it
        return
    if answer.get("output"):
        atomic_write_text(path, answer["output"])


def volumes_qos(conn: Any, volumes: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Per consumer: Cinder's answer on its volume, its type's QoS specs (None: the type
    has none) and why either could not be read ("" if it could). Two calls a stack (the
    template's volumes by their metadata, the volume types), and one per QoS in use."""
    listed, error = _cinder(conn, f"/volumes/detail?metadata={VOLUME_METADATA}", "volumes")
    by_id = {v["id"]: v for v in listed or []}
    used = {by_id[v].get("volume_type") or "" for v in volumes.values() if v in by_id}
    qos_of = _types_qos(conn, used - {""}) if used - {""} else {}
    kept: dict[str, dict[str, Any]] = {}
    for consumer, volume_id in volumes.items():
        volume = by_id.get(volume_id)
        if volume is None:
            why = error or f"Cinder does not list volume {volume_id}"
            kept[consumer] = {"volume": None, "qos_specs": None, "error": why}
            continue
        specs, why = qos_of.get(volume.get("volume_type") or "", (None, ""))
        kept[consumer] = {"volume": volume, "qos_specs": specs, "error": why}
    return kept


def _cinder(conn: Any, path: str, key: str) -> tuple[Any, str]:
    """Cinder's answer under key, or None and why not."""
    response = conn.block_storage.get(path, raise_exc=False)
    if response.status_code >= 400:
        return None, f"Cinder answered GET {path.split('?')[0]} with HTTP {response.status_code}"
    return response.json().get(key), ""


def _types_qos(conn: Any, names: set[str]) -> dict[str, tuple[Any, str]]:
    """The QoS specs of the named volume types (None: a type has none), or why not."""
    types, error = _cinder(conn, "/types?is_public=None", "volume_types")
    by_name = {t["name"]: t for t in types or []}
    found: dict[str, tuple[Any, str]] = {}
    for name in sorted(names):
        volume_type = by_name.get(name)
        if volume_type is None:
            found[name] = (None, error or f"Cinder lists no volume type {name}")
        elif "qos_specs_id" not in volume_type:
            found[name] = (None, f"Cinder shows which QoS type {name} has to admins only")
        elif volume_type["qos_specs_id"]:
            found[name] = _cinder(conn, f"/qos-specs/{volume_type['qos_specs_id']}", "qos_specs")
        else:
            found[name] = (None, "")
    return found


def collect_stacks(conn: Any, created: list[tuple[StackPlan, str]], raw: Path) -> list[str]:
    """Every created stack collected into raw/heat/NAME/; what could not be read. The
    console of a VM without a result is kept unless its agent ran on the host (device
    mode rbd: the testbed's stand-in, whose fake VMs have no console)."""
    problems = []
    for plan, path in created:
        consoles = plan.parameters.get("device_mode") != "rbd"
        try:
            folder = raw / HEAT_DIR / plan.name
            problems += collect(conn, path, list(plan.consumers), folder, consoles)
        except Exception as exc:
            problems.append(f"stack {plan.name}: not collected ({type(exc).__name__}: {exc})")
    return problems
