"""The command line (`volperf`) and its terminal display."""
