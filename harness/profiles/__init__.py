"""Built-in campaign profiles: partial specs completed by `volperf run local`."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from harness.spec import CampaignSpec, SpecError, validate


def names() -> list[str]:
    return sorted(
        Path(p.name).stem for p in resources.files(__name__).iterdir() if p.name.endswith(".yaml")
    )


def load(name: str) -> dict[str, Any]:
    if name not in names():
        raise SpecError(f"profile {name!r}", [f"profile: unknown; one of {', '.join(names())}"])
    return yaml.safe_load(resources.files(__name__).joinpath(f"{name}.yaml").read_text())


def local_spec(
    profile: str,
    directory: Path,
    name: str,
    *,
    allow_device: bool = False,
    allow_existing: bool = False,
    runtime: int | None = None,
    size: str | None = None,
) -> CampaignSpec:
    data = load(profile)
    data["name"] = name
    data["target"] = {
        "type": "local",
        "dir": str(directory.resolve()),
        "allow_device": allow_device,
        "allow_existing": allow_existing,
    }
    for workload in data["workloads"]:
        if runtime is not None:
            workload["runtime"] = runtime
        if size is not None:
            workload["size"] = size
    return validate(data, f"profile {profile!r}")
