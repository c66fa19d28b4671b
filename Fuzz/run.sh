#!/bin/sh
# Runs one fuzz target with its dictionary: Fuzz/run.sh TARGET [libFuzzer arguments and corpus dirs].
# Built by `make fuzz-build`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
target=$1
shift
case $target in
  format) dict="-dict=$here/dict/format.dict" ;;
  mvt|pmtiles|mbtiles) dict="" ;;
  *) dict="-dict=$here/dict/json.dict" ;;
esac
exec "$here/.build/debug/fuzz-$target" $dict -rss_limit_mb=2048 "$@"
