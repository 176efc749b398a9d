#!/bin/sh
# volperf's git workload, the seed study's test-git.sh on a generated repository (no
# network): run by sh on the local target and in each project's pod on Kubernetes.
#
#   git.sh generate ORIGIN FILES SIZE COMMITS   a bare repository made by git fast-import
#   git.sh run ORIGIN WORKDIR ITERATIONS        each iteration: clone, tar, untar, rm
#
# Phases timed and printed as phases.sh says; a failed phase ends its iteration, the run
# goes on with the next one and exits 1 at its end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/phases.sh"

generate() {
    origin=$1 files=$2 size=$3 commits=$4
    rm -rf "$origin" && git init --quiet --bare --template= --initial-branch=main "$origin" || exit 2
    awk -v mode=git -v files="$files" -v size="$size" -v commits="$commits" -f "$here/tree.awk" |
        git -C "$origin" fast-import --quiet || exit 2
    git -C "$origin" gc --quiet || exit 2
    packed=$(git -C "$origin" count-objects -v | awk '$1 == "size-pack:" { print $2 }')
    echo "volperf-app source files=$files size=$size commits=$commits pack_kib=$packed"
}

one_iteration() {
    rm -rf "$work/clone" "$work/untar" "$work/clone.tar"
    phase "$1" clone git clone --quiet --no-local --template= "file://$origin" "$work/clone" &&
        phase "$1" tar tar -cf "$work/clone.tar" -C "$work" clone &&
        phase "$1" untar sh -c "mkdir '$work/untar' && tar -xf '$work/clone.tar' -C '$work/untar'" &&
        phase "$1" rm rm -rf "$work/clone" "$work/untar" "$work/clone.tar"
}

run() {
    origin=$1
    begin "$2"
    iterate "$3" one_iteration
}

case "${1:-}" in
generate) shift && generate "$@" ;;
run) shift && run "$@" ;;
*) echo "usage: $0 generate ORIGIN FILES SIZE COMMITS | run ORIGIN WORKDIR ITERATIONS" >&2 && exit 2 ;;
esac
