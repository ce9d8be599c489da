#!/bin/sh
# fuzz.sh — the fuzz targets of the parsers of outside input (issue 13,
# docs/fuzzing.md): libFuzzer with AddressSanitizer and
# UndefinedBehaviorSanitizer, through Debian's clang (tools/install-deps.sh
# installs clang and libclang-rt-14-dev).
#
#   sh tools/fuzz.sh build                  build build-fuzz/fuzz_<target>
#   sh tools/fuzz.sh ci [SECONDS]           each target SECONDS (default 10) from the
#                                           committed corpus and seeds, FUZZ_JOBS targets at a
#                                           time (default: the CPU count); any finding fails
#   sh tools/fuzz.sh run TARGET RUNS        RUNS executions (e.g. 10000000) into the working
#                                           corpus build-fuzz/corpus/TARGET; prints libFuzzer's
#                                           figures; any finding fails
#   sh tools/fuzz.sh minimize TARGET        merge the working corpus into the committed one,
#                                           tests/fuzz/corpus/TARGET, keeping the smallest inputs
#                                           that cover every edge reached (-use_counters=0)
#   sh tools/fuzz.sh reproduce TARGET FILE  run one input (a crash-* artifact) once
#
# Targets: tally result costs records mergelog cli. A finding (crash, sanitizer
# report, leak, timeout) is written to build-fuzz/artifacts/TARGET-*.
set -eu
cd "$(dirname "$0")/.."
B=build-fuzz
TARGETS="tally result costs records mergelog cli"

max_len() {
  case "$1" in
    mergelog|costs) echo 8192 ;;
    cli) echo 2048 ;;
    *) echo 4096 ;;
  esac
}

# libFuzzer's options for target $1: its dictionary, input size, a timeout
# per input, findings kept, and the target's own output closed (refusals
# are printed on stderr; libFuzzer's messages and sanitizer reports are not).
opts() {
  echo "-dict=tests/fuzz/dict/$1.dict -max_len=$(max_len "$1") -timeout=10 -rss_limit_mb=2048" \
       "-close_fd_mask=3 -print_final_stats=1 -artifact_prefix=$B/artifacts/$1-"
}

build() {
  command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1 || {
    echo "fuzz: ${FUZZ_CC:-clang} not found (sh tools/install-deps.sh installs clang and libclang-rt-14-dev)" >&2
    exit 1
  }
  mkdir -p "$B/artifacts"
  make -f tests/fuzz/fuzz.mk -j"$(nproc)" >"$B/build.log" 2>&1 || { cat "$B/build.log"; exit 1; }
}

# The committed inputs of target $1 that exist: its corpus, then its seeds.
inputs() {
  for d in "tests/fuzz/corpus/$1" "tests/fuzz/seeds/$1"; do
    if [ -d "$d" ]; then printf '%s ' "$d"; fi
  done
}

check_target() {
  case " $TARGETS " in *" $1 "*) ;; *) echo "fuzz: unknown target '$1' (expected one of: $TARGETS)" >&2; exit 2 ;; esac
}

cmd=${1:-}
case "$cmd" in
build)
  build
  ;;
ci)
  secs=${2:-10}
  # FUZZ_JOBS targets at a time (default: one per CPU): each fuzzer is one
  # process on one core, and each still runs its full SECONDS.
  jobs=${FUZZ_JOBS:-$(nproc)}
  [ "$jobs" -ge 1 ] 2>/dev/null || { echo "fuzz: FUZZ_JOBS=$jobs: expected a count of at least 1" >&2; exit 2; }
  build
  # fuzz_one TARGET: runs it; its verdict goes to $B/ci-TARGET.verdict (ok or failed).
  fuzz_one() {
    work=$(mktemp -d)
    # shellcheck disable=SC2046
    if ./$B/fuzz_$1 $(opts "$1") -max_total_time="$secs" "$work" $(inputs "$1") >"$B/ci-$1.log" 2>&1; then
      echo ok > "$B/ci-$1.verdict"
    else
      echo failed > "$B/ci-$1.verdict"
    fi
    rm -rf "$work"
  }
  pids=""
  running=0
  for t in $TARGETS; do
    rm -f "$B/ci-$t.verdict"
    if [ "$running" -ge "$jobs" ]; then
      # wait for the oldest; the targets run for about the same time
      set -- $pids
      wait "$1" || true
      shift
      pids="$*"
      running=$((running - 1))
    fi
    fuzz_one "$t" &
    pids="$pids $!"
    running=$((running + 1))
  done
  for p in $pids; do wait "$p" || true; done
  # The reports, in the targets' order, as each target's alone.
  failed=""
  for t in $TARGETS; do
    if [ "$(cat "$B/ci-$t.verdict" 2>/dev/null)" = ok ]; then
      echo "fuzz: $t: $(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$B/ci-$t.log" | grep -Eo '[0-9]+$') executions in ${secs} s, clean"
    else
      echo "fuzz: $t: FOUND A PROBLEM (build-fuzz/ci-$t.log, artifacts in $B/artifacts/):"
      grep -E 'ERROR|SUMMARY|runtime error|Test unit written|deadly signal' "$B/ci-$t.log" | head -n 20
      failed="$failed $t"
    fi
    rm -f "$B/ci-$t.verdict"
  done
  [ -z "$failed" ] || { echo "fuzz: findings in:$failed" >&2; exit 1; }
  ;;
run)
  [ $# -eq 3 ] || { echo "usage: sh tools/fuzz.sh run TARGET RUNS" >&2; exit 2; }
  check_target "$2"
  build
  mkdir -p "$B/corpus/$2"
  # shellcheck disable=SC2046
  ./$B/fuzz_$2 $(opts "$2") -runs="$3" "$B/corpus/$2" $(inputs "$2")
  ;;
minimize)
  [ $# -eq 2 ] || { echo "usage: sh tools/fuzz.sh minimize TARGET" >&2; exit 2; }
  check_target "$2"
  build
  new="tests/fuzz/corpus/$2.new"
  rm -rf "$new"
  mkdir -p "$new" "$B/corpus/$2"
  # shellcheck disable=SC2046
  ./$B/fuzz_$2 $(opts "$2") -use_counters=0 -merge=1 "$new" $(inputs "$2") "$B/corpus/$2"
  rm -rf "tests/fuzz/corpus/$2"
  mv "$new" "tests/fuzz/corpus/$2"
  echo "fuzz: tests/fuzz/corpus/$2: $(ls "tests/fuzz/corpus/$2" | wc -l) inputs, $(du -sk "tests/fuzz/corpus/$2" | cut -f1) KiB"
  ;;
reproduce)
  [ $# -eq 3 ] || { echo "usage: sh tools/fuzz.sh reproduce TARGET FILE" >&2; exit 2; }
  check_target "$2"
  build
  ./$B/fuzz_$2 -max_len="$(max_len "$2")" -runs=1 "$3"
  ;;
*)
  sed -n '2,/^[^#]/p' "$0" | sed -n 's/^# \{0,1\}//p'
  exit 2
  ;;
esac
