#!/bin/bash
# device call 1 (issue 23; asked for nvidia-h200, an H100 came): (A) a sanitizer session that keeps its modules
# (ead9462) against one that loads them per request (a8054ca, before.tar):
# the :sanitize items alone, --jobs 2, alternated, twice each; (B) the new
# leftover reading (f21024f to a8054ca) on a GPU: every item into an empty cache, then again with
# nothing changed (the item lines not cached); (C) the 21 controls
# that start and end contexts, three times, a monitor writing every half second the
# kcontract and compute-sanitizer processes' states and wait channels, and
# the notes of children "an item left ending"; (D) every item, the
# dispatch as it is against KC_DISPATCH_SAN_CONTROLS_UNHELD=1 (f59f6b8: the
# controls planted for the sanitizer beside those planted for gate 1),
# alternated, twice each (gpu_suite).
. tools/gpu-env.sh
gpu_before
for i in 1 2; do
  gpu_run san-after-$i 120 $K run '*:sanitize' --jobs 2 --no-cache --json $L/san-after-$i.json
  gpu_run san-before-$i 120 $KB run '*:sanitize' --jobs 2 --no-cache --json $L/san-before-$i.json
done
export KC_CACHE_DIR=/tmp/kc-cache; rm -rf $KC_CACHE_DIR
cp $KC_GPU_COSTS $L/costs-fill.tsv
gpu_run fill 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-fill.tsv --json $L/fill.json
gpu_run none 60 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-fill.tsv --json $L/none.json
echo "none: $(grep -c '\[cached: ' $L/none.log) item lines cached; not cached: $(grep -E '^(\[w[0-9]+\] )?(PASS|RED|FAIL|MISSED|LIMIT|CLEAN) ' $L/none.log | grep -v '\[cached: ' | cut -c1-120 | tr '\n' '|')" >> $L/env.txt
echo "fill: lines with a process left: $(grep -c 'process.* running after it' $L/fill.log); ending notes: $(grep -c 'which an item left ending' $L/fill.log)" >> $L/env.txt
rm -rf $KC_CACHE_DIR; export KC_CACHE_DIR=off
F="kv_cache.*:control.slot_offset_i32 gemm_hopper.*:control.expect_tx_short gemm_hopper.*:control.phase_flip
   attn_decode.*:control.page_offset_i32 embedding.*:control.int32_byte_offset"
S="scan.*:control.smem_reuse_race residual_add.*:control.masked_tail_read_oob gemm_hopper.fp8:control.scale_row_unclamped"
monitor() {
  while :; do
    echo "== $(date +%s.%N | cut -c1-14)"
    ps -eLo pid,tid,ppid,stat,etimes,wchan:32,comm --sort=pid | grep -E 'kcontract|compute-sanit|TreeLauncher' | grep -v grep
    sleep 0.5
  done
}
monitor > $L/monitor.txt 2>&1 & MON=$!
for i in 1 2 3; do
  gpu_run stress-$i 150 $K run $F $S --jobs 4 --inflight 4 --timeout 30 --no-cache --json $L/stress-$i.json
  echo "stress-$i: $(grep -c 'exceeded its time limit' $L/stress-$i.log) timeouts, $(grep -c 'process.* running after it' $L/stress-$i.log) lines with a process left, $(grep -c 'which an item left ending' $L/stress-$i.log) ending notes" >> $L/env.txt
done
kill $MON
for i in 1 2; do
  gpu_suite all-held-$i 150 $K
  KC_DISPATCH_SAN_CONTROLS_UNHELD=1 gpu_suite all-unheld-$i 150 $K
done
for n in all-held-1 all-unheld-1 all-held-2 all-unheld-2; do
  echo "$n: $(grep -c 'process.* running after it' $L/$n.log) lines with a process left, $(grep -c 'which an item left ending' $L/$n.log) ending notes, $(grep -c 'exceeded its time limit' $L/$n.log) timeouts" >> $L/env.txt
done
gpu_env_pack
