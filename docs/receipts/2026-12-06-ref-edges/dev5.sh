#!/bin/bash
# device call 5: the final tree (1377b67, the review's mends to the sessions
# rule): every item as the receipts run it, and with KC_SANITIZE_BATCH=0 (the
# figure without its batch term), SUMMARY and header of each.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-ref-edges/dev5.sh (.deps carried).
. tools/gpu-env.sh
gpu_suite all 120 $K
KC_SANITIZE_BATCH=0 gpu_suite nobatch 120 $K
grep -h "^kcontract: memory" $L/all.log $L/nobatch.log | sed "s/^/header: /" >> $L/env.txt
gpu_env_pack
