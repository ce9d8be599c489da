#!/bin/bash
# Racecheck in batches (kc_sanitize_batch) against main before it (501aea0),
# both built in this call and run alternately: the :sanitize items alone on
# two workers with lanes, then every item as the receipts run it
# (gpu_suite: --jobs 4 --inflight 4); and the new tree with
# KC_SANITIZE_BATCH=0 (same binary, no batches).
# Run from the tree: git rev-parse HEAD > COMMIT; git archive 501aea0 > before.tar;
# bash docs/receipts/2026-12-06-racecheck-batches/dev1.sh (.deps carried).
. tools/gpu-env.sh
gpu_before
S="run *:sanitize $R --jobs 2 --inflight 4 --no-cache"
for i in 1 2; do
  gpu_run san-new-$i 200 $K $S
  gpu_run san-before-$i 200 $KB $S
done
KC_SANITIZE_BATCH=0 gpu_run san-new-off 200 $K $S
for i in 1 2; do
  gpu_suite all-new-$i 150 $K
  gpu_suite all-before-$i 150 $KB
done
for n in san-new-1 all-new-1; do
  grep -c ", a batch of " $L/$n.log | sed "s/^/$n: lines in a batch: /" >> $L/env.txt
  grep -E "^(\[w[0-9]+\] )?(FAIL|CRASH|TIMEOUT|MISSED|LEAK) " $L/$n.log | cut -c1-300 | head -5 | sed "s/^/$n: /" >> $L/env.txt
done
gpu_env_pack
