"""Sphinx configuration of the volperf documentation."""

import harness

project = "volperf"
author = "volperf developers"
release = harness.__version__
version = release
extensions = ["sphinx.ext.autosectionlabel"]
autosectionlabel_prefix_document = True
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path: list[str] = []
