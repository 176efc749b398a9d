#!/usr/bin/env bash
# Prints the Debian mirror to fetch bookworm packages from: $VOLPERF_DEBIAN_MIRROR, else
# the one this machine's apt already uses for bookworm.
set -euo pipefail
if [ -n "${VOLPERF_DEBIAN_MIRROR:-}" ]; then
  echo "${VOLPERF_DEBIAN_MIRROR%/}"
  exit 0
fi
targets() { apt-get indextargets --format "\$(REPO_URI) \$(CODENAME) \$(TARGET_OF)" 2>/dev/null; }
mirror=$(targets | awk '$2 == "bookworm" && $3 == "deb" {print $1; exit}')
if [ -z "$mirror" ]; then  # apt's lists not fetched yet
  apt-get update -qq >&2 || true
  mirror=$(targets | awk '$2 == "bookworm" && $3 == "deb" {print $1; exit}')
fi
if [ -z "$mirror" ]; then
  echo "volperf: no Debian bookworm mirror in apt's sources: set VOLPERF_DEBIAN_MIRROR" >&2
  exit 1
fi
echo "${mirror%/}"
