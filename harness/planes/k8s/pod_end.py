"""A pod's end as its own last line tells it. The kubelet reports a container's exit some
2 s after it (its relist period, then the pod's status update), so a target that waits
for Succeeded idles that long per step; following the pod's log, the line its script
prints last is seen at once. The phase still ends a pod that never prints it."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable
from typing import Any


class LastLines:
    """Follows pods' logs (one thread each) and notes the consumers whose pod printed a
    line starting with ``marker``."""

    def __init__(self, core: Any, container: str, marker: str):
        self.core = core
        self.container = container
        self.marker = marker.encode()
        self.lock = threading.Lock()
        self.seen: set[str] = set()

    def follow(self, consumer: str, namespace: str, pod: str) -> None:
        thread = threading.Thread(
            target=self._follow, args=(consumer, namespace, pod), name=f"log-{consumer}"
        )
        thread.daemon = True  # its stream ends with the pod, at the latest
        thread.start()

    def said(self, consumer: str) -> bool:
        with self.lock:
            return consumer in self.seen

    def _follow(self, consumer: str, namespace: str, pod: str) -> None:
        with contextlib.suppress(Exception):  # no log to follow: the pod's phase ends it
            answer = self.core.read_namespaced_pod_log(
                pod, namespace, container=self.container, follow=True, _preload_content=False
            )
            try:
                if line_printed(answer.stream(decode_content=True), self.marker):
                    with self.lock:
                        self.seen.add(consumer)
            finally:
                answer.close()  # not back to the client's pool, which would warn when full


def line_printed(chunks: Iterable[bytes], marker: bytes) -> bool:
    """Whether a whole line starting with marker came in the chunks (which split lines
    anywhere)."""
    line = b""
    for chunk in chunks:
        *whole, line = (line + chunk).split(b"\n")
        if any(text.startswith(marker) for text in whole):
            return True
    return False
