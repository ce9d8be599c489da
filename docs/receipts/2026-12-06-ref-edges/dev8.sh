#!/bin/bash
# device call 8 (50ab54e): the final tree, every item once, its header.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-ref-edges/dev8.sh (.deps carried).
. tools/gpu-env.sh
gpu_suite all 120 $K
grep -h "^kcontract: memory" $L/all.log | sed "s/^/header: /" >> $L/env.txt
gpu_env_pack
