#!/bin/bash
# device call 3: is the serial run slower at HEAD than at 0a749cf? Call 1
# (dev1.sh, another H100 than the parent-prints receipt's) took 36.7 s
# serially where 0a749cf took 31.5 s, and its shards 21.4 and 18.6 s where
# 0a749cf's took 17.4 and 15.3 s. Both trees on this one machine, the gates
# 1-4 items serially, alternated (before, head, head, before), then the
# every-item run once each.
# Run from the tree: git rev-parse HEAD > COMMIT; git archive 0a749cf | gzip > before.tar;
# bash docs/receipts/2026-12-07-head-verify/dev3.sh (.deps carried).
. tools/gpu-env.sh
gpu_before
set -f
gpu_run serial-before-1 120 $KB run '*' $R --exclude '*:sanitize' --no-cache
gpu_run serial-head-1 120 $K run '*' $R --exclude '*:sanitize' --no-cache
gpu_run serial-head-2 120 $K run '*' $R --exclude '*:sanitize' --no-cache
gpu_run serial-before-2 120 $KB run '*' $R --exclude '*:sanitize' --no-cache
gpu_suite all-head 150 $K
gpu_suite all-before 150 $KB
set +f
gpu_lines $L/serial-before-1.log $L/serial-head-1.log $L/serial-head-2.log $L/serial-before-2.log $L/all-head.log $L/all-before.log
gpu_env_pack
