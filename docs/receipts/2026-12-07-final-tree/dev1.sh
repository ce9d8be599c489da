#!/bin/bash
# device call 1: the session's final tree (named in COMMIT) on one GPU: its
# trust changes (a worker that ends on its own, queue_deaths.c; the cache's
# time limits and one entry per key, result_cache.c; the cost table's
# failed rows) must leave a real run's verdicts and lines as they were:
#   all-1   every item (R, --jobs 4 --inflight 4, a fresh copy of the
#           reference cost table, --no-cache, --json), GPU sampled;
#   serial  the gates 1-4 items serially;
#   bench   bench/gpu_suite.sh's cache modes (cached-fill, -none, -one);
#   seeds   every item into an empty cache under seed 1, then seed 2, then
#           seed 1 again: each key keeps its own entries (all cached).
# Every log is then searched for the lines a healthy run never has.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-final-tree/dev1.sh (.deps carried).
. tools/gpu-env.sh
set -f
gpu_smi all-1; gpu_suite all-1 150 $K; gpu_smi_end all-1
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
ONLY_CACHED=1 NS=4 timeout 240 sh bench/gpu_suite.sh $L/bench '*' $R --inflight 4 > $L/bench.log 2>&1; el bench
grep -h "^BENCH" $L/bench.log >> $L/env.txt
rm -rf $L/bench/cache
for s in 1 2 1; do
    n=seed$s; [ -f $L/$n.log ] && n=seed${s}again
    KC_CACHE_DIR=$L/seeds-cache gpu_run $n 150 $K run '*' $R --seed $s --jobs 4 --inflight 4 --costs $L/costs-seeds.tsv
    grep -h "^TALLY" $L/$n.log | grep -o " cached=[0-9]*\| items=[0-9]*" | tr -d '\n' | sed "s/^/$n:/" >> $L/env.txt; echo >> $L/env.txt
done
rm -rf $L/seeds-cache
set +f
for f in $L/all-1.log $L/serial.log $L/seed*.log $L/bench/*.log; do
    n=$(grep -c -E "without its end line|before it said its compute-sanitizer sessions vouch|did not end within|protocol violated|still waits for its worker's end line|could not wait for its worker|not trusted|on its own|each passed its run alone" "$f")
    p=$(grep -c -E "^(\[w[0-9]+\] )?PASS +[^ ]+:sanitize " "$f")
    echo "new lines in $(basename $f): $n; :sanitize PASS lines: $p" >> $L/env.txt
done
gpu_env_pack
