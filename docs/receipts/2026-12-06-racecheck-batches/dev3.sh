#!/bin/bash
# The final tree: the 106 :sanitize items on two workers with batches, twice,
# and once with KC_SANITIZE_BATCH=0 (same binary), after the second review's
# mends to the verdict rule (e584839, 6dc8b5d): no clean run changes.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-racecheck-batches/dev3.sh (.deps carried).
. tools/gpu-env.sh
S="run *:sanitize $R --no-cache --jobs 2 --inflight 4"
gpu_run san-final-1 200 $K $S
KC_SANITIZE_BATCH=0 gpu_run san-final-off 200 $K $S
gpu_run san-final-2 200 $K $S
for n in san-final-1 san-final-2; do
  grep -o "a batch of [0-9]* items" $L/$n.log | sort | uniq -c | sed "s/^/$n: lines: /" >> $L/env.txt
done
gpu_env_pack
