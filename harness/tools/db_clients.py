"""The database tools' commands, written once: what each loads and runs against a
server's connection, the data it makes and the memory that could hold it. The local
plane runs them as argument lists against its own servers, the Kubernetes plane as
shell lines in its pods (harness/planes/*/db_target.py); each plane only says where
the server is (``Connection``).

One client per tool tag (``CLIENTS``): sysbench fileio on files of its own, sysbench
OLTP (also under io-pause and migration, through reconnect.lua), pgbench."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol

from harness.core.spec import dataset_factor
from harness.core.units import size_bytes
from harness.host.databases.postgresql import PGBENCH_DATABASE
from harness.host.databases.server import SYSBENCH_DATABASE
from harness.host.process import read_output
from harness.tools.pgbench import command as pgbench_command
from harness.tools.pgbench.command import SCALE_BYTES
from harness.tools.pgbench.parse import PgbenchParseError, parse_init, parse_run
from harness.tools.sysbench import command as sysbench_command
from harness.tools.sysbench.command import ROW_BYTES
from harness.tools.sysbench.parse import SysbenchParseError, parse_file

ParseError = (PgbenchParseError, SysbenchParseError)


class Connection(Protocol):
    """Where a consumer's server is, as each client program takes it."""

    def sysbench_options(self) -> list[str]: ...

    def pgbench(self) -> list[str]: ...


@dataclass(frozen=True)
class RunFigures:
    """What a client's own output says of its run: figures by DbRecord column (its
    duration among them), or why there are none."""

    figures: dict[str, Any]
    error: str = ""


@dataclass(frozen=True)
class Load:
    argv: list[str]  # the prepare or init command, its phase last
    cleanup_first: bool  # sysbench cannot prepare over an older dataset: clean it up first
    database: str | None  # the database it needs made first, where the server has none yet


class DbClient:
    """What every database client declares; the subclasses fill it in."""

    program: ClassVar[str]  # what must be installed
    in_data_folder: ClassVar[bool] = False  # runs in the consumer's folder (its files)
    database: ClassVar[str | None] = None  # the database its data goes in (None: files)
    default_test: ClassVar[str] = ""  # the test its records name when the spec names none
    # what its clients are served per second (a record's column), as the storage check
    # words it; None where the figure says nothing of reads
    served: ClassVar[tuple[str, str] | None] = None
    under_load: ClassVar[bool] = False  # io-pause, migration: pauses, not rates
    node_failure: ClassVar[bool] = False  # migration: a node fails under it

    def served_by(self, test: str) -> tuple[str, str] | None:
        """The figure of reads served for a step of ``test``, and its words."""
        return self.served

    def load_time_s(self, out: Path, err: Path, timed: float | None) -> float | None:
        """A consumer's load time: the process's ``timed`` seconds (ParseError when its
        own output gives another that cannot be read)."""
        return timed

    def run_figures(self, out: Path, err: Path) -> RunFigures:
        """The figures of a consumer's run from its output (ParseError when unreadable)."""
        raise NotImplementedError

    def engine(self, workload: Any) -> str | None:
        return str(workload.engine)

    def dataset(self, workload: Any) -> tuple[str, dict[str, Any]]:
        """What a consumer's loaded data depends on; a step whose dataset differs loads
        anew."""
        raise NotImplementedError

    def data_bytes(self, workload: Any) -> int:
        """The loaded data's size on disk."""
        raise NotImplementedError

    def room_bytes(self, workload: Any) -> int:
        """Room for the data, generously: twice its size (a server's own growth)."""
        return 2 * self.data_bytes(workload)

    def cache_flags(self, workload: Any) -> list[str]:
        """Flags that keep its data out of the page cache (fileio's O_DIRECT)."""
        return []

    def sized(self, workload: Any, memory_bytes: int) -> Any:
        """The workload with ``dataset: Nx-memory`` turned into its size."""
        return workload

    def run(self, workload: Any, connection: Connection | None, threads: int) -> list[str]:
        raise NotImplementedError

    def load(self, workload: Any, connection: Connection | None, threads: int) -> Load:
        raise NotImplementedError


def _sysbench_run(out: Path) -> RunFigures:
    """The summary's figures, named as its fields (the record's columns of the same name
    take them), or what sysbench said when it ended without one."""
    output = parse_file(out)
    summary = output.summary
    if summary is None:
        return RunFigures({}, " / ".join(output.fatal[-3:]) or "no summary: sysbench ended early")
    return RunFigures({**asdict(summary), "duration_s": summary.total_time_s})


class SysbenchFileio(DbClient):
    program = "sysbench"
    in_data_folder = True
    served = ("reads_per_s", "reads")

    def engine(self, workload: Any) -> str | None:
        return None

    def dataset(self, workload: Any) -> tuple[str, dict[str, Any]]:
        files = {"file_total_size": workload.file_total_size, "file_num": workload.file_num}
        return "fileio", files

    def data_bytes(self, workload: Any) -> int:
        return size_bytes(workload.file_total_size)

    def room_bytes(self, workload: Any) -> int:
        return self.data_bytes(workload)  # its files are exactly that size

    def cache_flags(self, workload: Any) -> list[str]:
        return list(workload.file_extra_flags)

    def run_figures(self, out: Path, err: Path) -> RunFigures:
        return _sysbench_run(out)

    def run(self, workload: Any, connection: Connection | None, threads: int) -> list[str]:
        return sysbench_command.fileio(workload, threads, "run")

    def load(self, workload: Any, connection: Connection | None, threads: int) -> Load:
        return Load(sysbench_command.fileio(workload, 1, "prepare"), True, None)


class SysbenchOltp(DbClient):
    """sysbench OLTP; under io-pause and migration its run goes through reconnect.lua."""

    program = "sysbench"
    database = SYSBENCH_DATABASE
    served = ("qps", "queries")

    def served_by(self, test: str) -> tuple[str, str] | None:
        return None if test == "write_only" else self.served

    def run_figures(self, out: Path, err: Path) -> RunFigures:
        return _sysbench_run(out)

    def dataset(self, workload: Any) -> tuple[str, dict[str, Any]]:
        return "sysbench", {"tables": workload.tables, "table_size": workload.table_size}

    def data_bytes(self, workload: Any) -> int:
        return workload.tables * workload.table_size * ROW_BYTES[workload.engine]

    def sized(self, workload: Any, memory_bytes: int) -> Any:
        if getattr(workload, "dataset", None) is None:
            return workload
        needed = dataset_factor(workload.dataset) * memory_bytes
        rows = math.ceil(needed / (workload.tables * ROW_BYTES[workload.engine]))
        return workload.model_copy(update={"table_size": max(1, rows)})

    def run(self, workload: Any, connection: Connection | None, threads: int) -> list[str]:
        assert connection is not None
        return sysbench_command.oltp(workload, connection.sysbench_options(), threads, "run")

    def load(self, workload: Any, connection: Connection | None, threads: int) -> Load:
        assert connection is not None
        options = connection.sysbench_options()
        return Load(sysbench_command.oltp(workload, options, threads, "prepare"), True, None)


class Pgbench(DbClient):
    program = "pgbench"
    database = PGBENCH_DATABASE
    default_test = "tpcb-like"
    served = ("tps", "transactions")

    def load_time_s(self, out: Path, err: Path, timed: float | None) -> float | None:
        # pgbench times its own phases; its total is the load time the studies quote
        return parse_init(read_output(err)).load_time_s

    def run_figures(self, out: Path, err: Path) -> RunFigures:
        run = parse_run(read_output(out), read_output(err), str(out))
        figures = {
            "tps": run.tps,
            "latency_avg_ms": run.latency_avg_ms,
            "latency_stddev_ms": run.latency_stddev_ms,
            "duration_s": run.progress[-1].time_s if run.progress else None,
        }
        return RunFigures(figures, f"{run.failed} failed transactions" if run.failed else "")

    def engine(self, workload: Any) -> str | None:
        return "postgresql"

    def dataset(self, workload: Any) -> tuple[str, dict[str, Any]]:
        return "pgbench", {"scale": workload.scale}

    def data_bytes(self, workload: Any) -> int:
        return workload.scale * SCALE_BYTES

    def sized(self, workload: Any, memory_bytes: int) -> Any:
        if workload.dataset is None:
            return workload
        needed = dataset_factor(workload.dataset) * memory_bytes
        return workload.model_copy(update={"scale": max(1, math.ceil(needed / SCALE_BYTES))})

    def run(self, workload: Any, connection: Connection | None, threads: int) -> list[str]:
        assert connection is not None
        return pgbench_command.run(workload, connection.pgbench(), threads)

    def load(self, workload: Any, connection: Connection | None, threads: int) -> Load:
        assert connection is not None  # init drops older tables itself
        return Load(pgbench_command.init(workload, connection.pgbench()), False, self.database)


class SysbenchUnderLoad(SysbenchOltp):
    """sysbench OLTP while volperf makes the servers go (io-pause, migration): its
    records are pauses from its interval reports, not rates."""

    served = None
    under_load = True


class SysbenchMigration(SysbenchUnderLoad):
    """Under migration the servers' node fails: its records add the pods' moves."""

    node_failure = True


CLIENTS: dict[str, DbClient] = {
    "sysbench-fileio": SysbenchFileio(),
    "sysbench-oltp": SysbenchOltp(),
    "io-pause": SysbenchUnderLoad(),
    "migration": SysbenchMigration(),
    "pgbench": Pgbench(),
}


def client_of(workload: Any) -> DbClient:
    """The client of a database workload, by its tool's tag."""
    return CLIENTS[workload.tool]
