"""`python -m harness.cli`: the volperf command."""

from harness.cli.entry import run

run()
