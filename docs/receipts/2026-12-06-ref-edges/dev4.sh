#!/bin/bash
# device call 4 (branch exp/sanitizer-last, e2ec204): every item with the
# sanitizer's items handed out only once no other item is pending
# (KC_DISPATCH_SANITIZER_LAST=1) against the default order, alternated on one
# machine: call 3 found the sanitizer's items crawling beside the rest.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-ref-edges/dev4.sh (.deps carried).
. tools/gpu-env.sh
gpu_suite all-1 120 $K
KC_DISPATCH_SANITIZER_LAST=1 gpu_suite last-1 120 $K
gpu_suite all-2 120 $K
KC_DISPATCH_SANITIZER_LAST=1 gpu_suite last-2 120 $K
gpu_env_pack
