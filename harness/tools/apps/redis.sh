#!/bin/sh
# volperf's redis workload: a redis-server of its own with its data and append-only file in
# WORKDIR, under YCSB's load and run phases (volperf-ycsb: go-ycsb's core workload and
# measurements); run by sh on the local target and in each project's pod on Kubernetes.
#
#   redis.sh generate PROPS WORKLOAD RECORDS OPERATIONS FIELD_LENGTH
#       the YCSB properties of core workload WORKLOAD (a, b, c or f)
#   redis.sh run PROPS WORKDIR ITERATIONS YCSB APPENDFSYNC THREADS
#       each iteration: the database emptied (untimed), then load and run
#
# Phases timed and printed as phases.sh says; after each, go-ycsb's measurements as one
# line of its JSON:
#   volperf-app measurements iteration=I phase=P [{"Operation":"TOTAL","OPS":"9665.1",...}]
# The server is shut down at the end (its append-only file stays in WORKDIR/redis).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/phases.sh"

generate() {
    props=$1 letter=$2 records=$3 operations=$4 length=$5
    case "$letter" in
    a) read=0.5 update=0.5 rmw=0 ;;
    b) read=0.95 update=0.05 rmw=0 ;;
    c) read=1 update=0 rmw=0 ;;
    f) read=0.5 update=0 rmw=0.5 ;;
    *) echo "redis.sh: unknown YCSB workload $letter" >&2 && exit 2 ;;
    esac
    mkdir -p "$(dirname "$props")" || exit 2
    cat >"$props" <<PROPS || exit 2
workload=core
recordcount=$records
operationcount=$operations
fieldcount=10
fieldlength=$length
readallfields=true
readproportion=$read
updateproportion=$update
readmodifywriteproportion=$rmw
scanproportion=0
insertproportion=0
requestdistribution=zipfian
PROPS
    echo "volperf-app source records=$records operations=$operations field_length=$length"
}

cli() { redis-cli -s "$socket" "$@"; }

measured() {
    rm -f "$measures"
    phase "$1" "$2" "$ycsb" "$2" -P "$props" -p threadcount="$threads" \
        -p redis.network=unix -p redis.addr="$socket" \
        -p outputstyle=json -p measurement.output_file="$measures"
    ok=$?
    if [ -s "$measures" ]; then
        echo "volperf-app measurements iteration=$1 phase=$2 $(cat "$measures")"
    fi
    return "$ok"
}

one_iteration() {
    cli flushall >/dev/null && measured "$1" load && measured "$1" run
}

run() {
    props=$1 ycsb=$4 appendfsync=$5 threads=$6
    begin "$2"
    scratch=${TMPDIR:-/tmp}
    socket=$scratch/volperf-redis.$$.sock
    measures=$scratch/volperf-ycsb.$$.json
    mkdir -p "$work/redis" || exit 2
    redis-server --port 0 --unixsocket "$socket" --dir "$work/redis" --appendonly yes \
        --appendfsync "$appendfsync" --save "" --logfile "$scratch/volperf-redis.$$.log" &
    server=$!
    waited=0
    until [ "$(cli ping 2>/dev/null)" = PONG ]; do
        if ! kill -0 "$server" 2>/dev/null || [ "$waited" -ge 600 ]; then
            said=$(tail -n 2 "$scratch/volperf-redis.$$.log" | awk 'NR > 1 { printf " / " } { printf "%s", $0 }')
            echo "volperf-app error iteration=1 phase=load: redis-server did not start: $said"
            exit 2
        fi
        sleep 0.05
        waited=$((waited + 1))
    done
    iterate "$3" one_iteration
    failed_any=$?
    cli shutdown >/dev/null 2>&1
    wait "$server"
    rm -f "$measures" "$scratch/volperf-redis.$$.log"
    return "$failed_any"
}

case "${1:-}" in
generate) shift && generate "$@" ;;
run) shift && run "$@" ;;
*) echo "usage: $0 generate PROPS WORKLOAD RECORDS OPERATIONS FIELD_LENGTH | run PROPS WORKDIR ITERATIONS YCSB APPENDFSYNC THREADS" >&2 && exit 2 ;;
esac
