#!/bin/bash
# device call 1: the tree named in COMMIT, where a clean :sanitize verdict
# waits for its worker's end line (queue_vouch.c) and runs again alone when
# its worker ends under a later item, on a GPU; also the first GPU run of
# stop 60's post-review mends (the end line before a lost context's
# teardown, every input close limited, untrusted= in the TALLY):
#   all-1, all-2  every item (866) with the receipts' whole-suite flags (R,
#                 --jobs 4 --inflight 4, a fresh copy of the reference cost
#                 table, --no-cache, --json), GPU utilization every 200 ms;
#   serial        every item serially, :sanitize included (their clean
#                 lines now come last, after the worker's end line);
#   bench         bench/gpu_suite.sh's cache modes.
# Every log is then searched for the lines a healthy run never has (an end
# without the end line, a stopped worker, a verdict run again for want of
# it, one still waiting at the end, an untrusted SUMMARY), and each run's
# :sanitize PASS lines are counted against its SUMMARY.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-vouch-rerun/dev1.sh (.deps carried).
. tools/gpu-env.sh
set -f
smi() { nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 > "$L/$1.smi" 2>&1 & SMI=$!; }
smi_end() { kill $SMI; wait $SMI 2>/dev/null
            awk -F', ' -v n="$1" '$2 ~ /^[0-9]+$/ { s += $2; c++ } END { printf "%s: GPU utilization mean %.1f%% over %d samples of 200 ms (%.1f GPU-s)\n", n, s / c, c, s / 100 * 0.2 }' \
                "$L/$1.smi" >> "$L/env.txt"; }
smi all-1; gpu_suite all-1 150 $K; smi_end all-1
smi all-2; gpu_suite all-2 150 $K; smi_end all-2
gpu_run serial 240 $K run '*' $R --no-cache --json $L/serial.json
ONLY_CACHED=1 NS=4 timeout 240 sh bench/gpu_suite.sh $L/bench '*' $R --inflight 4 > $L/bench.log 2>&1; el bench
grep -h "^BENCH" $L/bench.log >> $L/env.txt
rm -rf $L/bench/cache
set +f
for f in $L/all-1.log $L/all-2.log $L/serial.log $L/bench/*.log; do
    n=$(grep -c -E "without its end line|before it said its compute-sanitizer sessions vouch|did not end within|protocol violated|still waits for its worker's end line|could not wait for its worker|sanitizer sessions not trusted" "$f")
    p=$(grep -c -E "^(\[w[0-9]+\] )?PASS +[^ ]+:sanitize " "$f")
    echo "new lines in $(basename $f): $n; :sanitize PASS lines: $p" >> $L/env.txt
done
gpu_env_pack
