#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine or an existing checkout: installs
# what is missing (tools/setup.sh), then lint and every test, real fio included.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m pytest tests "$@"
