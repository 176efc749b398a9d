"""A compile-like build in every project, as the seed study's Jenkins jobs loaded their
volumes: each project a namespace with a PVC and a pod that unpacks a generated source
tree onto it, builds it with make -j (each job reads a source file and its header, writes
and fsyncs an object; no compiler) and removes it, each phase timed; failed builds
counted; the projects grow until the class gives out."""

from __future__ import annotations


def test_build_projects(scenario_options, storage_class):
    scale = scenario_options.scale
    outcome = scenario_options.run(
        "build",
        storage_class,
        [
            {
                "name": "build",
                "tool": "build",
                "source": scale["build_source"],
                "jobs": scale["build_jobs"],
                "iterations": scale["build_iterations"],
                "pace": scale["app_pace"],
            }
        ],
        scale["app_sweep"],
    )
    ran = [r for r in outcome.results if r.summary["state"] == "done"]
    assert ran, "no step ran to its end"
    for result in ran:
        app = result.summary["app"]
        assert app["tool"] == "build" and app["failed"] == 0
        assert app["iterations"] == result.summary["concurrency"] * scale["build_iterations"]
        assert 0 < app["build_s"] <= app["build_s_max"]
