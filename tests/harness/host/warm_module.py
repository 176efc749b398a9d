"""A module WarmProcess can start ahead (tests/harness/host/test_process.py): ``--warm``
waits for its command as the Rally runner does; its command prints its pid and argv and
exits with the status its first argument gives."""

from __future__ import annotations

import os
import sys

from harness.host.process import WARM_FLAG, warm_request


def main(argv: list[str]) -> int:
    print(f"pid {os.getpid()} argv {' '.join(argv)}", flush=True)
    print("on stderr", file=sys.stderr, flush=True)
    return int(argv[0]) if argv else 0


if __name__ == "__main__":
    if sys.argv[1:] == [WARM_FLAG]:
        request = warm_request()
        sys.exit(0 if request is None else main(request))
    sys.exit(main(sys.argv[1:]))
