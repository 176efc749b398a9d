"""What the database workloads share: a client process per consumer with its own server
(but fileio's), thread counts swept inside a step, a dataset sized to the memory."""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from harness.core.workloads.base import Name, _Strict

ThreadCounts = Annotated[list[Annotated[int, Field(ge=1, le=4096)]], Field(min_length=1)]


class _DbWorkload(_Strict):
    """A database-layer workload: every consumer of a step is one client process (and,
    except for fileio, its own database server); ``threads`` adds a sweep inside it."""

    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    report_interval: int = Field(1, ge=1, description="seconds between interval reports")
    # its clients run until volperf stops them, while it makes the servers go
    endless: ClassVar[bool] = False

    @field_validator("threads", check_fields=False)
    @classmethod
    def _distinct(cls, value: list[int]) -> list[int]:
        if len(set(value)) != len(value):
            raise ValueError("thread counts repeat")
        return value


_DATASET = re.compile(r"^(\d+(?:\.\d+)?)x-memory$")


def _dataset_factor(value: str | None) -> str | None:
    if value is not None and (not _DATASET.match(value) or dataset_factor(value) <= 0):
        raise ValueError("expected N x the memory, written like 2x-memory or 1.5x-memory")
    return value


def dataset_factor(value: str) -> float:
    """2 for '2x-memory'."""
    return float(value.removesuffix("x-memory"))


DatasetSize = Annotated[
    str | None,
    AfterValidator(_dataset_factor),
    Field(
        description="size the data to N times the memory the database may keep it in "
        "(2x-memory): sets table_size (sysbench) or scale (pgbench) when the step runs"
    ),
]


class _SizedDbWorkload(_DbWorkload):
    """A database workload whose data size is either given or derived from ``dataset``."""

    dataset: DatasetSize = None

    @model_validator(mode="after")
    def _one_size(self) -> _SizedDbWorkload:
        # a stored spec carries the default size beside dataset: only another one conflicts
        fields = type(self).model_fields
        sized = [
            name
            for name in ("table_size", "scale")
            if name in fields and getattr(self, name) != fields[name].default
        ]
        if self.dataset is not None and sized:
            raise ValueError(f"give {sized[0]} or dataset, not both")
        return self


class _UnderLoadWorkload(_DbWorkload):
    """sysbench OLTP with 1-second reports against each consumer's MariaDB while volperf
    makes its server go (io-pause, migration)."""

    endless: ClassVar[bool] = True
    engine: Literal["mariadb"] = Field("mariadb", description="the database server: MariaDB")
    test: Literal["read_write", "read_only", "write_only"] = Field(
        "read_write", description="sysbench's OLTP test (oltp_read_write …)"
    )
    tables: int = Field(4, ge=1, le=10000, description="tables in each consumer's database")
    table_size: int = Field(10000, ge=1, description="rows per table")
    threads: ThreadCounts = Field(
        [4], description="client threads of each consumer, one step per count"
    )
    report_interval: Literal[1] = Field(  # io-pause is read from 1-second reports
        1, description="seconds between interval reports: always 1"
    )
