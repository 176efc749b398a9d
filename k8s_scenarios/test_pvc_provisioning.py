"""PVC provisioning at scale: at each step N namespaces are created at once (at reference
scale 10 a minute), each with its PVCs and a pod mounting each; Pending→Bound and
pod-ready times per PVC as events, p50/p95/max per step; the sweep grows until the class
has no volume left or binding takes over 600 s (p95). pytest-benchmark times a single
PVC from create to Bound."""

from __future__ import annotations

import time

from harness.planes.k8s.cluster import api_client, delete_namespace, k8s_name


def test_pvc_provisioning(scenario_options, storage_class):
    scale = scenario_options.scale
    outcome = scenario_options.run(
        "provision",
        storage_class,
        [
            {
                "name": "pvcs",
                "tool": "pvc-provision",
                "pvcs": scale["pvcs_per_namespace"],
                "size": "64M",
                "pace": scale["provision_pace"],
            }
        ],
        scale["provision_sweep"],
    )
    ran = [r for r in outcome.results if r.summary["state"] == "done"]
    assert ran, "no step ran to its end"
    for result in ran:
        expected = result.summary["concurrency"] * scale["pvcs_per_namespace"]
        bound = [e for e in result.events if e.event == "pvc-bound"]
        ready = [e for e in result.events if e.event == "pod-ready"]
        assert len(bound) == len(ready) == expected
        assert all(e.seconds is not None and e.seconds >= 0 for e in bound + ready)
        figures = result.summary["provision"]["pvc-bound"]
        assert figures["p50_s"] <= figures["p95_s"] <= figures["max_s"]


def test_single_pvc_create_to_bound(scenario_options, storage_class, benchmark):
    """One PVC (and the pod a WaitForFirstConsumer class needs) from create to Bound."""
    from kubernetes import client, watch
    from kubernetes.client.exceptions import ApiException

    core = client.CoreV1Api(api_client(scenario_options.kubeconfig))
    namespace = k8s_name(f"volperf-{scenario_options.campaign}-bench-{storage_class}")
    core.create_namespace(
        {
            "metadata": {
                "name": namespace,
                "labels": {"volperf-campaign": k8s_name(scenario_options.campaign)},
            }
        }
    )
    rounds = iter(range(1000))

    def create_and_bind() -> float:
        name = f"pvc-{next(rounds):03d}"
        started = time.monotonic()
        core.create_namespaced_persistent_volume_claim(
            namespace,
            {
                "metadata": {"name": name},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": storage_class,
                    "resources": {"requests": {"storage": "64Mi"}},
                },
            },
        )
        core.create_namespaced_pod(
            namespace,
            {
                "metadata": {"name": name},
                "spec": {
                    "terminationGracePeriodSeconds": 0,
                    "containers": [
                        {
                            "name": "idle",
                            "image": scenario_options.fio_image,
                            "imagePullPolicy": scenario_options.image_pull_policy,
                            "command": ["/bin/sh", "-c", "sleep 3600"],
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                        }
                    ],
                    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": name}}],
                },
            },
        )
        deadline = started + scenario_options.pod_timeout
        while (left := deadline - time.monotonic()) > 0:
            claims = watch.Watch().stream(
                core.list_namespaced_persistent_volume_claim,
                namespace,
                field_selector=f"metadata.name={name}",
                timeout_seconds=max(1, round(left)),
            )
            try:
                for event in claims:
                    if event["object"].status.phase == "Bound":
                        return time.monotonic() - started
            except ApiException as exc:
                # 504 "Too large resource version": the API server's watch cache is behind
                # its store (a busy machine); 410: the version is gone. Watch again.
                if exc.status not in (410, 504):
                    raise
        raise AssertionError(
            f"PVC {namespace}/{name} not Bound within {scenario_options.pod_timeout} s"
        )

    try:
        seconds = benchmark.pedantic(create_and_bind, rounds=3, iterations=1)
        assert seconds > 0
    finally:
        assert delete_namespace(core, namespace, 300), f"namespace {namespace} left"
