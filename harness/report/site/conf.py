"""Sphinx configuration of a volperf results site: `volperf report CAMPAIGN --build DIR`
copies this project to DIR.source on first use and adds each campaign's page to it."""

project = "volperf results"
author = "volperf"
extensions: list[str] = []
exclude_patterns = ["_build"]
# the docs' own theme (doc/source/conf.py): wide tables scroll inside themselves
html_theme = "furo"
# quotes and ellipses made typographic, not dashes: a command's --option stays as typed
smartquotes_action = "qe"
