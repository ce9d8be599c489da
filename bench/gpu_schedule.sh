#!/bin/sh
# bench/gpu_schedule.sh — the scheduling benchmark on a GPU machine (H200),
# with build/kcontract on the real suite. Usage:
#     sh bench/gpu_schedule.sh LOGDIR [kcontract run arguments: patterns, --records F]
# Runs, on the same binary and selection:
#   serial                  kcontract run ARGS --costs LOGDIR/costs.tsv  (writes the cost table);
#                           SERIAL_FROM=DIR reuses DIR/serial.log and DIR/costs.tsv of the same
#                           build instead (checked by the TALLY's build= identity)
#   then for N in $NS (default "8 4"; PER_GPU="1 2 4" makes N that many workers per visible
#   GPU, for the multi-GPU receipt), N = 8 first so a cut-short session keeps it, the
#   modes in $MODES (default "queue static per-item"):
#   queue-N                 ... --jobs N --costs LOGDIR/costs.tsv (ordered by the serial costs)
#   static-N                ... --jobs N --schedule static
#   per-item-N              xargs -P N over `kcontract run ITEM --device D --threads CPUs/N`
#                           (D round robin over the visible GPUs, as the workers go; the
#                           CPUs shared as --jobs N shares them)
# A queue run's workers and the GPU each used (from its --json) go to LOGDIR/gpus.txt, and
# the memory peaks are also given per GPU (PCI bus id).
# Every run goes under /usr/bin/time -v (LOGDIR/<run>.time); logs LOGDIR/<run>.log;
# the queue runs also write --json and --timeline reports. tools/sample-mem.sh samples
# every process's RSS and GPU memory (LOGDIR/mem.txt) for per-run peaks, every
# $MEM_SAMPLE_S seconds (default 1).
# Prints per run: wall time; speed-up over serial; scheduling efficiency = the run's
# own summed item times / (N x wall) (how busy its N processes were); and
# efficiency vs serial = the serial run's summed item times / (N x wall) (which
# also charges the slowdown of items sharing a host). Checks that the TALLY
# counts are identical in every mode (per item: summed over its processes).
# Targets (issue 4): queue efficiency >= 0.9 at N = 8; queue faster than static
# and than per-item. Exit 1 when the counts differ or when another $BIN run shared the
# host during a run (seen in mem.txt: more runs at once than the run starts, a run being a
# process of $BIN's name whose parent is not one: its workers, shards and forks are its own).
set -eu
[ $# -ge 1 ] || { echo "usage: sh bench/gpu_schedule.sh LOGDIR [run arguments...]" >&2; exit 2; }
LOG=$1; shift
BIN=${BIN:-build/kcontract}
MODES=${MODES:-"queue static per-item"}
MEM_SAMPLE_S=${MEM_SAMPLE_S:-1}
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l || echo 1)
[ "$NGPU" -ge 1 ] || NGPU=1
if [ -n "${PER_GPU:-}" ]; then   # e.g. PER_GPU="1 2 4": N = that many workers per visible GPU
    NS=""
    for k in $PER_GPU; do NS="$NS $((k * NGPU))"; done
fi
NS=${NS:-"8 4"}
mkdir -p "$LOG"
[ -x "$BIN" ] || { echo "gpu_schedule.sh: $BIN not built (make all)" >&2; exit 2; }
PNAME=$(basename "$BIN" | cut -c1-15)   # the process name ps and pgrep see (15 characters)
TIME=""
[ -x /usr/bin/time ] && TIME="/usr/bin/time -v"

now() { date +%s.%N; }
# Arithmetic in awk, not bc: the GPU machine's image has no bc (2026-11-30).
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
sum_lines() { awk '{ s += $1 } END { printf "%.6f", s }'; }
counts() { sed -n 's/^TALLY v=[0-9]* \(.*\) items=.*/\1/p' "$1"; }
# Summed item seconds of item lines ("[wK] STATE name ...  (12.34 s)"), any prefix.
work_of() { cat "$@" | sed -n '/^\(\[[^]]*\] \)\{0,1\}\(SUMMARY\|kcontract\)/d; s/^\(\[[^]]*\] \)\{0,1\}[A-Z]\{3,7\}  *[^ ]\{1,\}  .*  (\([0-9.]*\) s)\(  rerun: .*\)\{0,1\}$/\2/p' | sum_lines; }
# A benchmark measures a host it has to itself: warn when another process of $BIN's name
# runs as a run starts (the mem.txt check below also catches one that starts later).
others() {   # exact process name: pgrep -f would match this script's own command lines
    o=$(pgrep -x "$PNAME" | tr '\n' ' ')
    [ -z "$o" ] || echo "gpu_schedule.sh: WARNING: $PNAME processes already running ($o) as $1 starts: its figures will be disturbed" >&2
}
timed() {   # name command... : output to LOG/name.log, time -v to LOG/name.time; prints wall
    name=$1; shift
    others "$name"
    t0=$(now)
    if [ -n "$TIME" ]; then $TIME -o "$LOG/$name.time" "$@" > "$LOG/$name.log" 2> "$LOG/$name.err" || true
    else "$@" > "$LOG/$name.log" 2> "$LOG/$name.err" || true; fi
    t1=$(now)
    echo "$name $t0 $t1" >> "$LOG/spans.txt"
    calc "$t1 - $t0"
}

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "binary: $BIN ($(sha256sum "$BIN" | cut -c1-16)), git ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"
    echo "arguments: ${*:-(none: every registered item)}"
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>/dev/null || true
    echo "CPUs: $(nproc); $(grep MemTotal /proc/meminfo)"
} > "$LOG/env.txt"
cat "$LOG/env.txt"
: > "$LOG/spans.txt"
SAMPLER=""
SAMPLER_T0=$(now)   # mem.txt's t= is seconds since about this moment
if [ -f tools/sample-mem.sh ]; then bash tools/sample-mem.sh "$LOG/mem.txt" "$MEM_SAMPLE_S" "$PNAME" & SAMPLER=$!; fi
trap '[ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null || true' EXIT

if [ -n "${SERIAL_FROM:-}" ]; then
    # Reuse a serial run of the same binary (its serial.log, costs.tsv, serial.jsonl):
    # the TALLY's build= identity must match this binary's, checked on a host-only suite.
    bin_hash() { sed -n 's/^TALLY .* build=\([0-9a-f]*\).*/\1/p' "$1"; }
    "$BIN" run "${HASH_ITEM:-host.dtype.f16_roundtrip}" > "$LOG/hash.log" 2>&1 || true
    [ "$(bin_hash "$LOG/hash.log")" = "$(bin_hash "$SERIAL_FROM/serial.log")" ] && [ -n "$(bin_hash "$LOG/hash.log")" ] ||
        { echo "SERIAL_FROM=$SERIAL_FROM: its serial run is of another build (build= in the TALLY differs)" >&2; exit 2; }
    cp "$SERIAL_FROM/serial.log" "$SERIAL_FROM/costs.tsv" "$LOG/"
    [ -f "$SERIAL_FROM/serial.jsonl" ] && cp "$SERIAL_FROM/serial.jsonl" "$LOG/"
    serial_wall=$(sed -n 's/^SUMMARY .*  (\([0-9.]*\) s)$/\1/p' "$LOG/serial.log")
    echo "serial: reused from $SERIAL_FROM (same binary), wall $serial_wall s" | tee -a "$LOG/env.txt"
else
    serial_wall=$(timed serial "$BIN" run "$@" --costs "$LOG/costs.tsv" --json "$LOG/serial.jsonl")
fi
work=$(work_of "$LOG/serial.log")
ref=$(counts "$LOG/serial.log")
[ -n "$ref" ] || { echo "no TALLY in the serial run (see $LOG/serial.log)" >&2; exit 1; }
# Per-item processes need the same --records file to know the record items.
PER_ITEM_ARGS=""
prev=""
for a in "$@"; do
    [ "$prev" = "--records" ] && PER_ITEM_ARGS="$PER_ITEM_ARGS --records $a"
    prev=$a
done
ok=1
{
printf '%-10s %3s %9s %8s %11s %11s  %s\n' mode N "wall s" speedup "sched eff" "eff/serial" "counts = serial"
printf '%-10s %3s %9.2f %8.2f %11.3f %11.3f  %s\n' serial 1 "$serial_wall" 1 "$(calc "$work / $serial_wall")" \
    "$(calc "$work / $serial_wall")" reference
} | tee "$LOG/table.txt"
row() {   # mode N wall own-work counts [run name]
    if [ "$5" = "$ref" ]; then same=yes
    elif [ -z "$5" ] && [ -n "${6:-}" ] && grep -q "refused" "$LOG/$6.err" 2>/dev/null; then
        same="refused: $(grep -m 1 refused "$LOG/$6.err" | cut -c1-160)"   # e.g. the memory plan; nothing to compare
    else same=NO; ok=0; fi
    printf '%-10s %3s %9.2f %8.2f %11.3f %11.3f  %s\n' "$1" "$2" "$3" "$(calc "$serial_wall / $3")" \
        "$(calc "$4 / ($2 * $3)")" "$(calc "$work / ($2 * $3)")" "$same" | tee -a "$LOG/table.txt"
}

has_mode() { case " $MODES " in *" $1 "*) return 0 ;; esac; return 1; }
# Which GPU each worker of a queue run used, from its --json items: "w0:0 w1:1 ...".
worker_gpus() {
    sed -n 's/.*"type":"item".*"worker":\([0-9]*\),"device":\(-\{0,1\}[0-9]*\).*/\1 \2/p' "$1" | sort -n -u |
        awk '$2 >= 0 { s = s sep "w" $1 ":" $2; sep = " " } END { print s }'
}

for n in $NS; do
    if has_mode queue; then
        w=$(timed "queue-$n" "$BIN" run "$@" --jobs "$n" --costs "$LOG/costs.tsv" --json "$LOG/queue-$n.jsonl" \
            --timeline "$LOG/queue-$n.svg")
        row queue "$n" "$w" "$(work_of "$LOG/queue-$n.log")" "$(counts "$LOG/queue-$n.log")" "queue-$n"
        echo "queue-$n workers on GPUs: $(worker_gpus "$LOG/queue-$n.jsonl")" >> "$LOG/gpus.txt"
    fi
    if has_mode static; then
        w=$(timed "static-$n" "$BIN" run "$@" --jobs "$n" --schedule static)
        row static "$n" "$w" "$(work_of "$LOG/static-$n.log")" "$(counts "$LOG/static-$n.log")" "static-$n"
    fi
    has_mode per-item || continue
    mkdir -p "$LOG/per-item-$n"
    others "per-item-$n"
    thr=$(( $(nproc) / n )); [ "$thr" -ge 1 ] || thr=1; [ "$thr" -le 64 ] || thr=64   # --threads takes 1..64
    t0=$(now)
    "$BIN" list "$@" | awk 'NF == 2 && $1 ~ /^(kernel|control|limit|suite)$/ { print NR, $2 }' |
        xargs -P "$n" -L 1 sh -c 'd=$(( $2 % '"$NGPU"' )); "$0" run "$3" --device "$d" --threads '"$thr"' '"$PER_ITEM_ARGS"' > "$1/$(echo "$3" | tr ":/" "__").log" 2>&1 || true' \
            "$BIN" "$LOG/per-item-$n" || true
    t1=$(now)
    echo "per-item-$n $t0 $t1" >> "$LOG/spans.txt"
    summed=$(for f in "$LOG/per-item-$n"/*.log; do counts "$f"; done | awk '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (!(kv[1] in v)) order[++n] = kv[1]; v[kv[1]] += kv[2] } }
        END { for (i = 1; i <= n; i++) printf "%s%s=%d", (i > 1 ? " " : ""), order[i], v[order[i]]; print "" }')
    row per-item "$n" "$(calc "$t1 - $t0")" "$(work_of "$LOG/per-item-$n"/*.log)" "$summed"
done
echo "sum of item times in the serial run: $(printf '%.2f' "$work") s" | tee -a "$LOG/table.txt"
[ -f "$LOG/gpus.txt" ] && tee -a "$LOG/table.txt" < "$LOG/gpus.txt"
# Per run: the peak RSS of any one process, the peak GPU memory summed over processes per
# sample, the most processes of $BIN's name seen at once, and the most runs: processes of
# that name whose parent is not one (a run's workers, shards, and what it forks are its
# own; a serial run is a work queue of one worker, so two processes). Each mode is one
# run at a time, per-item-N N at once; more in 3 or more samples means another one shared
# the host and the run's figures are disturbed (a 2026-11-30 H200 run was, by a second run started
# too early: 13 processes at N = 4).
if [ -f "$LOG/mem.txt" ]; then
    while read -r name a b; do
        case $name in
            per-item-*) allowed=${name#per-item-} ;;
            *) allowed=1 ;;
        esac
        awk -v a="$a" -v b="$b" -v t0="$SAMPLER_T0" -v name="$name" -v allowed="$allowed" '
            { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
            { t = v["t"] + t0 }
            t >= a && t <= b && v["rss_kib"] != "" {
                if (v["rss_kib"] > r) r = v["rss_kib"]; np[v["t"]]++
                n = ++nl; lt[n] = v["t"]; lpp[n] = v["ppid"]; seen[v["t"] " " v["pid"]] = 1 }
            t >= a && t <= b && v["gpu_pid"] != "" { g[v["t"] " " v["gpu"]] += v["gpu_mib"] }
            { delete v }
            END { for (k in g) { split(k, tg, " "); if (g[k] > pg[tg[2]]) pg[tg[2]] = g[k]; if (g[k] > gm) gm = g[k] }
                  for (k in np) if (np[k] > pm) pm = np[k]
                  for (i = 1; i <= nl; i++) if (!((lt[i] " " lpp[i]) in seen)) runs[lt[i]]++
                  for (k in runs) { if (runs[k] > rm) rm = runs[k]; if (runs[k] > allowed) over++ }
                  printf "%-12s peak RSS of one process %.0f MiB, peak GPU memory on one GPU %d MiB", name, r / 1024, gm
                  for (b in pg) printf "; GPU %s %d MiB", b, pg[b]
                  printf "; at most %d processes (%d runs) at once", pm, rm
                  if (over >= 3) printf " -- SHARED HOST: more than %d runs in %d samples, figures disturbed", allowed, over
                  printf "\n" }' "$LOG/mem.txt"
    done < "$LOG/spans.txt" | tee -a "$LOG/table.txt"
fi
shared=$(sed -n 's/^\([^ ]*\) .* -- SHARED HOST.*/\1/p' "$LOG/table.txt" | tr '\n' ' ')
[ -z "$shared" ] ||
    echo "host: shared with another $PNAME during $shared: those times are not comparable" | tee -a "$LOG/table.txt"
if [ "$ok" = 1 ]; then echo "counts: identical in every mode" | tee -a "$LOG/table.txt"
else echo "counts: DIFFER (see $LOG)" | tee -a "$LOG/table.txt"; fi
[ "$ok" = 1 ] && [ -z "$shared" ] || exit 1
