#!/usr/bin/env bash
# The main job: set everything up, then run the `quick` profile on a fresh temporary
# directory on this machine's disk (under /var/tmp, which is on disk where /tmp may be
# tmpfs). Results land in ./results/<campaign>/ and become a page of the documentation,
# built into doc/build/html; the temporary directory is removed.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
directory=$(mktemp -d "${VOLPERF_TMP:-/var/tmp}/volperf-quick.XXXXXX")
trap 'rm -rf "$directory"' EXIT
name="quick-$(date +%Y%m%d-%H%M%S)"
.venv/bin/volperf run local --dir "$directory" --profile quick --name "$name"
.venv/bin/volperf report "results/$name" --build doc/build/html
