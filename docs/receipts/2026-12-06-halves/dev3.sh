#!/bin/bash
# device call 3: the tree named in COMMIT (the teardown rule with both of the review's
# mends) on a GPU: every item with the receipts' flags, once, and serially the items
# other than :sanitize. Run from the tree: git rev-parse HEAD > COMMIT;
# bash docs/receipts/2026-12-06-halves/dev3.sh (.deps carried).
. tools/gpu-env.sh
gpu_suite all 150 $K
grep -h "context lost; until then\|was being torn down\|lost its own or its worker" "$L/all.log" | sed "s/^/all: /" >> "$L/env.txt"
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_env_pack
