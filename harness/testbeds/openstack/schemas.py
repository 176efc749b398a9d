"""The OpenStack services' database schemas, made by the services' own db sync commands
once per services' venv and MariaDB version, dumped beside the venv and loaded into each
new testbed's MariaDB: a load takes seconds where the eight programs' migrations took
minutes of CPU (7 to 25 min of a testbed's bring-up in a busy suite run, two testbeds
at once).

A dump holds only what the migrations made: nothing of a testbed's own (its passwords,
Keystone's admin, fernet keys and catalog, Nova's cell mappings with their database and
transport URLs), which each testbed's own setup commands write after the load
(testbed.py). When two testbeds come up at once and neither finds the dumps, one makes
them while the other waits for it (harness.host.buildlock)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from harness.host.buildlock import build_lock
from harness.host.databases.server import find_program
from harness.host.process import log_tail
from harness.testbeds import TestbedError
from harness.testbeds.openstack.infra import COMMAND_TIMEOUT_S, TestbedMariaDB

# what the migrations make, a dump each
DUMPED = ("keystone", "glance", "placement", "nova_api", "nova", "neutron", "cinder", "heat")
# cell0's schema is the cell database's: Nova's `db sync` runs the same migrations on both
LOADED_FROM = {**{name: name for name in DUMPED}, "nova_cell0": "nova"}
COMPLETE = "complete"


def server_version(server: TestbedMariaDB) -> str:
    """The server's version, as the dumps' folder is named ("10.11.19-MariaDB-0+deb12u1")."""
    said = subprocess.run(
        [server.server_program(), "--version"], capture_output=True, text=True, check=True
    ).stdout
    found = re.search(r"Ver\s+(\S+)", said)
    return found.group(1) if found else said.strip().replace(" ", "_")


def dumps_dir(venv: Path, version: str) -> Path:
    """Where the dumps for this venv and server version live (inside the venv: a rebuilt
    venv, whose pins may migrate differently, starts without them)."""
    return venv / "schemas" / re.sub(r"[^A-Za-z0-9.+-]", "_", version)


def ensure_schemas(
    venv: Path,
    server: TestbedMariaDB,
    migrate: Callable[[], None],
    log: Path,
    say: Callable[[str], None],
) -> bool:
    """Gives ``server``'s empty databases the services' schemas: from the dumps when they
    exist, else by ``migrate`` (the services' own db sync into ``server``), whose result is
    then dumped for the next testbed. True when the migrations ran here."""
    folder = dumps_dir(venv, server_version(server))
    if not (folder / COMPLETE).exists():
        with build_lock(folder, say):
            if not (folder / COMPLETE).exists():
                say("creating the services' database schemas with their own db sync (once)")
                migrate()
                _dump(server, folder, log)
                load(server, folder, {"nova_cell0": LOADED_FROM["nova_cell0"]}, log)
                return True
    say(f"loading the services' database schemas, as their db sync made them ({folder})")
    load(server, folder, LOADED_FROM, log)
    return False


def _dump(server: TestbedMariaDB, folder: Path, log: Path) -> None:
    partial = folder.with_name(f"{folder.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    dump = find_program("mariadb-dump")
    for name in DUMPED:
        # no CREATE DATABASE or USE in it: each loads into whichever database it is given
        argv = [dump, "--no-defaults", f"--socket={server.socket}", "-uroot"]
        argv += ["--single-transaction", "--routines", "--skip-comments", name]
        with (partial / f"{name}.sql").open("wb") as out:
            _run(argv, f"dumping the {name} schema", log, stdout=out)
    (partial / COMPLETE).write_text(" ".join(DUMPED) + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)


def load(server: TestbedMariaDB, folder: Path, databases: dict[str, str], log: Path) -> None:
    """Loads each dump into its database (``databases``: database -> dump's name)."""
    for database, dumped in databases.items():
        with (folder / f"{dumped}.sql").open("rb") as source:
            _run(
                [*server.client(), database],
                f"loading the {dumped} schema into {database}",
                log,
                stdin=source,
            )


def _run(argv: list[str], what: str, log: Path, **streams: object) -> None:
    with log.open("ab") as out:
        streams.setdefault("stdout", out)
        try:
            done = subprocess.run(
                argv,
                stderr=out,
                timeout=COMMAND_TIMEOUT_S,
                check=False,
                **streams,  # type: ignore[arg-type]
            )
        except subprocess.TimeoutExpired:
            raise TestbedError(f"{what}: still running after {COMMAND_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise TestbedError(f"{what} failed (exit {done.returncode}): {log_tail(log)} (log {log})")
