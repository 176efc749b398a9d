"""The services' schemas, dumped once and loaded into the next testbed's MariaDB: on two
real testbed MariaDB servers, with a stand-in for the services' migrations that makes a
table and a row in each database (the real migrations run in every cold bring-up: the
fresh-machine check, tools/fresh-machine-check.sh)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.testbeds import TestbedError
from harness.testbeds.openstack import infra, schemas
from harness.testbeds.openstack.testbed import DATABASES


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[infra.TestbedMariaDB]]:
    made = []
    try:
        for name in ("first", "second"):
            server = infra.mariadb(tmp_path / name)
            infra.start_mariadb(server, tmp_path / f"{name}.pid")
            server.create(list(DATABASES))
            made.append(server)
        yield made
    finally:
        for server in made:
            server.stop()


def sql(server: infra.TestbedMariaDB, statement: str) -> str:
    argv = [*server.client(), "--batch", "--skip-column-names", "-e", statement]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def migrations(server: infra.TestbedMariaDB, ran: list[str]) -> None:
    """What the services' db sync does, in small: a table and a row in each database."""
    ran.append("migrated")
    for name in schemas.DUMPED:
        sql(server, f"CREATE TABLE {name}.versions (id INT PRIMARY KEY, name TEXT)")
        sql(server, f"INSERT INTO {name}.versions VALUES (1, '{name} head')")


def contents(server: infra.TestbedMariaDB) -> dict[str, str]:
    return {name: sql(server, f"SELECT * FROM {name}.versions") for name in DATABASES}


def test_the_first_testbed_migrates_and_the_next_loads_the_same_schemas(
    servers: list[infra.TestbedMariaDB], tmp_path: Path
) -> None:
    first, second = servers
    venv, ran, said = tmp_path / "venv", [], []
    log = tmp_path / "setup-schemas.log"

    assert schemas.ensure_schemas(venv, first, lambda: migrations(first, ran), log, said.append)
    assert ran == ["migrated"]
    folder = schemas.dumps_dir(venv, schemas.server_version(first))
    assert sorted(p.name for p in folder.glob("*.sql")) == sorted(
        f"{name}.sql" for name in schemas.DUMPED
    )
    # cell0 gets the cell database's schema from its dump in the first testbed too
    assert contents(first)["nova_cell0"] == "1\tnova head\n"

    made = schemas.ensure_schemas(venv, second, lambda: migrations(second, ran), log, said.append)
    assert not made and ran == ["migrated"]  # loaded, not migrated again
    assert contents(second) == contents(first)
    assert said[0].startswith("creating the services' database schemas")
    assert said[1].startswith("loading the services' database schemas") and str(folder) in said[1]


def test_migrations_that_fail_leave_no_dumps_and_the_next_testbed_migrates(
    servers: list[infra.TestbedMariaDB], tmp_path: Path
) -> None:
    first, second = servers
    venv, log = tmp_path / "venv", tmp_path / "setup-schemas.log"

    def failing() -> None:
        raise TestbedError("nova setup `nova-manage db sync` failed (exit 1)")

    with pytest.raises(TestbedError, match="db sync"):
        schemas.ensure_schemas(venv, first, failing, log, print)
    assert not list(venv.glob("schemas/*/complete"))

    ran: list[str] = []
    assert schemas.ensure_schemas(venv, second, lambda: migrations(second, ran), log, print)
    assert ran == ["migrated"]


def test_a_dump_that_does_not_load_names_its_database_and_log(
    servers: list[infra.TestbedMariaDB], tmp_path: Path
) -> None:
    first, second = servers
    venv, log = tmp_path / "venv", tmp_path / "setup-schemas.log"
    schemas.ensure_schemas(venv, first, lambda: migrations(first, []), log, print)
    folder = schemas.dumps_dir(venv, schemas.server_version(first))
    (folder / "heat.sql").write_text("CREATE TABLE broken (\n")

    with pytest.raises(TestbedError, match=r"loading the heat schema into heat failed.*log "):
        schemas.ensure_schemas(venv, second, lambda: None, log, print)
