#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine or an existing checkout: installs
# what is missing (tools/setup.sh) and a Go >= 1.23 for the Kubernetes testbed's, the
# YCSB client's and NATS's builds when there is none (tools/go-toolchain.sh; NATS's build
# fetches Go 1.26 itself), then lint and every test, real fio included.
#
# The tests run side by side (pytest-xdist, tests/suite_groups.py): each testbed's tests
# on a worker of their own, the tests marked quiet on one more (each runs while no other
# test does), the tests that need none of that on the rest. The testbeds' cold builds (the
# Kubernetes programs and images, the OpenStack services' venv) start here, before lint,
# and the tests that need them wait for them. VOLPERF_TEST_WORKERS sets the number of
# workers (default 5: the two testbeds' and the quiet one wait most of the time, two more
# keep this project's 2 cores busy). At the end: the 20 slowest tests and the wall time
# each group took.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
echo "volperf test: Go for the Kubernetes testbed, YCSB and NATS: $(tools/go-toolchain.sh)"

builds=$(mktemp -d "${TMPDIR:-/tmp}/volperf-test-builds.XXXXXX")
# the suite's quiet lock (tests/suite_groups.py), held shared while they build: no test
# marked quiet runs beside a build
locks=${VOLPERF_TEST_LOCKS:-${TMPDIR:-/tmp}/volperf-test-locks}
mkdir -p "$locks" && chmod 1777 "$locks"
declare -A build_pids=()
for bed in k8s openstack; do
  # a process group of its own, so that what it runs (go, pip) stops with it; its session
  # is its own CFS autogroup, given the weight of nice -10 (where the kernel lets it): the
  # testbeds' groups of tests wait for these builds, the longest chain in a cold run
  # shellcheck disable=SC2016  # $@ expands in the inner shell
  setsid sh -c 'echo -10 2>/dev/null >/proc/self/autogroup; exec "$@"' build \
    flock --shared "$locks/quiet.lock" .venv/bin/volperf testbed build "$bed" \
    >"$builds/$bed.log" 2>&1 &
  build_pids[$bed]=$!
done
# shellcheck disable=SC2317  # called by the trap
stop_builds() {
  for pid in "${build_pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  rm -rf "$builds"
}
trap stop_builds EXIT
echo "volperf test: building the k8s and openstack testbeds' programs in the background (logs in $builds)"

.venv/bin/ruff check .
.venv/bin/ruff format --check .
status=0
# the suite's temporary files in a root of its own under $TMPDIR: the database tests give
# its folders o+x for the servers' users (mysql, postgres), and any other pytest run of
# this machine (a nested one, another checkout's) makes pytest's default root,
# pytest-of-USER, private again (0700) while they run (CI of 2026-12-06: PostgreSQL
# restarted by a test could not read its pg_hba.conf). pytest empties it as a run starts.
.venv/bin/python -m pytest tests -n "${VOLPERF_TEST_WORKERS:-5}" --dist loadgroup \
  --basetemp "${TMPDIR:-/tmp}/volperf-suite" --durations=20 "$@" || status=$?
for bed in "${!build_pids[@]}"; do
  if ! kill -0 "${build_pids[$bed]}" 2>/dev/null && ! wait "${build_pids[$bed]}"; then
    echo "volperf test: the $bed testbed's background build failed (the tests built it again):"
    tail -n 5 "$builds/$bed.log"
  fi
done
exit $status
