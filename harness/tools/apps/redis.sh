#!/bin/sh
# volperf's redis workload: a redis-server of its own with its data and append-only file in
# WORKDIR, under YCSB's load and run phases (volperf-ycsb: go-ycsb's core workload and
# measurements); run by sh on the local target and in each project's pod on Kubernetes.
#
#   redis.sh generate PROPS WORKLOAD RECORDS OPERATIONS FIELD_LENGTH
#       the YCSB properties of core workload WORKLOAD (a, b, c or f)
#   redis.sh run PROPS WORKDIR ITERATIONS YCSB APPENDFSYNC THREADS [HOST:PORT]
#       each iteration: load (the database emptied, then YCSB's load) and run; against a
#       redis-server of its own with its data in WORKDIR/redis, on a Unix socket, or
#       against the server at HOST:PORT (in another pod; APPENDFSYNC is then its own)
#   redis.sh serve DATADIR APPENDFSYNC PORT
#       a redis-server with its data in DATADIR, on TCP PORT (in a pod of its own)
#
# Phases timed and printed as phases.sh says; after each, go-ycsb's measurements as one
# line of its JSON:
#   volperf-app measurements iteration=I phase=P [{"Operation":"TOTAL","OPS":"9665.1",...}]
# A server of its own is shut down at the end (its append-only file stays in WORKDIR/redis).
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

# Either server appends each write to its file in its data folder and fsyncs it as
# APPENDFSYNC says, and takes no snapshots.
serve() {
    mkdir -p "$1" || exit 2
    exec redis-server --appendonly yes --appendfsync "$2" --save "" --dir "$1" \
        --port "$3" --bind 0.0.0.0 --protected-mode no
}

cli() {
    if [ -n "$address" ]; then
        redis-cli -h "${address%:*}" -p "${address##*:}" "$@"
    else
        redis-cli -s "$socket" "$@"
    fi
}

# a phase's commands: load empties the database first (its records, a past iteration's)
ycsb() {
    if [ "$1" = load ]; then cli flushall >/dev/null || return 1; fi
    if [ -n "$address" ]; then network=tcp to=$address; else network=unix to=$socket; fi
    "$client" "$1" -P "$props" -p threadcount="$threads" \
        -p redis.network="$network" -p redis.addr="$to" \
        -p outputstyle=json -p measurement.output_file="$measures"
}

measured() {
    rm -f "$measures"
    phase "$1" "$2" ycsb "$2"
    ok=$?
    if [ -s "$measures" ]; then
        echo "volperf-app measurements iteration=$1 phase=$2 $(cat "$measures")"
    fi
    return "$ok"
}

one_iteration() {
    measured "$1" load && measured "$1" run
}

own_server() {
    mkdir -p "$work/redis" || exit 2
    redis-server --appendonly yes --appendfsync "$appendfsync" --save "" --dir "$work/redis" \
        --port 0 --unixsocket "$socket" >"$scratch/volperf-redis.$$.log" 2>&1 &
    pid=$!
    await_server "$pid" "$scratch/volperf-redis.$$.log" redis-server load answers
}

answers() { [ "$(cli ping 2>/dev/null)" = PONG ]; }

run() {
    props=$1 client=$4 appendfsync=$5 threads=$6 address=${7:-}
    begin "$2"
    scratch=${TMPDIR:-/tmp}
    socket=$scratch/volperf-redis.$$.sock
    measures=$scratch/volperf-ycsb.$$.json
    trap 'rm -f "$measures" "$scratch/volperf-redis.$$.log"' EXIT
    [ -n "$address" ] || own_server
    iterate "$3" one_iteration
    failed_any=$?
    if [ -z "$address" ]; then
        cli shutdown >/dev/null 2>&1
        wait "$pid"
    fi
    return "$failed_any"
}

case "${1:-}" in
generate) shift && generate "$@" ;;
run) shift && run "$@" ;;
serve) shift && serve "$@" ;;
*) echo "usage: $0 generate PROPS WORKLOAD RECORDS OPERATIONS FIELD_LENGTH | run PROPS WORKDIR ITERATIONS YCSB APPENDFSYNC THREADS [HOST:PORT] | serve DATADIR APPENDFSYNC PORT" >&2 && exit 2 ;;
esac
