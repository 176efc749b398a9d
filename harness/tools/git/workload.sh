#!/bin/sh
# volperf's git workload, the seed study's test-git.sh on a generated repository (no
# network): run by sh on the local target and in each project's pod on Kubernetes.
#
#   workload.sh generate ORIGIN FILES SIZE COMMITS   a bare repository made by git fast-import
#   workload.sh run ORIGIN WORKDIR ITERATIONS        each iteration: clone, tar, untar, rm
#
# Every phase is timed from /proc/uptime (10 ms) and ends with WORKDIR's file system
# synced, so what it wrote has reached storage; one line per phase:
#   volperf-git iteration=I phase=P start=S end=E seconds=T status=ok|failed
# A failed phase quotes its command's last two output lines (and says when WORKDIR's file
# system has under 1 MiB free) and ends the iteration; the run goes on with the next one
# and exits 1 at its end.
set -u
here=$(dirname "$0")
now() { read -r up _ </proc/uptime && echo "$up"; }

generate() {
    origin=$1 files=$2 size=$3 commits=$4
    rm -rf "$origin" && git init --quiet --bare --template= --initial-branch=main "$origin" || exit 2
    awk -v files="$files" -v size="$size" -v commits="$commits" -f "$here/repo.awk" |
        git -C "$origin" fast-import --quiet || exit 2
    git -C "$origin" gc --quiet || exit 2
    objects=$(git -C "$origin" count-objects -v | awk '$1 == "size-pack:" { print $2 }')
    echo "volperf-git repo files=$files size=$size commits=$commits pack_kib=$objects"
}

phase() {  # phase ITERATION NAME COMMAND...: timed, synced, one line
    iteration=$1 name=$2
    shift 2
    start=$(now)
    if "$@" >"$log" 2>&1 && sync -f "$work"; then status=ok; else status=failed; fi
    end=$(now)
    seconds=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
    echo "volperf-git iteration=$iteration phase=$name start=$start end=$end seconds=$seconds status=$status"
    if [ "$status" = failed ]; then
        said=$(tail -n 2 "$log" | awk 'NR > 1 { printf " / " } { printf "%s", $0 }')
        # tools do not always say ENOSPC (GNU tar: "Wrote only 8192 of 10240 bytes")
        free=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
        if [ "${free:-0}" -lt 1024 ]; then
            said="$said; its file system is out of space (${free:-0} KiB free)"
        fi
        echo "volperf-git error iteration=$iteration phase=$name: $said"
        return 1
    fi
}

run() {
    origin=$1 work=$2 iterations=$3
    log=${TMPDIR:-/tmp}/volperf-git-phase.$$  # not in work: its file system may be full
    mkdir -p "$work" || exit 2
    failed=0
    i=1
    while [ "$i" -le "$iterations" ]; do
        rm -rf "$work/clone" "$work/untar" "$work/clone.tar"
        phase "$i" clone git clone --quiet --no-local --template= "file://$origin" "$work/clone" &&
            phase "$i" tar tar -cf "$work/clone.tar" -C "$work" clone &&
            phase "$i" untar sh -c "mkdir '$work/untar' && tar -xf '$work/clone.tar' -C '$work/untar'" &&
            phase "$i" rm rm -rf "$work/clone" "$work/untar" "$work/clone.tar" ||
            failed=1
        i=$((i + 1))
    done
    rm -f "$log"
    echo "volperf-git done iterations=$iterations"
    return "$failed"
}

case "${1:-}" in
generate) shift && generate "$@" ;;
run) shift && run "$@" ;;
*) echo "usage: $0 generate ORIGIN FILES SIZE COMMITS | run ORIGIN WORKDIR ITERATIONS" >&2 && exit 2 ;;
esac
