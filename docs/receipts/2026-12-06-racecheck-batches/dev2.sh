#!/bin/bash
# The tree after the review's mends against main before the batches
# (501aea0), both built in this call and run alternately: the :sanitize
# items alone on two workers with lanes (and once with --inflight 8:
# batches of up to 8), then every item as the receipts run it (gpu_suite:
# --jobs 4 --inflight 4).
# Run from the tree: git rev-parse HEAD > COMMIT; git archive 501aea0 -- . ':(exclude)docs/receipts' | gzip > before.tar;
# bash docs/receipts/2026-12-06-racecheck-batches/dev2.sh (.deps carried).
. tools/gpu-env.sh
gpu_before
S="run *:sanitize $R --no-cache --jobs 2"
for i in 1 2; do
  gpu_run san-new-$i 200 $K $S --inflight 4
  gpu_run san-before-$i 200 $KB $S --inflight 4
done
gpu_run san-new-i8 200 $K $S --inflight 8
for i in 1 2; do
  gpu_suite all-new-$i 150 $K
  gpu_suite all-before-$i 150 $KB
done
for n in san-new-1 san-new-i8 all-new-1; do
  grep -o "a batch of [0-9]* items" $L/$n.log | sort | uniq -c | sed "s/^/$n: lines: /" >> $L/env.txt
  grep -E "^(\[w[0-9]+\] )?(FAIL|CRASH|TIMEOUT|MISSED|LEAK) " $L/$n.log | cut -c1-300 | head -5 | sed "s/^/$n: /" >> $L/env.txt
done
gpu_env_pack
