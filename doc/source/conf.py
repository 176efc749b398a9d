"""Sphinx configuration of the volperf documentation.

Every build regenerates the pages of the reference campaigns kept in results/reference/,
of the campaigns a study names in results/<study>/pages.yaml and of the comparisons kept
in results/<study>/comparison.yaml (results/storage-types/),
so their tables always come from their data, never from hand-edited RST, and copies the
scale benchmarks' tables from results/scale/ into _scale/ for the Scale page (where the
sources are built away from the checkout, the page says those files are not there), with
which code measured them and a warning where that code has changed since.
"""

import shutil
import sys
from pathlib import Path

import harness
from harness.core.store import CampaignStore
from harness.report.comparison import KEPT, write_kept_comparison
from harness.report.render import KEPT_PAGES, write_kept_pages, write_report
from harness.report.scale import draw_scale_plots
from harness.report.scale_provenance import write_scale_provenance

project = "volperf"
author = "volperf developers"
release = harness.__version__
version = release
# the command reference from the click commands; the spec reference (_ext/volperf_spec.py)
# from the JSON Schema of the models that check specs
sys.path.insert(0, str(Path(__file__).parent / "_ext"))
extensions = ["sphinx_click", "volperf_spec"]
exclude_patterns = ["_build"]
# furo, a maintained theme: a wide table scrolls inside itself (furo wraps each table in a
# container that scrolls sideways) rather than being cut off at the body's edge
html_theme = "furo"
# quotes and ellipses made typographic, not dashes: a command's --option stays as typed
smartquotes_action = "qe"
html_title = f"volperf {release}"

_source = Path(__file__).parent
_scale, _kept = _source / "_scale", _source.parents[1] / "results" / "scale"
_scale.mkdir(exist_ok=True)
_tables = {
    "k8s-namespaces/comparison.csv": "comparison.csv",
    "k8s-namespaces/before-after-100.csv": "before-after-100.csv",
    "rally-sweep/comparison.csv": "rally-sweep.csv",
    "rally-sweep/failures.csv": "rally-failures.csv",
    "heat-vms/heat-vms.csv": "heat-vms.csv",
    "heat-capacity/heat-capacity.csv": "heat-capacity.csv",
}
for _name, _copy in _tables.items():
    if (_kept / _name).exists():
        shutil.copy(_kept / _name, _scale / _copy)
    else:
        (_scale / _copy).write_text(f"not beside these sources\nresults/scale/{_name}\n")
# the comparisons drawn (harness/report/scale.py), each above its table
draw_scale_plots(_kept, _scale)
# which code measured each section's figures; a warning where it has changed since
write_scale_provenance(_kept, _scale)
if (_kept / "hosts-fleet-64.json").exists():
    shutil.copy(_kept / "hosts-fleet-64.json", _scale)
else:
    (_scale / "hosts-fleet-64.json").write_text('{"not beside these sources": true}\n')
for _campaign in sorted((_source.parents[1] / "results" / "reference").glob("*/campaign.yaml")):
    write_report(CampaignStore(_campaign.parent), _source)
for _kept in sorted((_source.parents[1] / "results").glob(f"*/{KEPT_PAGES}")):
    write_kept_pages(_kept.parent, _source)
for _kept in sorted((_source.parents[1] / "results").glob(f"*/{KEPT}")):
    write_kept_comparison(_kept.parent, _source)
