#!/bin/sh
# Runs the instance's user_data once, as cloud-init runs a RAW `#!` script; its output
# goes to the console (the instance's console log), with its exit status.
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
export HOME=/root TMPDIR=/tmp
[ -f /run/user_data ] || exit 0
if [ "$(head -c 2 /run/user_data)" != "#!" ]; then
  echo "volperf guest: user_data is not a #! script: not run"
  exit 0
fi
chmod 700 /run/user_data
/run/user_data
echo "volperf guest: user_data exited $?"
