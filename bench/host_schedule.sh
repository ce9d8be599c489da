#!/bin/sh
# bench/host_schedule.sh — host-only scheduling benchmark, no GPU needed.
#
# Runs the fixture binary's 64 synthetic items of heavy-tailed durations
# (fixture.cost.00..63: 20-70 ms, items 0, 16, 32, 48 300 ms; all times x
# $SCALE) in every mode, on the same binary and filter:
#   serial                          kcontract-fixture run 'fixture.cost.*'
#   static    (N = 4, 8)            ... --jobs N --schedule static
#   queue     (N = 4, 8)            ... --jobs N  (cost table from a first run)
#   per-item  (N = 4, 8)            xargs -P N over `kcontract-fixture run ITEM`
# and prints the wall time and the scheduling efficiency of each
# (sum of item times, from the serial run's lines, / (N x wall)), and checks
# that the counts (TALLY keys, summed over processes for per-item) are the same
# in every mode. Usage: sh bench/host_schedule.sh [LOGDIR]   (SCALE=3 default)
set -eu
BIN=${BIN:-build/kcontract-fixture}
SCALE=${SCALE:-3}
PATTERN='fixture.cost.*'
LOG=${1:-$(mktemp -d /tmp/kc-host-bench.XXXXXX)}
mkdir -p "$LOG"
export KC_FIXTURE_COST_SCALE="$SCALE" KC_LIBCUDA=none
[ -x "$BIN" ] || { echo "host_schedule.sh: $BIN not built (make all)" >&2; exit 2; }

now() { date +%s.%N; }
# Arithmetic in awk, not bc: the GPU machine's image has no bc (2026-11-30).
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
sum_lines() { awk '{ s += $1 } END { printf "%.6f", s }'; }
# The counts of a TALLY line: every key up to items= (state counts, problems, stale).
counts() { sed -n 's/^TALLY v=[0-9]* \(.*\) items=.*/\1/p' "$1"; }
summary() { sed -n 's/^SUMMARY \(.*\)  ([0-9.]* s)$/\1/p' "$1"; }

echo "host_schedule: $BIN, items '$PATTERN' x scale $SCALE, logs in $LOG"
echo "host: $(nproc) CPUs, $(uname -sr)"

t0=$(now); "$BIN" run "$PATTERN" > "$LOG/serial.log" || true; t1=$(now)
serial_wall=$(calc "$t1 - $t0")
work=$(sed -n 's/^PASS .*  (\([0-9.]*\) s)$/\1/p' "$LOG/serial.log" | sum_lines)
ref_counts=$(counts "$LOG/serial.log")
ref_summary=$(summary "$LOG/serial.log")
[ -n "$ref_counts" ] || { echo "no TALLY in the serial run" >&2; exit 1; }
ok=1
printf '%-10s %3s %9s %11s  %s\n' mode N "wall s" efficiency "counts = serial"
printf '%-10s %3s %9.2f %11.3f  %s\n' serial 1 "$serial_wall" "$(calc "$work / $serial_wall")" reference

row() {   # mode N wall logfile-or-counts-string
    eff=$(calc "$work / ($2 * $3)")
    if [ "$4" = "$ref_counts" ]; then same=yes; else same=NO; ok=0; fi
    printf '%-10s %3s %9.2f %11.3f  %s\n' "$1" "$2" "$3" "$eff" "$same"
}

# A first queue run writes the cost table the timed queue runs read.
"$BIN" run "$PATTERN" --jobs 8 --costs "$LOG/costs.tsv" > "$LOG/queue-warmup.log" || true
for n in 4 8; do
    t0=$(now); "$BIN" run "$PATTERN" --jobs "$n" --schedule static > "$LOG/static-$n.log" || true; t1=$(now)
    row static "$n" "$(calc "$t1 - $t0")" "$(counts "$LOG/static-$n.log")"
    [ "$(summary "$LOG/static-$n.log")" = "$ref_summary" ] || { echo "  SUMMARY differs (static $n)"; ok=0; }

    t0=$(now); "$BIN" run "$PATTERN" --jobs "$n" --costs "$LOG/costs.tsv" > "$LOG/queue-$n.log" || true; t1=$(now)
    row queue "$n" "$(calc "$t1 - $t0")" "$(counts "$LOG/queue-$n.log")"
    [ "$(summary "$LOG/queue-$n.log")" = "$ref_summary" ] || { echo "  SUMMARY differs (queue $n)"; ok=0; }

    mkdir -p "$LOG/per-item-$n"
    t0=$(now)
    "$BIN" list "$PATTERN" | awk '$1 == "suite" { print $2 }' |
        xargs -P "$n" -I{} sh -c '"$0" run "$1" > "$2/$1.log" || true' "$BIN" {} "$LOG/per-item-$n"
    t1=$(now)
    # Sum every process's TALLY counts key by key.
    summed=$(for f in "$LOG/per-item-$n"/*.log; do counts "$f"; done | awk '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (!(kv[1] in v)) order[++n] = kv[1]; v[kv[1]] += kv[2] } }
        END { for (i = 1; i <= n; i++) printf "%s%s=%d", (i > 1 ? " " : ""), order[i], v[order[i]]; print "" }')
    row per-item "$n" "$(calc "$t1 - $t0")" "$summed"
done
echo "sum of item times (serial lines): $(printf '%.2f' "$work") s; efficiency = sum / (N x wall)"
if [ "$ok" = 1 ]; then echo "counts: identical in every mode"; else echo "counts: DIFFER (see $LOG)"; exit 1; fi
