"""Which of an object's events a failed step names (harness/planes/k8s/cluster.py
telling): a crash-looping pod's warnings are kept although the kubelet renews its
normal events at every restart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kubernetes.client import CoreV1Event, V1ObjectMeta, V1ObjectReference

from harness.planes.k8s.cluster import telling

START = datetime(2026, 11, 27, 21, 40, tzinfo=UTC)
POD = V1ObjectReference(kind="Pod", name="mariadb-c001-0")
# (second, type, reason, message): the reasons and types the kubelet and scheduler of the
# k8s testbed gave a mariadb pod that crash-loops (test_target's crash-loop test), the
# messages shortened
SEEN = [
    (0, "Normal", "Scheduled", "Successfully assigned volperf-crash-loop-db/mariadb-c001-0"),
    (9, "Warning", "BackOff", "Back-off restarting failed container mariadb"),
    (10, "Warning", "MissingClusterDNS", "pod: kubelet does not have ClusterDNS IP"),
    (12, "Normal", "Pulled", 'Container image "registry.local/mariadb:bookworm" present'),
    (12, "Normal", "Created", "Created container: mariadb"),
    (13, "Normal", "Started", "Started container mariadb"),
]


def _events() -> list[CoreV1Event]:
    return [
        CoreV1Event(
            metadata=V1ObjectMeta(name=f"mariadb-c001-0.{n}", creation_timestamp=START),
            involved_object=POD,
            last_timestamp=START + timedelta(seconds=second),
            type=kind,
            reason=reason,
            message=message,
        )
        for n, (second, kind, reason, message) in enumerate(SEEN)
    ]


def test_warnings_come_first_then_the_latest_others_oldest_first():
    reasons = [e.reason for e in telling(_events(), 4)]
    assert reasons == ["BackOff", "MissingClusterDNS", "Created", "Started"]


def test_as_many_as_asked_and_no_more():
    assert [e.reason for e in telling(_events(), 2)] == ["BackOff", "MissingClusterDNS"]
    assert len(telling(_events(), 10)) == len(SEEN)
    assert telling([], 4) == []
