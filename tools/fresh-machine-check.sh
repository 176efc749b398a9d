#!/usr/bin/env bash
# The fresh-machine check: README's two commands as a new machine runs them, repeatably.
#
#   tools/fresh-machine-check.sh suite [--no-go]
#       clones this checkout's HEAD into a new folder under $VOLPERF_TMP (/var/tmp) and runs
#       `CI=true bash .ci/run` there with every cache volperf uses moved aside
#       (~/.cache/volperf, Go's module and build caches, pip's and uv's caches) and the
#       service users volperf setup made removed; afterwards the caches are put back (what
#       the run built is deleted). --no-go also hides every `go` on PATH, so
#       tools/go-toolchain.sh has to fetch one.
#   tools/fresh-machine-check.sh quickstart [--keep]
#       builds a minimal Debian bookworm root with debootstrap (no Go, no pyenv Python, no
#       service users: Debian's python3 only) under $VOLPERF_TMP, clones this checkout's
#       HEAD into its /opt/volperf and runs README's first command (tools/quickstart.sh)
#       there as root; the root is removed afterwards unless --keep.
#
# Both print their time and end with the command's own exit status. Run as root, with
# nothing else heavy running beside it. Commit first: the check runs HEAD, not the tree.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-}
shift || true
[ "$(id -u)" = 0 ] || { echo "fresh-machine-check: run as root" >&2; exit 2; }
stamp=$(date +%Y%m%d-%H%M%S)
scratch=${VOLPERF_TMP:-/var/tmp}  # on disk, where /tmp may be tmpfs
say() { echo "fresh-machine-check: $*" >&2; }

clone_head() {  # clone_head DEST
  git clone --quiet "$repo" "$1"
  say "cloned $(git -C "$repo" rev-parse --short HEAD) into $1"
}

suite() {
  local no_go=false
  [ "${1:-}" = "--no-go" ] && no_go=true
  local work=$scratch/volperf-fresh-$stamp
  aside=$work/aside  # global, as moved below: the EXIT trap uses them
  mkdir -p "$aside"
  local caches=("${XDG_CACHE_HOME:-$HOME/.cache}/volperf" "${XDG_CACHE_HOME:-$HOME/.cache}/pip"
    "${XDG_CACHE_HOME:-$HOME/.cache}/uv")
  if command -v go >/dev/null; then
    caches+=("$(go env GOCACHE)" "$(go env GOMODCACHE)")
  fi
  moved=()
  restore() {
    local i=0
    for path in "${moved[@]}"; do
      if [ -e "$path" ]; then  # what the run built (Go's module cache is read-only)
        chmod -R u+w "$path"
        rm -rf "$path"
      fi
      mkdir -p "$(dirname "$path")"
      mv "$aside/$i" "$path"
      i=$((i + 1))
    done
    rmdir "$aside" 2>/dev/null || true
    say "caches put back: ${moved[*]:-none}"
  }
  trap restore EXIT
  for path in "${caches[@]}"; do
    if [ -e "$path" ]; then
      mv "$path" "$aside/${#moved[@]}"
      moved+=("$path")
    fi
  done
  say "caches moved aside to $aside: ${moved[*]:-none there}"
  for user in mysql postgres libvirt-qemu; do
    if getent passwd "$user" | cut -d: -f5 | grep -q "made by volperf setup"; then
      userdel "$user" && say "removed the service user $user (volperf setup made it)"
      getent group "$user" >/dev/null && groupdel "$user" 2>/dev/null || true
    fi
  done
  local path=$PATH
  if $no_go; then
    path=$(echo "$PATH" | tr ':' '\n' | while read -r dir; do [ -e "$dir/go" ] || echo "$dir"; done | paste -sd:)
    say "no go on PATH for the run"
  fi
  clone_head "$work/volperf"
  local started=$SECONDS status=0
  (cd "$work/volperf" && env PATH="$path" CI=true bash .ci/run </dev/null) 2>&1 | tee "$work/ci.log" || status=$?
  say "suite: exit $status in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s; log $work/ci.log"
  return "$status"
}

quickstart() {
  keep=false  # global, as root below: the EXIT trap uses them
  [ "${1:-}" = "--keep" ] && keep=true
  command -v debootstrap >/dev/null || { say "needs debootstrap (tools/debian-packages.txt)"; exit 2; }
  root=$scratch/volperf-bookworm-$stamp
  local mirror
  mirror=$("$repo/tools/debian-mirror.sh")
  cleanup_root() {
    for mount in dev/pts dev sys proc; do
      mountpoint -q "$root/$mount" && umount -l "$root/$mount"
    done
    if $keep; then say "root kept in $root"; else rm -rf "$root"; fi
  }
  trap cleanup_root EXIT
  local started=$SECONDS
  say "debootstrap of a minimal bookworm into $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
    { say "debootstrap failed: $(tail -3 "$root.debootstrap.log")"; exit 1; }
  rm -f "$root.debootstrap.log"
  say "root made in $((SECONDS - started)) s"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # as in any build chroot: packages' services are not started (volperf starts its own)
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod +x "$root/usr/sbin/policy-rc.d"
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount --bind /dev "$root/dev"
  mount --bind /dev/pts "$root/dev/pts"
  apt_get() { chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }
  # git to clone with, ca-certificates for pip: README's first command expects a checkout
  apt_get update -qq && apt_get install -y -qq --no-install-recommends git ca-certificates >/dev/null
  # this machine's own certificate authorities and the variables that name them (a TLS
  # proxy's CA, pip's PIP_CERT): the root reaches the registries the way the host does
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null 2>&1
  fi
  local passed=()
  for name in PIP_CERT PIP_DEFAULT_TIMEOUT SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE \
    CURL_CA_BUNDLE http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    [ -n "${!name:-}" ] && passed+=("$name=${!name}")
  done
  git clone --quiet "$repo" "$root/opt/volperf"
  say "in the root: go: $(chroot "$root" sh -c 'command -v go || echo none'), python3:" \
    "$(chroot "$root" sh -c 'command -v python3 >/dev/null && python3 --version || echo none')," \
    "mysql user:" \
    "$(chroot "$root" sh -c 'getent passwd mysql || echo none')"
  started=$SECONDS
  local status=0
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 "${passed[@]}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c 'cd /opt/volperf && tools/quickstart.sh' </dev/null || status=$?
  local page
  page=$(find "$root/opt/volperf/doc/build/html/test_results" -path '*quick-*/index.html' 2>/dev/null | head -1)
  say "quickstart: exit $status in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s; page: ${page:-none}"
  [ "$status" = 0 ] && [ -n "$page" ]
}

case "$what" in
  suite) suite "$@" ;;
  quickstart) quickstart "$@" ;;
  *) echo "usage: tools/fresh-machine-check.sh suite [--no-go] | quickstart [--keep]" >&2; exit 2 ;;
esac
