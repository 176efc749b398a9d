"""`python -m harness.cli`: the volperf command."""

from harness.cli.main import main

main()
