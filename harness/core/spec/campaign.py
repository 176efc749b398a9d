"""The campaign spec itself: its workloads swept over consumer counts (``Sweep``, with the
``StopWhen`` rules that end an open-ended sweep) on a target, and ``validate`` and
``load``, which name every problem of a spec by its field and value (SpecError)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import Discriminator, Field, Tag, ValidationError, field_validator, model_validator

from harness.core.spec.targets import Target
from harness.core.spec.types import Databases, SpecError, _listed
from harness.core.workloads.base import Name, _Strict
from harness.core.workloads.fio import MIXED_MODES
from harness.core.workloads.registry import TOOLS, Workload, running_on, tool


class StopWhen(_Strict):
    """What ends an open-ended sweep: after each step its figures are held against these
    rules, and the first that holds ends the workload's sweep there (the later counts are
    skipped, the page says why); every step run so far is kept."""

    no_space: bool = Field(
        False,
        description="a step that ran out of space: a PVC no volume could be provisioned or "
        "bound for, a file system or pool full (ENOSPC), a storage quota exceeded",
    )
    bound_p95_above_s: float | None = Field(
        None, gt=0, description="the step's PVC-bound times (p95) above this many seconds"
    )
    failures_above_pct: float | None = Field(
        None,
        ge=0,
        lt=100,
        description="more than this % of the step's consumers failed (fio jobs, pods, "
        "database clients; PVCs of pvc-provision)",
    )
    per_consumer_below_pct: float | None = Field(
        None,
        gt=0,
        lt=100,
        description="throughput per consumer (IOPS of fio, TPS of databases) below this % "
        "of the sweep's first step's",
    )

    def has_rules(self) -> bool:
        return any(value not in (None, False) for value in self.model_dump().values())


class CapacitySearch(_Strict):
    """How many consumers, each asked for its workload's rate_iops, the storage holds
    within an objective: the count grows from ``start`` by ``factor`` while every step
    meets it, then is bisected between the last count that met it and the first that did
    not (the next count tried is what the failed step's achieved rate could hold, when
    that lies between them), until they are within ``within_pct`` of each other, or
    ``max`` met it (records/capacity.py)."""

    p99_ms: float = Field(
        gt=0, description="the objective: the step's p99 latency (ms) at most this"
    )
    p50_ms: float | None = Field(
        None, gt=0, description="and its median latency (ms) at most this, if given"
    )
    achieved_pct: float = Field(
        95,
        gt=0,
        le=100,
        description="and every consumer achieved at least this % of the rate it was asked for",
    )
    within_pct: float = Field(
        10,
        gt=0,
        le=100,
        description="the search ends once the last count that met the objective and the first "
        "that did not are this % apart (or 1 consumer)",
    )


class Sweep(_Strict):
    """Consumer counts that grow until the storage gives out: ``counts`` in order, or
    ``start`` multiplied by ``factor`` up to ``max`` (max itself last), each step held
    against ``stop_when``; or, with ``search``, a capacity search from ``start`` to
    ``max``."""

    counts: list[int] | None = Field(
        None, min_length=1, description="the consumer counts in order (e.g. 1, 10, 50, 100, 250)"
    )
    start: int | None = Field(None, ge=1, description="the first consumer count")
    factor: float = Field(2, gt=1, le=100, description="each count is the one before times this")
    max: int | None = Field(None, ge=1, description="the last consumer count")
    stop_when: StopWhen = Field(
        default_factory=StopWhen, description="rules that end the sweep (none: it runs to max)"
    )
    search: CapacitySearch | None = Field(
        None,
        description="search for the most consumers at the workloads' rate_iops that meet an "
        "objective (p99_ms, …), from start to max, instead of running every count",
    )

    @model_validator(mode="after")
    def _one_form(self) -> Sweep:
        if self.search is not None and self.counts is not None:
            raise ValueError("a search chooses its counts: give start and max, not counts")
        if self.search is not None and self.stop_when.has_rules():
            raise ValueError("a search ends by its objective: give search or stop_when, not both")
        if self.counts is not None:
            if self.start is not None or self.max is not None:
                raise ValueError("give counts, or start and max, not both")
            if any(b <= a for a, b in zip(self.counts, self.counts[1:], strict=False)):
                raise ValueError("counts must grow")
            if self.counts[0] < 1:
                raise ValueError(f"consumer count {self.counts[0]} must be at least 1")
        elif self.start is None or self.max is None:
            raise ValueError("give counts, or start and max")
        elif self.max < self.start:
            raise ValueError(f"max {self.max} is below start {self.start}")
        return self

    def values(self) -> list[int]:
        if self.counts is not None:
            return list(self.counts)
        assert self.start is not None and self.max is not None
        values, count = [self.start], float(self.start)
        while True:
            count *= self.factor
            step = max(values[-1] + 1, round(count))
            if step >= self.max:
                break
            values.append(step)
        return values + [self.max] if values[-1] != self.max else values


# a sweep is a list of counts or an open-ended Sweep: told apart by its form, so that an
# error names only the form given
SWEEP_FORMS = frozenset({"sweep-counts", "sweep-open"})
SweepField = Annotated[
    Annotated[list[int], Tag("sweep-counts")] | Annotated[Sweep, Tag("sweep-open")],
    Discriminator(lambda v: "sweep-counts" if isinstance(v, list) else "sweep-open"),
]


class CampaignSpec(_Strict):
    name: Name = Field(
        description="the campaign's name: its results directory and the names of what it makes"
    )
    target: Target = Field(
        description="where the consumers run: local (the default), rbd, openstack, k8s or hosts"
    )
    workloads: list[Workload] = Field(
        min_length=1,
        description="what runs, in this order, each swept over sweep; tool tells them apart "
        "(default fio)",
    )
    databases: Databases = Field(
        default_factory=Databases,
        description="options of the database servers volperf runs for database workloads",
    )
    sweep: SweepField = Field(
        description="consumer counts, one step each; or an open-ended sweep (counts, or "
        "start, factor and max) with the rules that end it (stop_when)"
    )
    repeats: int = Field(1, ge=1, le=100, description="runs of every step")
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="free text recorded with the campaign; backend names the backend "
        "(default: from the target)",
    )
    step_timeout: int | None = Field(None, ge=1, description="seconds; default from runtime")
    fio: str = Field(
        "fio", description="the fio binary volperf runs here, a name on PATH or a path"
    )

    @field_validator("sweep")
    @classmethod
    def _sweep(cls, value: list[int] | Sweep) -> list[int] | Sweep:
        if isinstance(value, Sweep):
            return value
        if not value:
            raise ValueError("give at least one consumer count")
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

    @model_validator(mode="after")
    def _workloads_fit_target(self) -> CampaignSpec:
        """Each workload's tool runs on the target type (its declaration's ``targets``):
        a target that runs some tools only says which, else the tool says what it needs."""
        refused = [w for w in self.workloads if self.target.type not in tool(w.tool).targets]
        if refused and self.target.only:
            runs = self.target.only.format(tools=_listed(running_on(self.target.type)))
            raise ValueError(f"workloads {', '.join(w.name for w in refused)}: {runs}")
        if refused:
            needs = tool(refused[0].tool)
            names = ", ".join(w.name for w in refused if w.tool == needs.tag)
            raise ValueError(f"workloads {names}: {needs.elsewhere}")
        for declared in TOOLS:  # what each tool asks of the target beyond its type
            mine = [w for w in self.workloads if w.tool == declared.tag]
            if mine and declared.fits is not None:
                declared.fits(self.target, mine)
        return self

    @model_validator(mode="after")
    def _search_fits(self) -> CampaignSpec:
        """A capacity search asks each consumer of fio workloads for a rate of its own."""
        if self.search is None:
            return self
        others = [w.name for w in self.workloads if w.tool != "fio"]
        if others:
            raise ValueError(
                f"workloads {', '.join(others)}: a capacity search (sweep.search) runs fio "
                "workloads only"
            )
        unrated = [w.name for w in self.workloads if getattr(w, "rate_iops", None) is None]
        if unrated:
            raise ValueError(
                f"workloads {', '.join(unrated)}: a capacity search (sweep.search) needs the "
                "rate each consumer is asked for: give rate_iops"
            )
        mixed = [w.name for w in self.workloads if set(getattr(w, "rw", [])) & MIXED_MODES]
        if mixed:
            raise ValueError(
                f"workloads {', '.join(mixed)}: a capacity search asks each consumer for "
                "rate_iops of reads or of writes: give read or write modes, not mixed ones"
            )
        if self.repeats != 1:
            raise ValueError("a capacity search runs each count once: repeats must be 1")
        return self

    @property
    def search(self) -> CapacitySearch | None:
        """The sweep's capacity search, if it is one."""
        return self.sweep.search if isinstance(self.sweep, Sweep) else None

    @property
    def counts(self) -> list[int]:
        """The consumer counts of the sweep, in order (a search's: those it may try while
        the count grows, its largest the max)."""
        return self.sweep.values() if isinstance(self.sweep, Sweep) else list(self.sweep)

    @property
    def stop_when(self) -> StopWhen | None:
        """The rules that end the sweep early, if it has any."""
        rules = self.sweep.stop_when if isinstance(self.sweep, Sweep) else None
        return rules if rules is not None and rules.has_rules() else None

    @property
    def space_count(self) -> int:
        """The consumer count whose space a target makes sure of before the campaign: the
        largest, or the first when the sweep is to stop where space runs out."""
        rules = self.stop_when
        return self.counts[0] if rules is not None and rules.no_space else max(self.counts)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def _location(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for before, item in zip((None, *loc), loc, strict=False):
        if isinstance(item, int):
            parts[-1:] = [f"{parts[-1]}[{item}]"] if parts else [f"[{item}]"]
        elif item in SWEEP_FORMS and before == "sweep":
            continue  # the sweep's form: the place already names it
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
            if error["type"] != "missing" and error["loc"]:  # not the whole spec
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
