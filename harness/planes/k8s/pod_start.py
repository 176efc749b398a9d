"""What the pod targets share about their pods starting: why a pod that never ran did not
(its phase, waiting reason, its and its PVC's last events), and the start signal that
lets ready pods begin their measured work together (a file made in each at once)."""

from __future__ import annotations

import shlex
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from harness.planes.k8s.cluster import last_events
from harness.planes.k8s.podexec import exec_in_pod

SIGNAL_TIMEOUT_S = 60


def is_ready(pod: Any) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in (pod.status.conditions or []))


def stuck(core: Any, pod: Any, reason: str, waited: float, claim: str | None = None) -> str:
    """Why a pod never ran: its phase, waiting reason, its and its PVC's last events."""
    name, namespace = pod.metadata.name, pod.metadata.namespace
    return (
        f"{pod.status.phase}{f' ({reason})' if reason else ''} after {waited:.0f} s; "
        f"pod events: {last_events(core, namespace, 'Pod', name)}; PVC events: "
        f"{last_events(core, namespace, 'PersistentVolumeClaim', claim or name)}"
    )


def signal_start(
    core: Any,
    pods: dict[str, tuple[str, str]],
    container: str,
    path: str,
    seen: dict[str, dict[str, Any]],
    stop: threading.Event,
    contents: dict[str, str] | None = None,
) -> None:
    """``path`` made in every pod at once (consumer -> (namespace, pod)), holding the
    consumer's line of ``contents`` if given (written aside, then moved: whole when it
    appears); each consumer's entry gets when (signalled_ms) and, if the exec failed,
    why (signal_error)."""
    directory = Path(tempfile.mkdtemp(prefix="volperf-signal-"))

    def touch(consumer: str) -> None:
        namespace, name = pods[consumer]
        make = f"touch {path}"
        if contents is not None:
            make = f"echo {shlex.quote(contents[consumer])} >{path}.part && mv {path}.part {path}"
        result = exec_in_pod(
            core,
            namespace,
            name,
            container,
            ["/bin/sh", "-c", make],
            directory / f"{consumer}.out",
            directory / f"{consumer}.err",
            SIGNAL_TIMEOUT_S,
            stop,
        )
        seen[consumer]["signalled_ms"] = int(result.end_s * 1000)
        if result.returncode != 0:
            problem = (directory / f"{consumer}.err").read_text(errors="replace").strip()
            seen[consumer]["signal_error"] = problem or f"exit {result.returncode}"

    threads = [threading.Thread(target=touch, args=(consumer,)) for consumer in pods]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    shutil.rmtree(directory, ignore_errors=True)
