#!/bin/bash
# device call 2 (issue 23): does memory the lanes' stream-ordered pool keeps
# mapped catch the kv_cache slot_offset_i32 controls' wrapped writes? The
# kv_cache items on one worker with 4 in flight, and every item under
# --jobs 4 --inflight 4, with the pool keeping everything it frees (the
# default) against KC_CUDA_POOL_KEEP=0, alternated; then every item under
# --jobs 4 with one item at a time per worker, for the gates and the time.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
slot_gates() { grep -E '^(\[w[0-9]+\] )?RED +kv_cache\.[^ ]*:control\.slot_offset_i32' $L/$1.log | sed -E "s/^/$1: /; s/(caught by gate [0-9]).*/\1/" >> $L/env.txt; }
keep() { case $1 in keep0*) export KC_CUDA_POOL_KEEP=0;; *) unset KC_CUDA_POOL_KEEP;; esac; }
for v in keepall keep0; do
  keep $v
  gpu_run kv-$v 60 $K run 'kv_cache.*' --exclude '*:sanitize' $R --jobs 1 --inflight 4 --no-cache
  slot_gates kv-$v
done
for v in keepall keep0 keepall2 keep02; do
  keep $v
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 100 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  echo "j4i4-$v: put back: $(grep -c 'decided by a run with nothing beside it' $L/j4i4-$v.log), beside a verdict not final: $(grep -c 'not known to be its own' $L/j4i4-$v.log)" >> $L/env.txt
  slot_gates j4i4-$v
done
unset KC_CUDA_POOL_KEEP
cp $T $L/costs-j4i1.tsv
gpu_run j4i1 100 $K run '*' $R --jobs 4 --costs $L/costs-j4i1.tsv --no-cache --json $L/j4i1.json
slot_gates j4i1
gpu_env_pack
