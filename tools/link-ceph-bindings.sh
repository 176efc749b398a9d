#!/usr/bin/env bash
# Makes Debian's Python rados/rbd bindings (python3-rados, python3-rbd) importable in a
# virtualenv: a folder with links to just those two modules, named by a .pth file. Only
# these two, not all of Debian's dist-packages; they are built for Debian's Python, so the
# venv's Python must have the same minor version (3.11 on bookworm).
set -euo pipefail
venv=${1:?usage: link-ceph-bindings.sh VENV}
debian=/usr/lib/python3/dist-packages
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
tag=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
links="$venv/debian-ceph-bindings"
mkdir -p "$links"
for module in rados rbd; do
  if [ ! -e "$debian/$module$tag" ]; then
    echo "volperf setup: $debian/$module$tag missing (python3-$module for this Python?)" >&2
    exit 1
  fi
  ln -sf "$debian/$module$tag" "$links/$module$tag"
done
(cd "$links" && pwd) > "$site/volperf-debian-ceph-bindings.pth"
"$venv/bin/python" -c 'import rados, rbd' || {
  echo "volperf setup: the rados/rbd bindings do not import in $venv" >&2
  exit 1
}
