#!/bin/bash
# device call 2: the tree named in COMMIT, after two reviews' mends of the
# end line (an exit under an item is the item's; the end limit counted from
# READY; a stop after the end line still vouches):
#   all-1         every item (866), the receipts' whole-suite flags (gpu_suite),
#                 GPU utilization every 200 ms;
#   serial        every item serially, :sanitize included;
#   bench         bench/gpu_suite.sh's cache modes;
#   overdue-*     a control planted for gate 1 whose worker's teardown is held
#                 60 s (KC_FAULT_TEARDOWN_S) with the end limit at 1 + 20 s
#                 (KC_SANITIZE_TIMEOUT_S=1), with a real lost context: with
#                 --jobs 2 and serially (the standby's slot).
# Then every log is searched for the new lines: only the overdue runs may have one.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-end-line/dev2.sh (.deps carried).
. tools/gpu-env.sh
set -f
smi() { nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 > "$L/$1.smi" 2>&1 & SMI=$!; }
smi_end() { kill $SMI; wait $SMI 2>/dev/null; }
smi all-1; gpu_suite all-1 150 $K; smi_end
gpu_run serial 240 $K run '*' $R --no-cache --json $L/serial.json
ONLY_CACHED=1 NS=4 timeout 240 sh bench/gpu_suite.sh $L/bench '*' $R --inflight 4 > $L/bench.log 2>&1; el bench
grep -h "^BENCH" $L/bench.log >> $L/env.txt
rm -rf $L/bench/cache
F="kv_cache.nhd.f16:control.slot_offset_i32 kv_cache.nhd.f16 kv_cache.hnd.f16"
KC_FAULT_TEARDOWN_S=60 KC_SANITIZE_TIMEOUT_S=1 gpu_run overdue-jobs 90 $K run $F --jobs 2 --no-cache
KC_FAULT_TEARDOWN_S=60 KC_SANITIZE_TIMEOUT_S=1 gpu_run overdue-serial 90 $K run $F --no-cache
set +f
for f in $L/all-1.log $L/serial.log $L/bench/*.log $L/overdue-*.log; do
    n=$(grep -c -E "without its end line|before it said its compute-sanitizer sessions vouch|did not end within|protocol violated|sessions not trusted" "$f")
    echo "new lines in $(basename $f): $n" >> $L/env.txt
done
grep -h "did not end within\|RED \|PASS " $L/overdue-*.log | cut -c1-300 >> $L/env.txt
gpu_env_pack
