#!/bin/sh
# volperf's build workload, compile-like I/O on the volume under test as a CI job's build
# does it: many small files written, read and fsynced, in parallel. No compiler: each of
# make's jobs reads a source file and the header it includes, writes an object (gzip) and
# fsyncs it; then an archive per folder and a final link, each fsynced.
#
#   build.sh generate SOURCE FILES SIZE   SOURCE/tree.tar: a source tree and its Makefile
#   build.sh run SOURCE WORKDIR ITERATIONS JOBS
#                                         each iteration: unpack, build (make -j JOBS), clean
#
# Phases timed and printed as phases.sh says; a failed phase (a failed build) ends its
# iteration, the run goes on with the next one and exits 1 at its end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/phases.sh"

generate() {
    source=$1 files=$2 size=$3
    rm -rf "$source" && mkdir -p "$source/tree" || exit 2
    (cd "$source/tree" && awk -v mode=build -v files="$files" -v size="$size" -f "$here/tree.awk") || exit 2
    tar -cf "$source/tree.tar" -C "$source/tree" . && rm -rf "$source/tree" || exit 2
    packed=$(du -k "$source/tree.tar" | awk '{ print $1 }')
    echo "volperf-app source files=$files size=$size tar_kib=$packed"
}

one_iteration() {
    rm -rf "$work/tree"
    phase "$1" unpack sh -c "mkdir '$work/tree' && tar -xf '$source/tree.tar' -C '$work/tree'" &&
        phase "$1" build make -s -C "$work/tree" -j "$jobs" &&
        phase "$1" clean rm -rf "$work/tree"
}

run() {
    source=$1 jobs=$4
    begin "$2"
    iterate "$3" one_iteration
}

case "${1:-}" in
generate) shift && generate "$@" ;;
run) shift && run "$@" ;;
*) echo "usage: $0 generate SOURCE FILES SIZE | run SOURCE WORKDIR ITERATIONS JOBS" >&2 && exit 2 ;;
esac
