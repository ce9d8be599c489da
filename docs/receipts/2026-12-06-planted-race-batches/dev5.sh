#!/bin/bash
# device call 5, the final tree (4be7e9a: after the second review's mends: a window
# stopped at its time limit is no item's own report): the planted races again, batches on twice,
# and serially with lanes; then, the plants taken out and the tree
# rebuilt, the 106 :sanitize items clean with batches and every item once
# (gpu_suite: --jobs 4 --inflight 4).
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-planted-race-batches/dev5.sh (.deps carried).
. tools/gpu-env.sh
S="run *:sanitize $R --no-cache --jobs 2 --inflight 4"
plant() {
  sed -i '/warp_part\[warp\] = acc;/{n;s/__syncthreads();/\/\/ planted race: barrier removed/}' kernels/reduction/reduction.cu
  sed -i '/if (lane == 0) red\[warp\] = v;/{n;s/__syncthreads();/\/\/ planted race: barrier removed/}' kernels/layernorm/layernorm.cu
  git diff --stat -- kernels >> $L/env.txt 2>&1
  make -j16 build/kcontract >> $L/build-planted.log 2>&1; el "build planted"
}
plant
gpu_run planted-batch-1 300 env KC_SANITIZE_BATCH=1 $K $S --json $L/planted-batch-1.json
gpu_run planted-batch-2 300 env KC_SANITIZE_BATCH=1 $K $S --json $L/planted-batch-2.json
gpu_run planted-serial 300 $K run 'reduce_*:sanitize' 'layernorm.*:sanitize' 'rmsnorm.*:sanitize' 'softmax.*:sanitize' \
    --no-cache --inflight 4 --json $L/planted-serial.json
git checkout -- kernels; git diff --stat -- kernels >> $L/env.txt 2>&1
make -j16 build/kcontract >> $L/build-clean.log 2>&1; el "build clean again"
gpu_run clean-batch 300 $K $S --json $L/clean-batch.json
gpu_suite all 300 $K
for n in planted-batch-1 planted-batch-2 planted-serial clean-batch all; do
  echo "$n: FAIL lines: $(grep -cE '^(\[w[0-9]+\] )?FAIL' $L/$n.log); batches: $(grep -o 'a batch of [0-9]* items' $L/$n.log | sort | uniq -c | tr -s ' ' | tr '\n' ';')" >> $L/env.txt
  grep -E '^(\[w[0-9]+\] )?FAIL' $L/$n.log | sed -E 's/^(\[w[0-9]+\] )?FAIL +([^ ]+) +(.{0,100}).*/\2 \3/' | sed "s/^/$n: /" >> $L/env.txt
done
gpu_env_pack
