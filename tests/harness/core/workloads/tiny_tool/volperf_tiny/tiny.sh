#!/bin/sh
# The tests' own workload tool (volperf_tiny): run by sh with phases.sh beside it.
#
#   tiny.sh generate SOURCE BLOCKS          a file of BLOCKS random 4 KiB blocks
#   tiny.sh run SOURCE WORKDIR ITERATIONS   each iteration: copy, read, rm
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/phases.sh"

generate() {
    dd if=/dev/urandom of="$1" bs=4096 count="$2" status=none || exit 2
    echo "volperf-app source blocks=$2"
}

one_iteration() {
    phase "$1" copy cp "$source" "$work/copy" &&
        phase "$1" read sh -c "cat '$work/copy' >/dev/null" &&
        phase "$1" rm rm -f "$work/copy"
}

run() {
    source=$1
    begin "$2"
    iterate "$3" one_iteration
}

case "${1:-}" in
generate) shift && generate "$@" ;;
run) shift && run "$@" ;;
*) echo "usage: $0 generate SOURCE BLOCKS | run SOURCE WORKDIR ITERATIONS" >&2 && exit 2 ;;
esac
