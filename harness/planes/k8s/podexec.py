"""Run a command in a pod's container (the API's exec, as `kubectl exec`), its stdout and
stderr into files as they come, with the same result record as a local child process
(harness.host.process.ProcessResult), so database steps on pods keep the local layout."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import yaml

from harness.host.owncost import count_api_call
from harness.host.process import ProcessResult

LOST = -1  # the stream ended without the command's exit status


def _exit_status(stream: Any) -> int:
    from kubernetes.stream.ws_client import ERROR_CHANNEL

    text = stream.read_channel(ERROR_CHANNEL)
    status = yaml.safe_load(text) if text else None
    if not isinstance(status, dict):
        return LOST
    if status.get("status") == "Success":
        return 0
    try:
        return int(status["details"]["causes"][0]["message"])
    except (KeyError, IndexError, TypeError, ValueError):
        return LOST


def _drain(client: Any, out: Any, err: Any) -> None:
    for peek, read, target in (
        (client.peek_stdout, client.read_stdout, out),
        (client.peek_stderr, client.read_stderr, err),
    ):
        if peek():
            target.write(read().encode())
            target.flush()


def exec_in_pod(
    core: Any,
    namespace: str,
    pod: str,
    container: str,
    argv: list[str],
    stdout: Path,
    stderr: Path,
    timeout_s: float,
    stop: threading.Event,
) -> ProcessResult:
    """Run argv and wait for it (or for stop, or the timeout: then the stream is closed and
    the result says so; the command itself ends with its pod or namespace)."""
    from kubernetes import client as k8s
    from kubernetes.stream import stream

    # stream() swaps the client's request method while it runs: a client of its own, so
    # other threads' calls on the shared one stay plain HTTP
    own = k8s.CoreV1Api(k8s.ApiClient(configuration=core.api_client.configuration))
    count_api_call("kubernetes")  # the exec's websocket request, which stream() sends
    start = time.time()
    timed_out = interrupted = False
    with stdout.open("wb") as out, stderr.open("wb") as err:
        try:
            client = stream(
                own.connect_get_namespaced_pod_exec,
                pod,
                namespace,
                container=container,
                command=argv,
                stdin=False,
                stdout=True,
                stderr=True,
                tty=False,
                _preload_content=False,
            )
        except Exception as exc:
            err.write(f"volperf: exec in pod {pod} failed: {type(exc).__name__}: {exc}\n".encode())
            now = time.time()
            return ProcessResult(LOST, now - start, False, False, start, now)
        try:
            while client.is_open():
                client.update(timeout=0.5)
                _drain(client, out, err)
                if stop.is_set():
                    interrupted = True
                    break
                if time.time() - start > timeout_s:
                    timed_out = True
                    break
            _drain(client, out, err)  # what came with the last frames
            returncode = LOST if interrupted or timed_out else _exit_status(client)
        finally:
            client.close()
    end = time.time()
    return ProcessResult(returncode, end - start, timed_out, interrupted, start, end)
