#!/bin/sh
# Sanitizer runs (make asan, make tsan): the library built under AddressSanitizer or
# ThreadSanitizer, the C and C++ tests of the public ABI built with the same sanitizer against
# it, then the Swift tests (concurrency tests included) under it. Any report fails the run.
#
#   Tests/sanitizers/run.sh address|thread [swift test arguments, e.g. --filter Concurrency]
#
# The C tests are compiled as CMake compiles them (gnu99), with the Swift toolchain's clang,
# whose sanitizer runtime is the one swiftc links against (gcc's libasan/libtsan would be a
# second runtime in the process); its ThreadSanitizer runtime also needs libdispatch and
# BlocksRuntime from the toolchain.
# Suppressions, each with its reason, are in this folder (tsan.supp, lsan.supp).
set -eu
kind=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
case $kind in
  address) flag=address; scratch=.build-asan ;;
  thread) flag=thread; scratch=.build-tsan ;;
  *) echo "usage: $0 address|thread [swift test arguments]" >&2; exit 2 ;;
esac
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
clang="$swift_bin/clang"
clangxx="$swift_bin/clang++"
runtime_dir="$swift_bin/../lib/swift/linux"
out="$root/build/sanitize-$kind"
mkdir -p "$out"
cd "$root"

# Release, as shipped: the tests that run the deepest accepted input on a 128 KB thread stack hold
# for optimized frames, not for -Onone frames with sanitizer instrumentation.
echo "== libmapcore.so (release) under -sanitize=$flag ($scratch)"
swift build -c release --sanitize "$flag" --scratch-path "$scratch" --product mapcore
lib_dir="$root/$scratch/release"
ln -sf libmapcore.so "$lib_dir/libmapcore.so.0"

export TSAN_OPTIONS="suppressions=$root/Tests/sanitizers/tsan.supp:halt_on_error=1:exitcode=66"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:exitcode=66"
export LSAN_OPTIONS="suppressions=$root/Tests/sanitizers/lsan.supp"
# AddressSanitizer's redzones make every frame larger: the deepest-input tests, which run on a
# 128 KB thread stack elsewhere, get 512 KB here (Tests/c/test_support.h, on_small_stack).
[ "$kind" = address ] && export MAPCORE_TEST_STACK_KB=512
link="-L$lib_dir -lmapcore -Wl,-rpath,$lib_dir -lpthread -lm"
[ "$kind" = thread ] && link="$link -L$runtime_dir -ldispatch -lBlocksRuntime -Wl,-rpath,$runtime_dir"

failed=0
for concept in common geojson geometry expression format cluster source tile tilesource cpp; do
  if [ "$concept" = cpp ]; then
    # shellcheck disable=SC2086
    "$clangxx" -std=c++17 -g -O1 -fsanitize="$flag" -I include -I bindings/cpp Tests/c/test_cpp.cpp \
      -o "$out/test_cpp" $link
  else
    # shellcheck disable=SC2086
    "$clang" -std=gnu99 -g -O1 -fsanitize="$flag" -I include "Tests/c/test_$concept.c" -o "$out/test_$concept" $link
  fi
  printf "test_%s (%s): " "$concept" "$kind"
  if "$out/test_$concept" "$root/data" > "$out/test_$concept.log" 2>&1; then
    tail -1 "$out/test_$concept.log"
  else
    echo "FAILED"
    grep -A40 -E "WARNING: ThreadSanitizer|ERROR: (Address|Leak)Sanitizer|FAIL" "$out/test_$concept.log" | head -60
    failed=1
  fi
done
[ "$failed" = 0 ] || exit 1

echo "== swift test under -sanitize=$flag"
swift test --sanitize "$flag" --scratch-path "$scratch" "$@"
