"""A compile-like build in every project, as the seed study's Jenkins jobs loaded their
volumes: each project a namespace with a PVC and a pod that unpacks a generated source
tree onto it, builds it with make -j (each job reads a source file and its header, writes
and fsyncs an object; no compiler) and removes it, each phase timed; failed builds
counted; the projects grow until the class gives out."""

from __future__ import annotations


def test_build_projects(scenario_options, storage_class):
    scale = scenario_options.scale
    workload = {
        "tool": "build",
        "source": scale["build_source"],
        "jobs": scale["build_jobs"],
        "iterations": scale["build_iterations"],
    }
    outcome = scenario_options.run_projects("build", storage_class, workload)
    for result in outcome.results:
        app = result.summary.get("app") or {}
        assert app.get("build_s") is None or 0 < app["build_s"] <= app["build_s_max"]
