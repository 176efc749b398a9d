"""What every workload tool's model is made of: strict models, plain names, sizes, a
project's pace, unions told apart by a field; and ``Tool``, a tool's declaration."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
)
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from harness.core.figures import Figure
from harness.core.workloads.columns import Column

_SIZE = re.compile(r"^\d+(\.\d+)?[kKmMgGtT]?[iI]?[bB]?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _plain_name(value: str) -> str:
    """Names end up in file and directory names: keep them plain."""
    if not _NAME.match(value):
        raise ValueError("use letters, digits, '.', '_' and '-' only")
    return value


Name = Annotated[
    str, AfterValidator(_plain_name), Field(json_schema_extra={"pattern": _NAME.pattern})
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class _TreeApp(_Strict):
    """An application working on a generated tree of files under its own script (git,
    build): no server; its consumer's tree, peak and timeout follow from the tree."""

    served: ClassVar[bool] = False  # no server: the script works on the files itself
    source_suffix: ClassVar[str] = ""

    def tree_bytes(self) -> int:
        raise NotImplementedError

    def timeout_s(self) -> float:
        """A minute an iteration and 10 s per MiB of the tree (slow storage)."""
        return self.iterations * (60 + 10 * self.tree_bytes() / 2**20)  # type: ignore[attr-defined]


def _size_text(value: str) -> str:
    if not _SIZE.match(value):
        raise ValueError("expected a size such as 4k, 1M, 512, 10G")
    return value


# sizes are text (4k, 1M, 10G); a plain number from YAML becomes its text
Size = Annotated[
    str,
    BeforeValidator(str),
    AfterValidator(_size_text),
    Field(json_schema_extra={"pattern": _SIZE.pattern, "examples": ["4k", "1M", "10G"]}),
]


class ProjectPace(_Strict):
    """How fast a step's projects (a consumer's namespace and what is in it) come and go:
    at most so many a minute, as a platform team paces tenants that all arrive at once
    (PVCs bound too slowly and deployments gave up when 100 projects came together)."""

    create_per_min: float | None = Field(
        None, gt=0, description="namespaces created a minute at most; default all at once"
    )
    delete_per_min: float | None = Field(
        None, gt=0, description="namespaces deleted a minute at most; default all at once"
    )


def tagged_union(
    models: dict[str, type[_Strict]], field: str, default: str, what: str, hint: str = ""
) -> Any:
    """A union of models told apart by ``field`` (``default`` when it is missing), whose
    error for an unknown value lists the known ones (then ``hint``). A value is checked by
    its own model alone, so that a spec builds only the models it names (pydantic builds a
    model's schema when it is first used: checking a fio spec builds none of the other
    tools', which was a third of a command's start); its JSON Schema is the union's."""
    error_type = f"unknown-{what.replace(' ', '-')}"
    message = f"unknown {what}; one of {', '.join(models)}{hint}"

    def tag_of(value: Any) -> str:
        if isinstance(value, dict):
            return str(value.get(field, default))
        return str(getattr(value, field, default))

    def check(value: Any) -> Any:
        model = models.get(tag_of(value))
        if model is None:
            raise PydanticCustomError(error_type, message)
        return model.model_validate(value)  # its errors keep their places below this one

    members = tuple(Annotated[model, Tag(tag)] for tag, model in models.items())
    union = Annotated[
        Union[members],  # noqa: UP007 - Annotated needs the Union spelled out for the tags
        Discriminator(tag_of, custom_error_type=error_type, custom_error_message=message),
    ]

    class TaggedUnion:
        @classmethod
        def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> CoreSchema:
            return core_schema.no_info_plain_validator_function(check)

        @classmethod
        def __get_pydantic_json_schema__(cls, schema: CoreSchema, handler: Any) -> Any:
            return handler(TypeAdapter(union).core_schema)

    return TaggedUnion


# how the planes run a tool: fio jobs, a database and its client, PVCs and pods, an
# application's phases, or a Rally task
Family = Literal["fio", "database", "provision", "app", "rally"]
TARGET_TYPES = frozenset({"local", "rbd", "openstack", "k8s", "hosts"})


@dataclass(frozen=True)
class Plot:
    """The picture of a tool's steps on its page: ``kind`` names the report's drawing
    (harness/report/plots.py: PLOTS), ``name`` its file's suffix; a throughput plot's
    two phases and their unit."""

    kind: str = "tps"
    name: str = "tps"
    phases: tuple[str, ...] = ()
    unit: str = ""


@dataclass(frozen=True)
class Tool:
    """A workload tool: ``tag`` is the spec's ``tool``, ``model`` its workload's model,
    ``targets`` the target types it runs on; ``describe`` its workload (as the spec's
    dict) in the method section's words, ``expected_seconds`` how long a step's measured
    part should take (None: as long as what it waits on takes), ``step_line`` the
    terminal's short form of a step (the threads of a database step given); ``elsewhere``
    says what a spec that asks for
    it on another target is told where that target does not say what it runs (the local
    target runs what runs anywhere); ``fits`` checks what else it asks of a target (its
    settings there), as rally-openstack's validators do; ``set_by_target`` what a target
    type sets of its workload itself (fio's engine on rbd)."""

    tag: str
    model: type[_Strict]
    family: Family
    targets: frozenset[str]
    describe: Callable[[dict[str, Any]], str]
    expected_seconds: Callable[[dict[str, Any]], float | None]
    step_line: Callable[[dict[str, Any], int | None], str]
    elsewhere: str = ""
    # what it asks of a target beyond its type (the target, its workloads): ValueError
    fits: Callable[[Any, list[Any]], None] | None = None
    columns: tuple[Column, ...] = ()  # its table of a step's figures (fio's: report/tables)
    phases: tuple[str, ...] = ()  # an application's timed phases, in order
    plot: Plot = Plot()  # its steps' picture on its page (fio's and Rally's: their own)
    # an application's own figures that `volperf compare` sets side by side, before its
    # phases' times
    compared: tuple[Figure, ...] = ()
    # an application's script, run by sh with phases.sh beside it (harness/tools/apps):
    # (package, file name) read with importlib.resources; the programs it needs on the
    # host's PATH, and how each program it names says its version
    script: tuple[str, str] | None = None
    programs: tuple[str, ...] = ()
    versions: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # an application whose own client measures operations or messages a second: the
    # summary figure (under ``app``) that is a step's throughput, summed over consumers
    throughput: str = ""
    # what the page's method section adds of it by target type (its server and client)
    setup: Mapping[str, str] = field(default_factory=dict)
    # by target type, the settings that target runs it with whatever its workload says
    # (fio on rbd: fio's rbd engine); the method section and a step's method state these
    set_by_target: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = self.targets - TARGET_TYPES
        if unknown:
            raise ValueError(f"tool {self.tag}: unknown target types {sorted(unknown)}")
        # the other target types say what they run (the spec's targets: ``only``)
        if "local" not in self.targets and not self.elsewhere:
            raise ValueError(f"tool {self.tag}: say what it needs where it does not run")
        if self.family == "app" and self.script is None:
            raise ValueError(f"tool {self.tag}: an application names its script")
