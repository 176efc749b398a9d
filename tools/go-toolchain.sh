#!/usr/bin/env bash
# A Go toolchain >= 1.23 for the Kubernetes testbed's build (harness/testbeds/k8s/build.py
# looks for one where this script leaves it). A `go` on PATH that is new enough is used as
# it is. Otherwise Debian's golang-1.23 from bookworm-backports (bookworm's own golang-go
# is 1.19), at the pinned version below, is downloaded and unpacked, not installed, into
# ~/.cache/volperf/go/<version>/: apt works on a private state directory, so nothing of the
# system changes and a Go the user already has stays as it is.
# Prints the path of the go binary to use; progress goes to stderr.
set -euo pipefail

GO_SERIES=1.23
GO_DEB_VERSION=1.23.5-1~bpo12+1
MIN_MINOR=23

say() { echo "volperf go-toolchain: $*" >&2; }

if command -v go >/dev/null; then
  minor=$(go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p' || true)
  if [ -n "$minor" ] && [ "$minor" -ge "$MIN_MINOR" ]; then
    command -v go
    exit 0
  fi
  say "the go on PATH ($(go env GOVERSION 2>/dev/null || echo unknown)) is older than 1.$MIN_MINOR; using a cached one"
fi

cache=${XDG_CACHE_HOME:-$HOME/.cache}/volperf/go/$(echo "$GO_DEB_VERSION" | tr '~+' '--')
go_bin=$cache/tree/usr/lib/go-$GO_SERIES/bin/go
if [ -e "$cache/complete" ]; then
  echo "$go_bin"
  exit 0
fi

mirror=$("$(dirname "$0")/debian-mirror.sh")

say "fetching golang-$GO_SERIES $GO_DEB_VERSION from bookworm-backports into $cache (once)"
mkdir -p "$(dirname "$cache")"
work=$(mktemp -d "${cache}.partial.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs" "$work/tree"
cat >"$work/apt/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main
EOF
apt_options=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=$work/apt/none"
  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
  -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
apt-get "${apt_options[@]}" update -qq >&2
(cd "$work/debs" && apt-get "${apt_options[@]}" download -qq \
  "golang-$GO_SERIES-go=$GO_DEB_VERSION" "golang-$GO_SERIES-src=$GO_DEB_VERSION" >&2)
for deb in "$work"/debs/*.deb; do
  dpkg-deb -x "$deb" "$work/tree"
done
"$work/tree/usr/lib/go-$GO_SERIES/bin/go" version >&2
rm -rf "$cache"
mkdir -p "$cache"
mv "$work/tree" "$cache/tree"
date -Is >"$cache/complete"
echo "$go_bin"
