#!/bin/sh
# volperf's broker workload: a NATS server of its own (nats-server with JetStream, its
# stream's file store in WORKDIR, fsynced as SYNC says) under NATS's own benchmark client
# (`nats bench`, natscli): producers publish persistent messages, consumers read and
# acknowledge them; run by sh on the local target and in each project's pod on Kubernetes.
#
#   broker.sh generate PARAMS MESSAGES SIZE
#       the run's parameters: MESSAGES messages of SIZE bytes per iteration
#   broker.sh run PARAMS WORKDIR ITERATIONS NATSDIR SYNC CLIENTS [HOST:PORT]
#       each iteration: publish (the stream made anew, then CLIENTS publishers with
#       asynchronous acknowledgements) and consume (CLIENTS consumers of a durable
#       consumer, each message acknowledged); against a nats-server of its own with its
#       store in WORKDIR/broker on a loopback port, or the one at HOST:PORT (in another
#       pod; SYNC is then its own). NATSDIR holds nats-server and nats.
#   broker.sh serve DATADIR SYNC PORT
#       a nats-server with its store in DATADIR, on TCP PORT (in a pod of its own)
#
# SYNC: always (every write fsynced before it is acknowledged) or default (NATS's own:
# every 2 minutes). Phases timed and printed as phases.sh says; after each, nats bench's
# figures as it printed them, on one line:
#   volperf-app bench iteration=I phase=P messages=M NATS JetStream ... stats: 4,792 msgs/sec ...
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/phases.sh"

STREAM=volperf
SUBJECT=volperf.bench
CONSUMER=volperf

generate() {
    mkdir -p "$(dirname "$1")" || exit 2
    echo "messages=$2 size=$3" >"$1" || exit 2
    echo "volperf-app source messages=$2 size=$3"
}

config() { # STORE LISTEN SYNC
    if [ "$3" = always ]; then sync="sync_interval: always"; else sync=""; fi
    printf 'listen: "%s"\njetstream {\n  store_dir: "%s"\n  %s\n}\n' "$2" "$1" "$sync"
}

serve() {
    mkdir -p "$1" || exit 2
    config "$1" "0.0.0.0:$3" "$2" >"$1/volperf-nats.conf" || exit 2
    exec nats-server -c "$1/volperf-nats.conf"
}

bench() {
    if [ "$1" = publish ]; then
        "$nats" stream rm "$STREAM" --force >/dev/null 2>&1 # a past iteration's
        set -- js pub async "$SUBJECT" --create --storage file --maxbytes "$((2 * messages * size))B" \
            --size "${size}B"
    else
        # the durable consumer nats bench would make (pull, every message from the start,
        # each acknowledged, 500 unacknowledged a client), made here without its
        # InactiveThreshold of 10 s: the server removes bench's own after 10 s with no pull
        # request waiting, and bench's clients then wait for messages forever (natscli
        # #1630; a consume phase on a busy 2-core machine ran past its step's 400 s)
        "$nats" consumer add "$STREAM" "$CONSUMER" --pull --deliver all --ack explicit \
            --replay instant --max-pending "$((500 * clients))" --defaults >"$figures" 2>&1 ||
            { cat "$figures" && return 1; }
        set -- js consume --consumer "$CONSUMER"
    fi
    # --timeout: how long nats bench waits on NATS's answers (5 s by default). A batch of
    # acknowledgements fsynced on slow storage took longer on a busy 2-core machine
    # (run25, run27: "JS PubAsync ack timeout"): slow storage is measured, not failed.
    "$nats" bench "$@" --stream "$STREAM" --msgs "$messages" --clients "$clients" \
        --timeout 120s --no-progress >"$figures" 2>&1
    ok=$?
    cat "$figures"
    return "$ok"
}

measured() {
    rm -f "$figures"
    phase "$1" "$2" bench "$2"
    ok=$?
    said=$(grep -E 'stats: |latencies per operation' "$figures" 2>/dev/null | tr -s ' \n' '  ')
    if [ "$ok" -eq 0 ] && [ -n "$said" ]; then
        echo "volperf-app bench iteration=$1 phase=$2 messages=$messages $said"
    fi
    return "$ok"
}

one_iteration() {
    measured "$1" publish && measured "$1" consume
}

own_server() {
    mkdir -p "$work/broker" || exit 2
    server_log=$scratch/volperf-nats.$$.log
    config "$work/broker" "127.0.0.1:-1" "$sync_mode" >"$scratch/volperf-nats.$$.conf" || exit 2
    nats-server -c "$scratch/volperf-nats.$$.conf" >"$server_log" 2>&1 &
    pid=$!
    await_server "$pid" "$server_log" nats-server publish listening
}

# the port the server chose, from its log
listening() {
    address=$(sed -n 's/.*Listening for client connections on \([0-9.:]*\).*/\1/p' "$server_log" 2>/dev/null) &&
        [ -n "$address" ]
}

run() {
    . "$1" 2>/dev/null || { echo "broker.sh: cannot read $1" >&2 && exit 2; }
    nats=$4/nats sync_mode=$5 clients=$6 address=${7:-}
    PATH=$4:$PATH
    begin "$2"
    scratch=${TMPDIR:-/tmp}
    figures=$scratch/volperf-nats-bench.$$.out
    # nats keeps its contexts and plugins under these: here, not in the user's home
    XDG_CONFIG_HOME=$scratch/volperf-nats.$$.home XDG_DATA_HOME=$scratch/volperf-nats.$$.home
    export XDG_CONFIG_HOME XDG_DATA_HOME
    trap 'rm -rf "$figures" "$scratch/volperf-nats.$$".*' EXIT
    own=
    [ -n "$address" ] || { own_server && own=yes; }
    export NATS_URL="nats://$address"
    iterate "$3" one_iteration
    failed_any=$?
    if [ -n "$own" ]; then
        kill "$pid" 2>/dev/null
        wait "$pid"
    fi
    return "$failed_any"
}

case "${1:-}" in
generate) shift && generate "$@" ;;
run) shift && run "$@" ;;
serve) shift && serve "$@" ;;
*) echo "usage: $0 generate PARAMS MESSAGES SIZE | run PARAMS WORKDIR ITERATIONS NATSDIR SYNC CLIENTS [HOST:PORT] | serve DATADIR SYNC PORT" >&2 && exit 2 ;;
esac
