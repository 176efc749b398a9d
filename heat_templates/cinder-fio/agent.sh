#!/bin/sh
# volperf cinder-fio agent: the VM's user_data. Finds the attached Cinder volume by its id
# (not by guessing /dev/vdb), waits for it with a timeout, optionally prefills it, waits
# for the start time every VM of the step shares (START_AT, seconds since the epoch; 0 or
# past: at once), runs fio with json+ output and per-second logs and returns them through
# Heat: the wait condition handle's signal, data = fio's JSON, a marker line and each log
# after a line naming it (volperf's harness/tools/fio/printout.py), gzip'ed and base64'ed.
# agent.log there says when the VM was ready and when it started, its kernel and the
# hypervisor it detected. Any failure is signalled as FAILURE with its reason. The only
# credential is the handle Heat put here.
set -u

VOLUME_ID="__VOLUME_ID__"
IODEPTH="__IODEPTH__"
FILESIZE="__FILESIZE__"
MODE="__MODE__"
RUNTIME="__RUNTIME__"
RW="__RW__"
BS="__BS__"
RATE_IOPS="__RATE_IOPS__"  # 0: no fixed rate
RATE_PROCESS="__RATE_PROCESS__"
PREFILL="__PREFILL__"
DEVICE_MODE="__DEVICE_MODE__"  # rbd: volperf's local guest runner (a test stand-in)
WAIT_DEVICE_S="__WAIT_DEVICE_S__"
START_AT="__START_AT__"
WORK=$(mktemp -d -t volperf-agent.XXXXXX)  # under $TMPDIR

notify() {  # STATUS REASON [DATA_FILE]
  data=""
  [ $# -ge 3 ] && data=$(cat "$3")
  printf '{"status": "%s", "reason": "%s", "data": "%s"}\n' "$1" "$2" "$data" \
    > "$WORK/signal.json"
  __WC_NOTIFY__ -sS --fail -o "$WORK/signal.out" --data-binary "@$WORK/signal.json" \
    || { echo "volperf agent: Heat refused the $1 signal" >&2; exit 2; }
}

fail() {
  reason=$(printf '%s' "$1" | tr -d "\"\\\\" | tr '\n' ' ' | cut -c1-2000)
  notify FAILURE "volperf agent: $reason"
  exit 1
}

find_device() {  # Linux shows the volume id's first 20 characters in the virtio serial
  short=$(printf '%s' "$VOLUME_ID" | cut -c1-20)
  for path in "/dev/disk/by-id/virtio-$short" "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_$short" \
      "/dev/disk/by-id/wwn-0x$(printf '%s' "$VOLUME_ID" | tr -d '-' | cut -c1-16)"; do
    [ -b "$path" ] && { readlink -f "$path"; return 0; }
  done
  return 1
}

command -v fio >/dev/null 2>&1 || fail "fio is not installed in the image"
if [ "$DEVICE_MODE" = rbd ]; then
  target="--ioengine=rbd --clientname=${RBD_USER:-admin} --pool=${RBD_POOL:-volumes} --rbdname=volume-$VOLUME_ID"
else
  waited=0
  until device=$(find_device); do
    [ "$waited" -ge "$WAIT_DEVICE_S" ] && fail "volume $VOLUME_ID did not appear within ${WAIT_DEVICE_S} s"
    sleep 2
    waited=$((waited + 2))
  done
  target="--ioengine=libaio --direct=1 --filename=$device"
fi

if [ "$PREFILL" = fio ]; then
  # shellcheck disable=SC2086  # $target holds several fio options on purpose
  fio --name=prefill $target --rw=write --bs=1M --iodepth=16 --size="$FILESIZE" \
    --output="$WORK/prefill.txt" >/dev/null 2>"$WORK/prefill.err" \
    || fail "prefill failed: $(tail -n 3 "$WORK/prefill.err")"
fi

ready=$(date +%s)
mkdir -p "$WORK/logs"
# fio runs this once its job is set up (the volume opened), just before measuring: so
# what the VMs share is the start of their I/O, not of fio
# (coarse until the last second, then every 10 ms: the VMs start within a few ms)
cat > "$WORK/wait-start.sh" <<EOF
while [ "\$(date +%s)" -lt "$((START_AT - 1))" ]; do sleep 0.5 2>/dev/null || sleep 1; done
while [ "\$(date +%s)" -lt "$START_AT" ]; do sleep 0.01 2>/dev/null || sleep 1; done
now=\$(date +%s%3N)  # to the millisecond; a date with no %N (BusyBox's can be): the second
case \$now in *[!0-9]*) now="\$(date +%s)000" ;; esac
echo "\$now" > "$WORK/started_ms"
EOF
cd "$WORK" || fail "cannot enter $WORK"  # fio writes the prerun's output here
length="--size=$FILESIZE"
[ "$MODE" = time ] && length="--size=$FILESIZE --time_based --runtime=$RUNTIME"
logs="$WORK/logs/volperf-$RW"
rate=""
[ "$RATE_IOPS" != 0 ] && rate="--rate_iops=$RATE_IOPS --rate_process=$RATE_PROCESS"
# the completions log for stalls as harness/tools/fio/render.py writes it (STALL_LOG_MS)
# shellcheck disable=SC2086  # $target, $length and $rate hold several fio options on purpose
fio --name="volperf-$RW" $target --rw="$RW" --bs="$BS" --iodepth="$IODEPTH" $length $rate \
  --write_iops_log="$logs" --write_bw_log="$logs" --write_lat_log="$logs" \
  --log_avg_msec=1000 --log_unix_epoch=1 --exec_prerun="sh $WORK/wait-start.sh" \
  --write_hist_log="$logs-completions" --log_hist_msec=100 --log_hist_coarseness=6 \
  --output-format=json+ --output="$WORK/fio.json" 2>"$WORK/fio.err" \
  || fail "fio failed: $(tail -n 3 "$WORK/fio.err")"
# what the VM is: its kernel, and the hypervisor its kernel detected ("none": no
# hypervisor signature, as under QEMU's emulated CPU, TCG)
hypervisor=$(dmesg 2>/dev/null | sed -n 's/.*Hypervisor detected: //p' | head -n 1 | tr ' ' '_')
started_ms=$(cat "$WORK/started_ms")  # when fio's wait ended
printf 'ready=%s start_at=%s started=%s started_ms=%s kernel=%s hypervisor=%s\n' "$ready" \
  "$START_AT" "$((started_ms / 1000))" "$started_ms" "$(uname -r)" "${hypervisor:-none}" \
  > "$WORK/logs/agent.log"
{
  cat "$WORK/fio.json"
  echo
  echo "==> volperf: fio logs"
  for f in "$WORK"/logs/*.log; do
    echo "==> ${f##*/}"
    cat "$f"
  done
} | gzip -c | base64 | tr -d '\n' > "$WORK/fio.b64" || fail "cannot pack the result"
notify SUCCESS "fio $RW done on volume $VOLUME_ID" "$WORK/fio.b64"
