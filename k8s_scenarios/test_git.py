"""The seed study's git workload on the class: each project a namespace with a PVC and a
pod that clones a generated repository onto it, then tars, untars and removes it, each
phase timed (git.sh's own lines); the projects grow until the class gives out (no volume
for a project, a tenth of them failing, or binding over 600 s)."""

from __future__ import annotations


def test_git_projects(scenario_options, storage_class):
    scale = scenario_options.scale
    workload = {"tool": "git", "repo": scale["git_repo"], "iterations": scale["git_iterations"]}
    outcome = scenario_options.run_projects("git", storage_class, workload)
    for result in outcome.results:
        app = result.summary.get("app") or {}
        assert app.get("clone_s") is None or 0 < app["clone_s"] <= app["clone_s_max"]
