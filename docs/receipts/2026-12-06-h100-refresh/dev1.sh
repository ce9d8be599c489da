#!/bin/bash
# device call 1: the tree named in COMMIT on a GPU: serial over the gates 1-4
# items; every item with --jobs 4 --inflight 4 (uncached); then --no-cache
# refreshing a cache of its own (every item, --jobs 4 --inflight 4, into
# KC_CACHE_DIR=/tmp/refresh-cache) and the same run without --no-cache, which
# must reuse every verdict the --no-cache run earned.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-h100-refresh/dev1.sh (.deps carried).
. tools/gpu-env.sh
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_suite all 120 $K
rm -rf /tmp/refresh-cache
( export KC_CACHE_DIR=/tmp/refresh-cache; gpu_run refresh-fill 120 $K run '*' $R --jobs 4 --inflight 4 --no-cache )
echo "refresh-fill: entries $(ls /tmp/refresh-cache | wc -l)" >> $L/env.txt
( export KC_CACHE_DIR=/tmp/refresh-cache; gpu_run refresh-reuse 120 $K run '*' $R --jobs 4 --inflight 4 )
grep -h "^TALLY" $L/refresh-fill.log $L/refresh-reuse.log | grep -o "items=[0-9]* .*cached=[0-9]*" | sed 's/ seed.*cached/ ... cached/' | sed 's/^/tally: /' >> $L/env.txt
gpu_env_pack
