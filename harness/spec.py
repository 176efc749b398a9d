"""Campaign specification: what to run, where, at which concurrencies.

A spec is YAML validated by pydantic; every error names the field and the bad value.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

READ_MODES = frozenset({"read", "randread"})
WRITE_MODES = frozenset({"write", "randwrite"})
MIXED_MODES = frozenset({"rw", "readwrite", "randrw"})
RW_MODES = READ_MODES | WRITE_MODES | MIXED_MODES
_SIZE = re.compile(r"^\d+(\.\d+)?[kKmMgGtT]?[iI]?[bB]?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class SpecError(ValueError):
    """A spec that cannot run; ``problems`` lists 'field: message (got value)' lines."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: invalid campaign spec:\n  " + "\n  ".join(problems))


def _plain_name(value: str) -> str:
    """Names end up in file and directory names: keep them plain."""
    if not _NAME.match(value):
        raise ValueError("use letters, digits, '.', '_' and '-' only")
    return value


Name = Annotated[str, AfterValidator(_plain_name)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Workload(_Strict):
    """fio options of one workload; consumers of a step are assigned ``rw`` round-robin."""

    name: Name
    rw: list[str] = Field(min_length=1)
    bs: str = "4k"
    iodepth: int = Field(1, ge=1, le=65536)
    numjobs: int = Field(1, ge=1, le=1024)
    size: str = "1G"
    mode: Literal["time", "size"] = "time"
    runtime: int | None = Field(60, ge=1, description="seconds, for mode: time")
    ramp_time: int = Field(0, ge=0)
    direct: bool = True
    ioengine: str = "libaio"
    prefill: bool = False
    rwmixread: int | None = Field(None, ge=0, le=100)
    rate_iops: int | None = Field(None, ge=1, description="per-consumer cap")
    fio_options: dict[str, str | int] = Field(default_factory=dict)

    @field_validator("rw", mode="before")
    @classmethod
    def _rw_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("rw")
    @classmethod
    def _rw_known(cls, value: list[str]) -> list[str]:
        for mode in value:
            if mode not in RW_MODES:
                raise ValueError(f"unknown rw {mode!r}; one of {', '.join(sorted(RW_MODES))}")
        return value

    @field_validator("bs", "size")
    @classmethod
    def _size(cls, value: str | int) -> str:
        value = str(value)
        if not _SIZE.match(value):
            raise ValueError("expected a size such as 4k, 1M, 512, 10G")
        return value

    @model_validator(mode="after")
    def _mode(self) -> Workload:
        if self.mode == "time" and self.runtime is None:
            raise ValueError("mode 'time' needs runtime (seconds)")
        return self


class LocalTarget(_Strict):
    type: Literal["local"] = "local"
    dir: Path | None = None
    allow_device: bool = False
    allow_existing: bool = False


class CampaignSpec(_Strict):
    name: Name
    target: LocalTarget
    workloads: list[Workload] = Field(min_length=1)
    sweep: list[int] = Field(min_length=1, description="consumer counts, one step each")
    repeats: int = Field(1, ge=1, le=100)
    labels: dict[str, str] = Field(default_factory=dict)
    step_timeout: int | None = Field(None, ge=1, description="seconds; default from runtime")
    fio: str = "fio"

    @field_validator("sweep")
    @classmethod
    def _sweep(cls, value: list[int]) -> list[int]:
        for count in value:
            if count < 1:
                raise ValueError(f"consumer count {count} must be at least 1")
        if len(set(value)) != len(value):
            raise ValueError("consumer counts repeat")
        return value

    @model_validator(mode="after")
    def _unique_workloads(self) -> CampaignSpec:
        names = [w.name for w in self.workloads]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"workload names repeat: {', '.join(duplicates)}")
        return self

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def _location(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts[-1:] = [f"{parts[-1]}[{item}]"] if parts else [f"[{item}]"]
        elif item not in ("function-after", "function-before") and not str(item).startswith(
            ("function-", "union[")
        ):
            parts.append(str(item))
    return ".".join(parts) or "(spec)"


def validate(data: Any, source: str = "<spec>") -> CampaignSpec:
    if not isinstance(data, dict):
        raise SpecError(source, [f"(spec): expected a mapping, got {type(data).__name__}"])
    try:
        return CampaignSpec.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            message = error["msg"].removeprefix("Value error, ")
            problem = f"{_location(error['loc'])}: {message}"
            if error["type"] != "missing":
                problem += f" (got {error['input']!r})"
            problems.append(problem)
        raise SpecError(source, problems) from None


def load(path: Path) -> CampaignSpec:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecError(str(path), [f"cannot read: {exc.strerror}"]) from exc
    except yaml.YAMLError as exc:
        raise SpecError(str(path), [f"not valid YAML: {exc}"]) from exc
    return validate(data, str(path))
