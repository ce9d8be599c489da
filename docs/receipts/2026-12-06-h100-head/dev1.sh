#!/bin/bash
# device call 1: issue 23's four targets on an H200 at the tree named in COMMIT:
# serial over the gates 1-4 items; every item with --jobs 4 --inflight 4, twice;
# then bench/gpu_suite.sh's cache modes (cached-fill, cached-none, cached-one)
# with --jobs 4 --inflight 4 and a cache of their own.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-h100-head/dev1.sh (.deps carried).
. tools/gpu-env.sh
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_suite all-1 120 $K
gpu_suite all-2 120 $K
grep -h "^kcontract: memory" $L/all-1.log | sed "s/^/header: /" >> $L/env.txt
ONLY_CACHED=1 NS=4 timeout 240 sh bench/gpu_suite.sh $L/bench '*' $R --inflight 4 > $L/bench.log 2>&1; el bench
grep -h "^BENCH" $L/bench.log >> $L/env.txt
rm -rf $L/bench/cache
gpu_env_pack
