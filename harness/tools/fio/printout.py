"""fio's output and its per-second logs in one text, as a consumer with no other way out
prints it (a pod to its log, a VM's agent into its Heat signal): fio's JSON, then a
marker line, each log file after a line naming it, and an end line (a text without it was
cut short: read before its printer was done). Split back here (pure)."""

from __future__ import annotations

LOGS_MARKER = "==> volperf: fio logs"
FILE_MARKER = "==> "
END_MARKER = "==> volperf: fio logs end"


def print_logs_command(directory: str) -> str:
    """The shell that prints the marker and every log file in ``directory``."""
    return (
        f'echo; echo "{LOGS_MARKER}"; for f in {directory}/*.log; do [ -e "$f" ] || continue; '
        f'echo "{FILE_MARKER}${{f##*/}}"; cat "$f"; done; echo "{END_MARKER}"'
    )


def printout_complete(text: str) -> bool:
    """Whether a printout of ``print_logs_command``'s has all its logs (its end line)."""
    return f"\n{END_MARKER}" in text


def split_printout(text: str) -> tuple[str, dict[str, str]]:
    """(fio's output, {log file name: its text}); a log without the marker is all fio's."""
    head, found, tail = text.partition(f"\n{LOGS_MARKER}\n")
    if not found:
        return text, {}
    files: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in tail.splitlines():
        if line == END_MARKER:
            break
        name = line[len(FILE_MARKER) :] if line.startswith(FILE_MARKER) else ""
        if name and "/" not in name and name.endswith(".log"):
            current = files.setdefault(name, [])
        elif current is not None:
            current.append(line)
    return head.rstrip("\n") + "\n", {n: "\n".join(lines) + "\n" for n, lines in files.items()}
