#!/usr/bin/env bash
# Installs what volperf needs on a Debian machine: the packages in
# tools/debian-packages.txt (fio above all) and a virtualenv .venv with volperf and its
# test and docs extras. Safe to run again: it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
mapfile -t packages < <(grep -v '^#' tools/debian-packages.txt | grep -v '^$')
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "volperf setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "volperf needs Python 3.11 or newer; set PYTHON=/path/to/python3.11" >&2
  exit 1
}
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,docs,rally,heat,k8s]' \
  -c tools/rally-constraints.txt
tools/link-ceph-bindings.sh .venv
# the Kubernetes testbed builds Kubernetes 1.32 with Go >= 1.23 (Debian's golang-go is older)
go_minor=$(go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
if [ -z "$go_minor" ] || [ "$go_minor" -lt 23 ]; then
  echo "volperf setup: the Kubernetes testbed needs Go 1.23 or newer on PATH (https://go.dev/dl)" >&2
  exit 1
fi
echo "volperf setup: $(fio --version), $(.venv/bin/volperf --version)"
