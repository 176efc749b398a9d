"""A pod's last line seen in its followed log (harness/planes/k8s/pod_end.py), whose
chunks split lines anywhere: on the git workload's real output (tests/harness/tools/
fixtures/apps). The targets' runs with it are tested on the testbed (test_cluster.py,
tests/k8s_scenarios)."""

from __future__ import annotations

from pathlib import Path

from harness.planes.k8s.pod_end import line_printed
from harness.tools.apps.parse import DONE

APPS = Path(__file__).parents[2] / "tools" / "fixtures" / "apps"
MARKER = DONE.encode()


def _chunks(text: bytes, size: int) -> list[bytes]:
    return [text[at : at + size] for at in range(0, len(text), size)]


def test_the_last_line_is_seen_whole_however_the_log_comes_in_chunks():
    run = (APPS / "git-run.out").read_bytes()
    assert run.endswith(b"\n") and run.splitlines()[-1].startswith(MARKER)
    for size in (1, 7, 64, len(run)):
        assert line_printed(_chunks(run, size), MARKER)
        assert not line_printed(_chunks(run[:-1], size), MARKER)  # not yet a whole line


def test_a_run_killed_before_its_end_never_says_it():
    killed = (APPS / "git-killed.out").read_bytes()
    assert not line_printed(_chunks(killed, 16), MARKER)
    assert not line_printed([b"sh: echo " + MARKER + b"iterations=1\n"], MARKER)
