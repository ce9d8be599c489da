#!/bin/bash
# device call 1: the tree at the end of stop 65 (named in COMMIT), whose
# commits after 0a749cf ran only through the fake driver: the flushed line
# marker, the parent's non-blocking pipe ends and its stderr drain, the
# no-GPU lanes fix, a driver failing inside a worker, the --rerun-failed and
# command-line changes. Each must leave a real run's verdicts and lines as
# they were:
#   all-1       every item (R, --jobs 4 --inflight 4, --no-cache, --json), GPU sampled;
#   serial      the gates 1-4 items serially;
#   shard0/1    the same items as two --shard slices, joined by merge (--records);
#   tight-jobs  time limits that run out under real kernels (--timeout 0.05,
#               --jobs 2 --inflight 2 on gemv.bf16*): one line per item still;
#   rerun       --rerun-failed after tight-jobs: it reruns what failed there;
#   bench       bench/gpu_suite.sh's cache modes (cached-fill, -none, -one).
# Every log is then counted: state lines per item (exactly one), and the
# lines a healthy run never has.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-head-verify/dev1.sh (.deps carried).
. tools/gpu-env.sh
set -f
gpu_smi all-1; gpu_suite all-1 150 $K; gpu_smi_end all-1
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_run shard0 120 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 0/2
gpu_run shard1 120 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 1/2
gpu_run merge 60 $K merge '*' $R --exclude '*:sanitize' --log $L/shard0.log --log $L/shard1.log
KC_CACHE_DIR=$L/tight-cache gpu_run tight-jobs 60 $K run 'gemv.bf16*' --timeout 0.05 --jobs 2 --inflight 2
KC_CACHE_DIR=$L/tight-cache gpu_run rerun 60 $K run 'gemv.bf16*' --rerun-failed --jobs 2 --inflight 2
rm -rf $L/tight-cache
ONLY_CACHED=1 NS=4 timeout 240 sh bench/gpu_suite.sh $L/bench '*' $R --inflight 4 > $L/bench.log 2>&1; el bench
grep -h "^BENCH" $L/bench.log >> $L/env.txt
rm -rf $L/bench/cache
set +f
gpu_lines $L/all-1.log $L/serial.log $L/shard0.log $L/shard1.log $L/tight-jobs.log $L/rerun.log
grep -hE "^(TALLY|SUMMARY)" $L/merge.log | sed "s/^/merge: /" >> $L/env.txt
gpu_env_pack
