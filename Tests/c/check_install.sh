#!/bin/sh
# Installs into a scratch prefix, then builds a consumer with find_package(MapCore) and with
# pkg-config, runs both, and checks the installed library's footprint (no Swift runtime, no
# Foundation/ICU). usage: check_install.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1
build=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
lib="$prefix/lib/libmapcore.so.0"
test -e "$lib" || { echo "missing $lib"; exit 1; }

echo "== ldd of the installed library"
ldd "$lib"
if ldd "$lib" | grep -Ei 'swift|foundation|icu|dispatch'; then
    echo "the installed library depends on the Swift runtime or Foundation"
    exit 1
fi

echo "== CMake consumer (find_package)"
cmake -S "$src/examples/c" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$prefix/consumer" > /dev/null
"$prefix/consumer/mapcore_example" "$src/data/places.geojson"

echo "== pkg-config consumer"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror "$src/examples/c/main.c" $(pkg-config --cflags --libs mapcore) -o "$prefix/pc_example"
# Run as a user would: no LD_LIBRARY_PATH (the .pc file's rpath finds the library).
env -u LD_LIBRARY_PATH "$prefix/pc_example" "$src/data/places.geojson"

echo "== installed CLI (carries its Swift runtime)"
if ldd "$prefix/bin/mapcore" | grep -Ei 'libswift|foundation'; then
    echo "the installed CLI depends on the Swift runtime"
    exit 1
fi
env -u LD_LIBRARY_PATH "$prefix/bin/mapcore" bbox "$src/data/places.geojson"
