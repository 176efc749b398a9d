# shellcheck shell=sh
# Sourced by the application workloads' scripts (git.sh, build.sh): their shared way of
# timing. `begin WORKDIR` makes the work folder; `phase ITERATION NAME COMMAND...` runs the
# command timed from /proc/uptime (10 ms), ends it with WORKDIR's file system synced (what
# it wrote has reached storage) and prints one line:
#   volperf-app iteration=I phase=P start=S end=E seconds=T status=ok|failed
# A failed phase also prints its command's last two output lines, the first line of its
# output that says a write failed if those do not, and says when WORKDIR's file system has
# under 1 MiB free, or a write failed with no reason given (tools do not always say ENOSPC:
# GNU tar writes "Wrote only 8192 of 10240 bytes", git "unable to write file"):
#   volperf-app error iteration=I phase=P: LINE / LINE[; its file system is out of space ...]
# `iterate ITERATIONS FUNCTION` calls FUNCTION 1, 2 … (each an iteration's phases joined
# by &&, so a failed phase ends its iteration), then ends the output with
#   volperf-app done iterations=N
# (without that line the run was stopped) and returns 1 if any phase failed.
# `await_server PID LOG WHAT PHASE CHECK...` waits (up to 30 s) until CHECK succeeds; if
# the server PID ends first, or never answers, it prints the server's last two log lines
# as PHASE's error of iteration 1 and exits 2:
#   volperf-app error iteration=1 phase=P: WHAT did not start: LINE / LINE

now() { read -r up _ </proc/uptime && echo "$up"; }

begin() {
    work=$1
    log=${TMPDIR:-/tmp}/volperf-app-phase.$$  # not in work: its file system may be full
    failed=0
    mkdir -p "$work" || exit 2
}

phase() {
    iteration=$1 name=$2
    shift 2
    start=$(now)
    if "$@" >"$log" 2>&1 && sync -f "$work"; then status=ok; else status=failed; fi
    end=$(now)
    seconds=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
    echo "volperf-app iteration=$iteration phase=$name start=$start end=$end seconds=$seconds status=$status"
    if [ "$status" = failed ]; then
        said=$(tail -n 2 "$log" | awk 'NR > 1 { printf " / " } { printf "%s", $0 }')
        # the first line of the tool's output that says a write failed, where its last two
        # lines do not show it (git's failed checkout ends with advice): ENOSPC said, or a
        # failed write with no reason given (git's "unable to write file", GNU tar's short
        # write "Wrote only 8192 of 10240 bytes")
        wrote=$(grep -m 1 -i -e "no space left on device" -e "unable to write file" \
            -e "wrote only [0-9]* of [0-9]* bytes" "$log")
        if [ -n "$wrote" ] && ! printf '%s\n' "$said" | grep -qF -- "$wrote"; then
            said="$said; $wrote"
        fi
        free=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
        if [ "${free:-0}" -lt 1024 ]; then
            said="$said; its file system is out of space (${free:-0} KiB free)"
        elif [ -n "$wrote" ] && ! printf '%s\n' "$wrote" | grep -qi "no space left on device"; then
            # consumers beside it may have freed room since (seen in a suite run: 4 git
            # clones at once on 24 MiB: one's checkout failed, and df found room again)
            said="$said; a write failed with no reason given, as when its file system runs out of space (${free} KiB free since)"
        fi
        echo "volperf-app error iteration=$iteration phase=$name: $said"
        failed=1
        return 1
    fi
}

await_server() {
    server=$1 server_log=$2 what=$3 first=$4
    shift 4
    waited=0
    until "$@"; do
        if ! kill -0 "$server" 2>/dev/null || [ "$waited" -ge 600 ]; then
            said=$(tail -n 2 "$server_log" | awk 'NR > 1 { printf " / " } { printf "%s", $0 }')
            echo "volperf-app error iteration=1 phase=$first: $what did not start: $said"
            exit 2
        fi
        sleep 0.05
        waited=$((waited + 1))
    done
}

iterate() {
    i=1
    while [ "$i" -le "$1" ]; do
        "$2" "$i"
        i=$((i + 1))
    done
    rm -f "$log"
    echo "volperf-app done iterations=$1"
    return "$failed"
}
