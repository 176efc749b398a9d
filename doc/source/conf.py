"""Sphinx configuration of the volperf documentation.

Every build regenerates the pages of the reference campaigns kept in results/reference/,
so their tables always come from their data, never from hand-edited RST.
"""

import sys
from pathlib import Path

import harness
from harness.core.store import CampaignStore
from harness.report.render import write_report

project = "volperf"
author = "volperf developers"
release = harness.__version__
version = release
# the command reference from the click commands; the spec reference (_ext/volperf_spec.py)
# from the JSON Schema of the models that check specs
sys.path.insert(0, str(Path(__file__).parent / "_ext"))
extensions = ["sphinx_click", "volperf_spec"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"page_width": "1200px"}

_source = Path(__file__).parent
for _campaign in sorted((_source.parents[1] / "results" / "reference").glob("*/campaign.yaml")):
    write_report(CampaignStore(_campaign.parent), _source)
