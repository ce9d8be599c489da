#!/bin/sh
# sanitize-test.sh — the host test suite a second time, built with
# AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer in a build
# directory of its own (issue 13). Every kcontract binary the tests start is
# instrumented too. The kernels are not rebuilt: the nvcc-built fatbins and
# library kernels of the normal build (build/, `make all` first), and the
# objects that embed the images (built without CFLAGS, so the same with
# sanitizers), are copied with their times, and NVCC=false makes any attempt
# to rebuild one fail at once. A sanitizer report from any process (written under B/sanitizer/) or a
# failing test fails the script.
#
#   sh tools/sanitize-test.sh [B]      (B: the build directory, default build-asan)
set -eu
cd "$(dirname "$0")/.."
B=${1:-build-asan}
SRC=build
if ! ls "$SRC"/fatbin/*.fatbin >/dev/null 2>&1; then
  echo "sanitize-test: no fatbins in $SRC/fatbin: run 'make all' first (the sanitizer build reuses them)" >&2
  exit 1
fi
mkdir -p "$B/fatbin" "$B/lib" "$B/fakefatbin"
# The nvcc-built parts, with their times (newer than their sources: make leaves them be).
cp -p "$SRC"/fatbin/*.fatbin "$B/fatbin/"
# So are the objects that embed each image (real and the fixture's fake ones):
# kcontract.mk compiles them without CFLAGS, so they are the same with or
# without sanitizers, and make rebuilds any older than its image or sources.
for o in "$SRC"/fatbin/*.o "$SRC"/fakefatbin/*.fatbin "$SRC"/fakefatbin/*.o; do
  if [ -f "$o" ]; then cp -p "$o" "$B/${o#"$SRC"/}"; fi
done
# The mutants the mutation tests share (tests/support/mutant_seed.h), as the
# normal test run left them: their first user here finds them up to date
# (make keeps them), so this pass runs the mutate code, not nvcc again.
if [ -d "$SRC/test-mutants" ]; then
  rm -rf "$B/test-mutants"
  cp -pR "$SRC/test-mutants" "$B/test-mutants"
fi
# Each library kernel with its dependency file (one without is built again:
# kcontract.mk) and its source digest (the build identity's), times kept.
for so in "$SRC"/lib/lib*.so; do
  case "$(basename "$so")" in
    libkc_fakelib*) ;;
    *) for f in "$so" "$so.d" "$so.source"; do if [ -f "$f" ]; then cp -p "$f" "$B/lib/"; fi; done ;;
  esac
done

SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
LOGS="$PWD/$B/sanitizer"
rm -rf "$LOGS"
mkdir -p "$LOGS"
# handle_*=0: the fixtures' crashes (SIGSEGV, SIGABRT) must stay signals, as
# the tests expect, not become sanitizer reports; exitcode 86 and the log
# files tell a real report from an item's failure.
ASAN_OPTIONS="detect_leaks=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0:exitcode=86:log_path=$LOGS/asan"
LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp:print_suppressions=0"
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$LOGS/ubsan"
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS

status=0
# NVCC=false is passed to the tests' processes too (make exports command-line
# variables); the mutation tests build mutants with nvcc: KC_TEST_NVCC.
nvcc=$(command -v nvcc 2>/dev/null || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
CFLAGS="-O1 -g $SAN" make -j"$(nproc)" B="$B" NVCC=false KC_TEST_NVCC="$nvcc" LDLIBS="$SAN -ldl -lm -lpthread" test || status=$?
reports=$(find "$LOGS" -type f | sort)
if [ -n "$reports" ]; then
  for r in $reports; do
    echo "sanitize-test: report in $r:"
    head -n 40 "$r"
  done
  echo "sanitize-test: $(echo "$reports" | wc -l) sanitizer report(s); the run is not clean" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "sanitize-test: the sanitizer build or its tests failed (exit $status); kernels are not rebuilt here:" \
       "after a change to a .cu file or include/kcontract.h, run 'make all' first" >&2
  exit "$status"
fi
echo "sanitize-test: clean (AddressSanitizer with leak checks, UndefinedBehaviorSanitizer; $B)"
