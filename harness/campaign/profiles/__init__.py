"""Built-in campaign profiles: partial specs completed by `volperf run local|rbd|k8s`, and
the command line's overrides of a spec's workloads and sweep (``override``)."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the models (pydantic) only when a spec is made: `volperf --help` lists names
    from harness.core.spec import CampaignSpec


def names() -> list[str]:
    return sorted(
        Path(p.name).stem for p in resources.files(__name__).iterdir() if p.name.endswith(".yaml")
    )


def load(name: str) -> dict[str, Any]:
    if name not in names():
        from harness.core.spec import SpecError

        raise SpecError(f"profile {name!r}", [f"profile: unknown; one of {', '.join(names())}"])
    import yaml  # here: `volperf --help` lists the names only

    return yaml.safe_load(resources.files(__name__).joinpath(f"{name}.yaml").read_text())


def local_spec(
    profile: str,
    directory: Path,
    name: str,
    *,
    allow_device: bool = False,
    allow_existing: bool = False,
    **overrides: Any,
) -> CampaignSpec:
    target = {
        "type": "local",
        "dir": str(directory.resolve()),
        "allow_device": allow_device,
        "allow_existing": allow_existing,
    }
    return profile_spec(profile, target, name, **overrides)


def profile_spec(
    profile: str,
    target: dict[str, Any],
    name: str,
    *,
    runtime: int | None = None,
    size: str | None = None,
    sweep: str | None = None,
    settings: Sequence[str] = (),
) -> CampaignSpec:
    """A profile completed with a target, a name and the command line's overrides."""
    from harness.core.spec import validate

    data = load(profile)
    data["name"] = name
    data["target"] = target
    source = f"profile {profile!r}"
    override(data, source, runtime=runtime, size=size, sweep=sweep, settings=settings)
    return validate(data, source)


def override(
    data: dict[str, Any],
    source: str,
    *,
    runtime: int | None = None,
    size: str | None = None,
    sweep: str | None = None,
    settings: Sequence[str] = (),
) -> None:
    """The command line's --runtime, --size, --sweep and --set on a spec's data (a
    profile's or a spec file's), in place."""
    from harness.core.workloads.registry import tool

    if sweep is not None:
        data["sweep"] = _values(sweep, source, "--sweep")
    for workload in data["workloads"]:
        model = tool(workload.get("tool", "fio")).model
        if runtime is not None and "runtime" in model.model_fields:  # not io-pause's
            workload["runtime"] = runtime
        if size is not None and (field := getattr(model, "size_field", None)):
            workload[field] = size
    _apply(data["workloads"], settings, source)


def _values(text: str, source: str, option: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        from harness.core.spec import SpecError

        raise SpecError(source, [f"{option}: expected numbers like 1,2,4 (got {text!r})"]) from None


def _apply(workloads: list[dict[str, Any]], settings: Sequence[str], source: str) -> None:
    """--set KEY=VALUE on every workload whose tool has KEY; VALUE is read as YAML."""
    import yaml

    from harness.core.spec import WORKLOAD_MODELS, SpecError

    for setting in settings:
        key, sep, text = setting.partition("=")
        if not sep:
            raise SpecError(source, [f"--set: expected KEY=VALUE (got {setting!r})"])
        value = yaml.safe_load(text)
        matched = False
        for workload in workloads:
            fields = WORKLOAD_MODELS[workload.get("tool", "fio")].model_fields
            if key in fields:
                workload[key] = value
                matched = True
                if key == "dataset":  # sizes the data instead of the profile's size
                    workload.pop("table_size", None)
                    workload.pop("scale", None)
        if not matched:
            raise SpecError(source, [f"--set: no workload of {source} has {key!r}"])
