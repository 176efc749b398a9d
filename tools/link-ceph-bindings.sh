#!/usr/bin/env bash
# Makes Debian's Python rados/rbd bindings (python3-rados, python3-rbd) and python3-libvirt
# importable in a virtualenv (harness/testbeds/ceph_bindings.py: links to just their
# modules, named by a .pth file). They are built for Debian's Python, so the venv's Python
# must have the same minor version (3.11 on bookworm).
set -euo pipefail
venv=${1:?usage: link-ceph-bindings.sh VENV}
cd "$(dirname "$0")/.."
"$venv/bin/python" -m harness.testbeds.ceph_bindings "$venv"
