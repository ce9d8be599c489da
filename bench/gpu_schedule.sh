#!/bin/sh
# bench/gpu_schedule.sh — the scheduling benchmark on a GPU machine (H200),
# with build/kcontract on the real suite. Usage:
#     sh bench/gpu_schedule.sh LOGDIR [PATTERN...]      (default: every item)
# Runs, on the same binary and filter: serial; then for N = 4 and 8:
# --jobs N --schedule static; --jobs N (the work queue, with the cost table a
# first queue run wrote); and one process per item (xargs -P N over
# `kcontract run ITEM --device D`, D round robin over the visible GPUs as the
# workers are). Every run goes under /usr/bin/time -v; every log is kept in
# LOGDIR (serial.log, static-N.log, queue-N.log, per-item-N/ITEM.log, *.time,
# the cost table costs.tsv, the queue's --json/--timeline reports). Prints
# wall time and scheduling efficiency (sum of the serial run's item times /
# (N x wall)) and checks that the TALLY counts are identical in every mode
# (per item: summed over the processes). Targets (issue 4): queue efficiency
# >= 0.9 at N = 8; queue faster than static and than per-item.
set -eu
[ $# -ge 1 ] || { echo "usage: sh bench/gpu_schedule.sh LOGDIR [PATTERN...]" >&2; exit 2; }
LOG=$1; shift
BIN=${BIN:-build/kcontract}
mkdir -p "$LOG"
[ -x "$BIN" ] || { echo "gpu_schedule.sh: $BIN not built (make all)" >&2; exit 2; }
TIME=""
[ -x /usr/bin/time ] && TIME="/usr/bin/time -v"
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l || echo 1)
[ "$NGPU" -ge 1 ] || NGPU=1

now() { date +%s.%N; }
counts() { sed -n 's/^TALLY v=1 \(.*\) items=.*/\1/p' "$1"; }
timed() {   # name command... : runs it, output to LOG/name.log, time -v to LOG/name.time; prints wall
    name=$1; shift
    t0=$(now)
    if [ -n "$TIME" ]; then $TIME -o "$LOG/$name.time" "$@" > "$LOG/$name.log" 2> "$LOG/$name.err" || true
    else "$@" > "$LOG/$name.log" 2> "$LOG/$name.err" || true; fi
    t1=$(now)
    echo "$t1 - $t0" | bc -l
}

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "binary: $BIN ($(sha256sum "$BIN" | cut -c1-16)), git $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "patterns: ${*:-(all)}"
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>/dev/null || true
    echo "CPUs: $(nproc); $(grep MemTotal /proc/meminfo)"
} > "$LOG/env.txt"
cat "$LOG/env.txt"

serial_wall=$(timed serial "$BIN" run "$@")
work=$(sed -n '/^SUMMARY /d; s/^[A-Z]* .*  (\([0-9.]*\) s)\(  rerun: .*\)\{0,1\}$/\1/p' "$LOG/serial.log" | paste -sd+ | bc -l)
ref=$(counts "$LOG/serial.log")
[ -n "$ref" ] || { echo "no TALLY in the serial run (see $LOG/serial.log)" >&2; exit 1; }
ok=1
{
printf '%-10s %3s %9s %11s  %s\n' mode N "wall s" efficiency "counts = serial"
printf '%-10s %3s %9.2f %11.3f  %s\n' serial 1 "$serial_wall" "$(echo "$work / $serial_wall" | bc -l)" reference
} | tee "$LOG/table.txt"
row() {
    eff=$(echo "$work / ($2 * $3)" | bc -l)
    if [ "$4" = "$ref" ]; then same=yes; else same=NO; ok=0; fi
    printf '%-10s %3s %9.2f %11.3f  %s\n' "$1" "$2" "$3" "$eff" "$same" | tee -a "$LOG/table.txt"
}

timed queue-warmup "$BIN" run "$@" --jobs 8 --costs "$LOG/costs.tsv" > /dev/null
for n in 4 8; do
    w=$(timed "static-$n" "$BIN" run "$@" --jobs "$n" --schedule static)
    row static "$n" "$w" "$(counts "$LOG/static-$n.log")"
    w=$(timed "queue-$n" "$BIN" run "$@" --jobs "$n" --costs "$LOG/costs.tsv" --json "$LOG/queue-$n.jsonl" \
        --timeline "$LOG/queue-$n.svg")
    row queue "$n" "$w" "$(counts "$LOG/queue-$n.log")"
    mkdir -p "$LOG/per-item-$n"
    t0=$(now)
    "$BIN" list "$@" | awk 'NF == 2 && $1 ~ /^(kernel|control|limit|suite)$/ { print NR, $2 }' |
        xargs -P "$n" -L 1 sh -c 'd=$(( $2 % '"$NGPU"' )); "$0" run "$3" --device "$d" > "$1/$(echo "$3" | tr ":/" "__").log" 2>&1 || true' \
            "$BIN" "$LOG/per-item-$n" || true
    t1=$(now)
    summed=$(for f in "$LOG/per-item-$n"/*.log; do counts "$f"; done | awk '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (!(kv[1] in v)) order[++n] = kv[1]; v[kv[1]] += kv[2] } }
        END { for (i = 1; i <= n; i++) printf "%s%s=%d", (i > 1 ? " " : ""), order[i], v[order[i]]; print "" }')
    row per-item "$n" "$(echo "$t1 - $t0" | bc -l)" "$summed"
done
echo "sum of item times (serial lines): $(printf '%.2f' "$work") s; efficiency = sum / (N x wall)" | tee -a "$LOG/table.txt"
if [ "$ok" = 1 ]; then echo "counts: identical in every mode" | tee -a "$LOG/table.txt"
else echo "counts: DIFFER (see $LOG)" | tee -a "$LOG/table.txt"; exit 1; fi
