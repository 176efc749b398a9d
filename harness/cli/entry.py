"""The `volperf` command as a process: click's group run, then the process left without
the interpreter's teardown once what it wrote is out. Freeing a campaign's modules one by
one (a cloud's or a cluster's client, Rally's records) took 0.1 to 0.2 s of every command's
time and CPU, and wrote nothing: every file volperf writes is closed (atomic writes
fsynced) before its command returns. Threads still running are waited for and atexit's
handlers run (a client's temporary files removed), as at a normal exit."""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

from harness.cli.main import main


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
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()  # logging's shutdown is one (registered by logging itself)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone: as at a normal exit
            stream.flush()
    os._exit(status)
