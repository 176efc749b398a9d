#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine or an existing checkout: installs
# what is missing (tools/setup.sh) and a Go >= 1.23 for the Kubernetes testbed's, the
# YCSB client's and NATS's builds when there is none (tools/go-toolchain.sh; NATS's build
# fetches Go 1.26 itself), then lint and every test, real fio included.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
echo "volperf test: Go for the Kubernetes testbed, YCSB and NATS: $(tools/go-toolchain.sh)"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m pytest tests --durations=40 "$@"
