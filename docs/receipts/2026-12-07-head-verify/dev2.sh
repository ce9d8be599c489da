#!/bin/bash
# device call 2 (dev1.sh cut to what about 200 s of device time holds, after
# twelve requests got no machine): the session's tree (COMMIT) with every
# item (R, --jobs 4 --inflight 4, --no-cache, --json), the gates 1-4 items as
# two --shard slices (each a serial run of its half) joined by merge
# (--records; the TALLY's new host= and env= compared), time limits that
# run out under real kernels (--timeout 0.05, --jobs 2 --inflight 2) and
# --rerun-failed after them; each log's state lines counted (gpu_lines).
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-head-verify/dev2.sh (.deps carried).
. tools/gpu-env.sh
set -f
gpu_smi all-1; gpu_suite all-1 120 $K; gpu_smi_end all-1
gpu_run shard0 90 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 0/2
gpu_run shard1 90 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 1/2
gpu_run merge 30 $K merge '*' $R --exclude '*:sanitize' --log $L/shard0.log --log $L/shard1.log
KC_CACHE_DIR=$L/tight-cache gpu_run tight-jobs 40 $K run 'gemv.bf16*' --timeout 0.05 --jobs 2 --inflight 2
KC_CACHE_DIR=$L/tight-cache gpu_run rerun 40 $K run 'gemv.bf16*' --rerun-failed --jobs 2 --inflight 2
rm -rf $L/tight-cache
set +f
gpu_lines $L/all-1.log $L/shard0.log $L/shard1.log $L/tight-jobs.log $L/rerun.log
grep -hE "^(TALLY|SUMMARY)" $L/shard0.log $L/shard1.log $L/merge.log | sed "s/^/tally: /" >> $L/env.txt
gpu_env_pack
