"""The `volperf` command as a process: click's group run, then the process left as a
normal exit leaves it but without the interpreter's teardown
(host/process.py: exit_without_teardown)."""

from __future__ import annotations

import sys
from typing import NoReturn

from harness.cli.main import main
from harness.host.process import exit_without_teardown


def exit_status(code: object) -> int:
    """SystemExit's code as the process's status (None: 0; a message: printed, 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run() -> NoReturn:
    try:
        main()
        status = 0
    except SystemExit as done:  # click ends every command so
        status = exit_status(done.code)
    exit_without_teardown(status)
