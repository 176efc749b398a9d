#!/usr/bin/env bash
# Installs what volperf needs on a Debian machine: the packages in
# tools/debian-packages.txt (fio above all), the database servers' service users, and a
# virtualenv .venv with volperf and its test and docs extras. Safe to run again: it only
# adds what is missing. (The Kubernetes testbed's Go comes from tools/go-toolchain.sh,
# which tools/test.sh runs: the main job needs none.)
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

# libvirtd (the OpenStack testbed's real guests) refuses to start without the user and
# group libvirt-qemu, which only libvirt-daemon-system (not installed: systemd) makes
if ! getent group libvirt-qemu >/dev/null; then
  $sudo groupadd --system libvirt-qemu
fi
if ! getent passwd libvirt-qemu >/dev/null; then
  echo "volperf setup: creating the service user libvirt-qemu"
  $sudo useradd --system --no-create-home --home-dir /nonexistent --gid libvirt-qemu \
    --shell /usr/sbin/nologin --comment "libvirt-qemu service user (made by volperf setup)" \
    libvirt-qemu
fi

# volperf runs its database servers as their Debian service users when it runs as root.
# postgresql's own setup creates `postgres`; mariadb-server-core (unlike mariadb-server)
# creates no `mysql`, so it is made here the way Debian's package would, when missing.
for user in mysql postgres; do
  if ! getent passwd "$user" >/dev/null; then
    echo "volperf setup: creating the service user $user"
    $sudo useradd --system --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin --comment "$user service user (made by volperf setup)" "$user"
  fi
done

UV_VERSION=0.13.9
python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "volperf needs Python 3.11 or newer; set PYTHON=/path/to/python3.11" >&2
  exit 1
}
[ -x .venv/bin/python ] || "$python" -m venv .venv
# uv installs the same versions as pip would (the same constraints) in seconds rather than
# a minute of pip's resolving, every time a clone is set up
.venv/bin/python -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
# --compile-bytecode, and compileall for volperf's own tree: each of the many volperf,
# Rally and pytest processes a campaign or the suite starts would otherwise compile what it
# imports from source every time (uv writes no bytecode by default, and Python writes none
# where PYTHONDONTWRITEBYTECODE is set); modules already compiled are skipped
.venv/bin/uv pip install --quiet --python .venv/bin/python --compile-bytecode \
  -e '.[test,docs,rally,heat,k8s]' -c tools/rally-constraints.txt
.venv/bin/python -m compileall -q -j 0 harness rally_plugins k8s_scenarios tests benchmarks \
  >/dev/null
tools/link-ceph-bindings.sh .venv
echo "volperf setup: $(fio --version), $(.venv/bin/volperf --version)"
