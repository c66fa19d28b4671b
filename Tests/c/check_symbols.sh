#!/bin/sh
# The library's exported symbols must be exactly the functions the header declares.
# usage: check_symbols.sh LIBRARY INCLUDE_DIR
set -eu
lib=$1
inc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every declaration starts with MC_API on the line that names the function.
grep -h '^MC_API' "$inc"/mapcore.h "$inc"/mapcore/*.h \
    | sed -n 's/.*[ *]\(mc_[a-z0-9_]*\)(.*/\1/p' | sort -u > "$tmp/declared"
nm -D --defined-only --extern-only "$lib" | awk '{print $NF}' | sort -u > "$tmp/exported"
if ! diff -u "$tmp/declared" "$tmp/exported" > "$tmp/diff"; then
    echo "Header declarations (-) and exported symbols (+) differ:"
    cat "$tmp/diff"
    exit 1
fi
echo "$(wc -l < "$tmp/declared") functions declared, all exported, nothing else exported"
