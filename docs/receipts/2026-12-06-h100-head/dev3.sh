#!/bin/bash
# device call 3: the final tree (COMMIT) with the sanitizer sessions' stricter
# trust rules on a real compute-sanitizer: every item with --jobs 4 --inflight 4
# into a fresh results cache, then the same run again (a session distrusted
# by mistake would fail the first run and leave its items out of the cache:
# the second must reuse all 866).
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-h100-head/dev3.sh (.deps carried).
. tools/gpu-env.sh
cp "$KC_GPU_COSTS" $L/costs-fill.tsv
KC_CACHE_DIR=$L/cache gpu_run fill 120 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-fill.tsv --json $L/fill.json
KC_CACHE_DIR=$L/cache gpu_run none 60 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-fill.tsv --json $L/none.json
grep -h "not trusted\|without its summary\|no summary\|results cache" $L/fill.log $L/none.log | sed "s/^/check: /" >> $L/env.txt
grep -h "^TALLY" $L/fill.log $L/none.log | grep -o "cached=[0-9]*" | sed "s/^/tally: /" >> $L/env.txt
rm -rf $L/cache
gpu_env_pack
