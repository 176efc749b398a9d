"""What the spec's parts share: SpecError, which names every problem of a spec, the
database servers' settings (``databases``), and the wording of lists in its messages."""

from __future__ import annotations

from pydantic import Field

from harness.core.workloads.base import _Strict


class SpecError(ValueError):
    """A spec that cannot run; ``problems`` lists 'field: message (got value)' lines."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: invalid campaign spec:\n  " + "\n  ".join(problems))


class DatabaseServerSettings(_Strict):
    """Server options passed as they are: mariadbd --key=value, postgres -c key=value."""

    options: dict[str, str | int] = Field(
        default_factory=dict,
        description="server options, key: value, passed to every server of this engine",
    )
    start_timeout: int = Field(120, ge=1, description="seconds a start may take")


def _mariadb_defaults() -> DatabaseServerSettings:
    # a capped buffer pool, so that data larger than it reaches the storage
    return DatabaseServerSettings(options={"innodb_buffer_pool_size": "128M"})


def _postgresql_defaults() -> DatabaseServerSettings:
    return DatabaseServerSettings(options={"shared_buffers": "128MB"})


class Databases(_Strict):
    mariadb: DatabaseServerSettings = Field(
        default_factory=_mariadb_defaults,
        description="volperf's MariaDB servers; default innodb_buffer_pool_size 128M, so "
        "data larger than it reaches the storage",
    )
    postgresql: DatabaseServerSettings = Field(
        default_factory=_postgresql_defaults,
        description="volperf's PostgreSQL servers; default shared_buffers 128MB",
    )


def _listed(names: list[str]) -> str:
    """a, b and c"""
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]
