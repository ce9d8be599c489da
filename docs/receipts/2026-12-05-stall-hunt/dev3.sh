#!/bin/bash
# device call 3: kc_host_release (COMMIT) against the tree before it
# (before.tar): libkc_cublas destroys its handle after every item. The
# cuBLAS items serially (their lines: memory left? a new process after
# each?), the whole suite alternated before/after with --jobs 4
# --inflight 4, and a rerun with nothing changed from a cache of its own
# (what it still runs).
. tools/gpu-env.sh
gpu_before
gpu_run cublas-after 120 $K run 'cublas_gemm.*' --jobs 1 --no-cache
gpu_run cublas-before 120 $KB run 'cublas_gemm.*' --jobs 1 --no-cache
for f in after before; do
  echo "cublas-$f: $(grep -c 'left GPU memory' $L/cublas-$f.log) lines with memory left, $(grep -c 'restarted\|fresh process' $L/cublas-$f.log) new processes" >> $L/env.txt
done
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
for i in 1 2; do for v in before after; do
  B=$K; [ $v = before ] && B=$KB
  cp $T $L/costs-$v-$i.tsv
  gpu_run j4i4-$v-$i 150 $B run '*' $R --jobs 4 --inflight 4 --costs $L/costs-$v-$i.tsv --no-cache --json $L/j4i4-$v-$i.json
  echo "j4i4-$v-$i: $(grep -c 'restarted' $L/j4i4-$v-$i.log) restarts" >> $L/env.txt
done; done
for v in after before; do
  B=$K; [ $v = before ] && B=$KB
  export KC_CACHE_DIR=$O/cache-$v; rm -rf $KC_CACHE_DIR
  gpu_run fill-$v 150 $B run '*' $R --jobs 4 --inflight 4 --costs $L/costs-$v-1.tsv
  gpu_run none-$v 60 $B run '*' $R --jobs 4 --inflight 4 --costs $L/costs-$v-1.tsv
  echo "none-$v: $(grep -c '\[cached: ' $L/none-$v.log) item lines cached; not cached: $(grep -E '^(\[w[0-9]+\] )?(PASS|RED|FAIL|MISSED|LIMIT|CLEAN) ' $L/none-$v.log | grep -v '\[cached: ' | cut -c1-90 | tr '\n' '|')" >> $L/env.txt
  rm -rf $KC_CACHE_DIR
done
export KC_CACHE_DIR=off
gpu_env_pack
