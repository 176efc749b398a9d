"""Sphinx configuration of the volperf documentation.

Every build regenerates the pages of the reference campaigns kept in results/reference/,
so their tables always come from their data, never from hand-edited RST.
"""

from pathlib import Path

import harness
from harness.core.store import CampaignStore
from harness.report.render import write_report

project = "volperf"
author = "volperf developers"
release = harness.__version__
version = release
extensions: list[str] = []
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"page_width": "1200px"}

_source = Path(__file__).parent
for _campaign in sorted((_source.parents[1] / "results" / "reference").glob("*/campaign.yaml")):
    write_report(CampaignStore(_campaign.parent), _source)
