"""The seed study's git workload on the class: each project a namespace with a PVC and a
pod that clones a generated repository onto it, then tars, untars and removes it, each
phase timed (git.sh's own lines); the projects grow until the class gives out (no
volume for a project, a tenth of them failing, or binding over 600 s)."""

from __future__ import annotations


def test_git_projects(scenario_options, storage_class):
    scale = scenario_options.scale
    outcome = scenario_options.run(
        "git",
        storage_class,
        [
            {
                "name": "git",
                "tool": "git",
                "repo": scale["git_repo"],
                "iterations": scale["git_iterations"],
                "pace": scale["app_pace"],
            }
        ],
        scale["app_sweep"],
    )
    ran = [r for r in outcome.results if r.summary["state"] == "done"]
    assert ran, "no step ran to its end"
    for result in ran:
        app = result.summary["app"]
        assert app["tool"] == "git" and app["failed"] == 0
        assert app["iterations"] == result.summary["concurrency"] * scale["git_iterations"]
        assert 0 < app["clone_s"] <= app["clone_s_max"]
