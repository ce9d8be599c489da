#!/bin/sh
# bench/gpu_suite.sh — the whole-suite benchmark on one GPU machine (issue 11):
#     sh bench/gpu_suite.sh OUTDIR [kcontract run arguments]
# Runs build/kcontract (BIN) over the selection (default: every item with both
# shipped launch-record files, the suite of the receipts) serially, then with
# --jobs N for each N in $NS (default "8"), each N also under CUDA MPS when
# MPS=1 (nvidia-cuda-mps-control started for that run, its pipes in OUTDIR),
# and each N again with KC_CUDA_SCHED=<s> for each s in $SCHEDS (default
# none; e.g. "spin": mode jobs-spin), the host's way of waiting for the GPU.
# During each run it samples NVML's GPU utilization every 0.5 s
# (nvidia-smi; the fraction of each sample period in which some kernel ran,
# averaged over every GPU the run uses and over the run) and reads /proc/stat
# before and after (mean busy host cores). Each run's output goes to
# OUTDIR/<run>.log, its /usr/bin/time -v to OUTDIR/<run>.time, its samples to
# OUTDIR/<run>.util; --json reports to OUTDIR/<run>.jsonl.
# These runs measure running every item: --no-cache (the results cache,
# docs/results-cache.md). Then, unless CACHED=0, the cache's modes, with
# --jobs (the first N of $NS) and a cache of their own (OUTDIR/cache):
#   cached-fill  the run that fills it;
#   cached-none  the same run again, nothing changed: every pass reused;
#   cached-one   after one kernel source ($TOUCH, default
#                kernels/rmsnorm/rmsnorm.cu) got a comment line and the binary
#                was rebuilt (`make $BIN`, build_s= its time): the run after
#                the build. The source is restored afterwards (and rebuilt
#                when REBUILD=1, the default).
# Ends with one line per run:
#     BENCH mode=<serial|jobs|jobs-mps|jobs-SCHED|cached-fill|cached-none|cached-one> n=<N> items=<selected> cached=<reused> wall_s=<s> gpu_busy=<0..1> cpu_cores=<mean busy cores> summary=<same|differs> [build_s=<s>]
# summary compares the run's SUMMARY counts (its line without the time and
# the "; N cached" note) with the serial run's. Exit 1 when a run's SUMMARY
# differs or a run failed.
set -u
[ $# -ge 1 ] || { echo "usage: sh bench/gpu_suite.sh OUTDIR [run arguments...]" >&2; exit 2; }
OUT=$1; shift
[ $# -gt 0 ] || set -- '*' --records records/llama3-8b.txt --records records/mixtral-8x7b.txt
BIN=${BIN:-build/kcontract}
NS=${NS:-8}
MPS=${MPS:-0}
SCHEDS=${SCHEDS:-}
CACHED=${CACHED:-1}
ONLY_CACHED=${ONLY_CACHED:-0}   # 1: only the cache's modes (their summary compared with cached-fill's)
TOUCH=${TOUCH:-kernels/rmsnorm/rmsnorm.cu}
REBUILD=${REBUILD:-1}
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "gpu_suite.sh: $BIN not built (make)" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "gpu_suite.sh: nvidia-smi not found: no GPU to measure" >&2; exit 2; }
TIME=""
[ -x /usr/bin/time ] && TIME="/usr/bin/time -v"

now() { date +%s.%N; }
busy_jiffies() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
total_jiffies() { awk '/^cpu /{ s = 0; for (i = 2; i <= 9; i++) s += $i; print s }' /proc/stat; }
summary_of() { sed -n 's/^SUMMARY \(.*\)  ([0-9.]* s)$/\1/p' "$1" | tail -n 1 | sed 's/; [0-9]* cached$//'; }
# a key of the run's TALLY line (items, cached)
tally_of() { sed -n "s/^TALLY .* $2=\([0-9]*\).*/\1/p" "$1" | tail -n 1; }

# run NAME MODE N [extra kcontract options]: one measured run; prints its
# BENCH line (with $EXTRA after it).
run() {
    name=$1 mode=$2 n=$3; shift 3
    nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 500 > "$OUT/$name.util" 2>/dev/null &
    sampler=$!
    b0=$(busy_jiffies) t0j=$(total_jiffies) t0=$(now)
    $TIME -o "$OUT/$name.time" "$BIN" run "$@" --json "$OUT/$name.jsonl" > "$OUT/$name.log" 2>&1
    rc=$?
    t1=$(now) b1=$(busy_jiffies) t1j=$(total_jiffies)
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    cpus=$(nproc)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    cores=$(awk -v b0="$b0" -v b1="$b1" -v t0="$t0j" -v t1="$t1j" -v c="$cpus" \
        'BEGIN { d = t1 - t0; printf "%.2f", (d > 0 ? (b1 - b0) / d * c : 0) }')
    busy=$(awk '{ s += $1; n++ } END { printf "%.3f", n ? s / n / 100 : 0 }' "$OUT/$name.util")
    s=$(summary_of "$OUT/$name.log")
    same=differs
    [ -n "$s" ] && [ "$s" = "$SERIAL_SUMMARY" ] && same=same
    [ "$mode" = serial ] && same=same
    [ "$mode" = cached-fill ] && [ -z "$SERIAL_SUMMARY" ] && same=same     # ONLY_CACHED: the reference itself
    echo "$name: exit $rc, wall $wall s, SUMMARY $s" >&2
    [ -n "$s" ] || same=differs
    items=$(tally_of "$OUT/$name.log" items)
    cached=$(tally_of "$OUT/$name.log" cached)
    echo "BENCH mode=$mode n=$n items=${items:-0} cached=${cached:-0} wall_s=$wall gpu_busy=$busy cpu_cores=$cores summary=$same${EXTRA:+ $EXTRA}" >> "$OUT/bench.out"
    [ "$same" = same ] || FAILED=1
}

FAILED=0
EXTRA=""
: > "$OUT/bench.out"
SERIAL_SUMMARY=""
[ "$ONLY_CACHED" = 1 ] || {
run serial serial 1 "$@" --no-cache
SERIAL_SUMMARY=$(summary_of "$OUT/serial.log")
[ -n "$SERIAL_SUMMARY" ] || FAILED=1
}
for n in $NS; do
    [ "$ONLY_CACHED" = 1 ] && break
    run "jobs-$n" jobs "$n" "$@" --jobs "$n" --no-cache
    for s in $SCHEDS; do
        export KC_CUDA_SCHED="$s"
        run "jobs-$s-$n" "jobs-$s" "$n" "$@" --jobs "$n" --no-cache
        unset KC_CUDA_SCHED
    done
    if [ "$MPS" = 1 ] && command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
        export CUDA_MPS_PIPE_DIRECTORY="$OUT/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$OUT/mps-log"
        mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
        nvidia-cuda-mps-control -d
        run "jobs-mps-$n" jobs-mps "$n" "$@" --jobs "$n" --no-cache
        echo quit | nvidia-cuda-mps-control
        sleep 1
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    fi
done
if [ "$CACHED" = 1 ]; then
    n=${NS%% *}
    export KC_CACHE_DIR="$OUT/cache"
    rm -rf "$KC_CACHE_DIR"
    run cached-fill cached-fill "$n" "$@" --jobs "$n"
    [ -n "$SERIAL_SUMMARY" ] || SERIAL_SUMMARY=$(summary_of "$OUT/cached-fill.log")
    run cached-none cached-none "$n" "$@" --jobs "$n"
    if [ -f "$TOUCH" ]; then
        cp "$TOUCH" "$OUT/touched.orig"
        echo "// bench/gpu_suite.sh cached-one: $(date +%s)" >> "$TOUCH"
        b0=$(now)
        make "$BIN" > "$OUT/cached-one.build" 2>&1 || FAILED=1
        b1=$(now)
        EXTRA="build_s=$(awk -v a="$b0" -v b="$b1" 'BEGIN { printf "%.1f", b - a }') touched=$TOUCH"
        run cached-one cached-one "$n" "$@" --jobs "$n"
        EXTRA=""
        cp "$OUT/touched.orig" "$TOUCH"
        [ "$REBUILD" = 1 ] && { make "$BIN" > "$OUT/restore.build" 2>&1 || FAILED=1; }
    else
        echo "gpu_suite.sh: $TOUCH not found: no cached-one run (TOUCH=kernels/<k>/<k>.cu)" >&2
    fi
    unset KC_CACHE_DIR
fi
cat "$OUT/bench.out"
exit "$FAILED"
