"""volperf's own MariaDB and PostgreSQL servers, started for real: MariaDB's temporary
files in a folder of its own, bootstrap included; no signal to a server once it has been
waited for."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.host.databases.mariadb import MariaDBServer
from harness.host.databases.postgresql import PostgreSQLServer
from harness.host.databases.server import ServerError


def _server(cls, base: Path, sockets: Path, options=None, timeout: float = 60):
    return cls("c01", base / f"{cls.engine}-c01", sockets / cls.engine, options or {}, timeout)


@pytest.mark.parametrize("cls", [MariaDBServer, PostgreSQLServer])
def test_start_kill_restart_stop(cls, reachable_dir, socket_root):
    server = _server(cls, reachable_dir, socket_root)
    server.initialize()
    assert server.initialized()
    assert server.start() < 60
    server.create_databases()
    server.create_databases()  # again: nothing to do, no error
    first = server.pid
    server.kill()
    assert not server.running and not server.ready()
    server.start()  # crash recovery on the same data
    assert server.running and server.pid != first
    server.stop()
    assert not server.running
    assert not os.path.exists(f"/proc/{first}")
    if os.geteuid() == 0:
        assert server.datadir.stat().st_uid != 0  # runs as its service user, not root


def test_mariadb_keeps_its_temporary_files_in_a_folder_of_its_own(reachable_dir, socket_root):
    server = _server(MariaDBServer, reachable_dir, socket_root)
    server.initialize()  # the bootstrap server, given the same folder
    assert f"--tmpdir={server.tmpdir}" in server.initialize_command()
    server.start()
    try:
        asked = subprocess.run(
            [*server.client(), "-N", "-e", "SELECT @@tmpdir"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert asked.stdout.strip() == str(server.tmpdir)
        assert server.tmpdir.parent == server.socket_dir
        if os.geteuid() == 0:
            assert server.tmpdir.stat().st_uid == server.service_account().pw_uid
    finally:
        server.stop()


def test_a_server_waited_for_is_not_signalled_again(reachable_dir, socket_root, monkeypatch):
    server = _server(MariaDBServer, reachable_dir, socket_root)
    server.initialize()
    server.start()
    server.stop()
    signalled: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "killpg", lambda *call: signalled.append(call))
    server.kill()  # its pid may be another process's by now
    server.stop()
    assert signalled == []


def test_a_bad_option_fails_with_the_server_s_own_words(reachable_dir, socket_root):
    server = _server(MariaDBServer, reachable_dir, socket_root, {"innodb_buffer_pool_size": "lots"})
    with pytest.raises(ServerError, match="mariadb c01") as caught:
        server.initialize()
        server.start()
    assert "lots" in str(caught.value) or "ERROR" in str(caught.value)


def test_postgresql_bad_setting_is_quoted(reachable_dir, socket_root):
    server = _server(PostgreSQLServer, reachable_dir, socket_root, {"shared_buffers": "lots"})
    server.initialize()
    with pytest.raises(ServerError, match='invalid value for parameter "shared_buffers"'):
        server.start()
    assert not server.running


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands data to a service user")
def test_a_directory_the_service_user_cannot_reach_is_named(tmp_path, socket_root):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    server = _server(PostgreSQLServer, private, socket_root)
    with pytest.raises(ServerError, match="the postgres user cannot reach it"):
        server.check_reachable(private)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands data to a service user")
@pytest.mark.parametrize("cls", [MariaDBServer, PostgreSQLServer])
def test_a_missing_service_user_is_named_with_how_to_make_it(cls, monkeypatch, tmp_path):
    monkeypatch.setattr(cls, "service_user", "volperf-no-such-user")
    with pytest.raises(ServerError) as raised:
        cls.check_reachable(tmp_path)
    message = str(raised.value)
    assert f"{cls.engine} runs as its service user 'volperf-no-such-user'" in message
    assert "tools/setup.sh creates it" in message
