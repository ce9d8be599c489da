#!/bin/bash
# device call 1: racecheck in batches against races planted outside the
# project. The 106 :sanitize items with --jobs 2 --inflight 4, batches on and
# off (KC_SANITIZE_BATCH=0), first on the tree as it is, then after two
# barriers are removed on this machine only (never committed):
#   reduction.cu  the barrier between the warp partials' write and warp 0's read
#                 (reduce_sum.* and reduce_max.*: 6 items)
#   layernorm.cu  the same barrier in block_sum (layernorm.*: 3 items)
# Expected: those 9 FAIL by racecheck in both modes, the other 97 clean.
# rss.py samples the resident memory of every kcontract and compute-sanitizer
# process of each run (peaks per process and of their sum).
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-planted-race-batches/dev1.sh (.deps carried).
. tools/gpu-env.sh
D=docs/receipts/2026-12-06-planted-race-batches
S="run *:sanitize $R --no-cache --jobs 2 --inflight 4"
sampled() {   # NAME MODE-ENV...: gpu_run NAME with rss.py beside it
  local n=$1; shift
  python3 $D/rss.py $L/rss-$n.txt & local w=$!
  gpu_run $n 300 env "$@" $K $S --json $L/$n.json
  kill -TERM $w; wait $w
  head -4 $L/rss-$n.txt | sed "s/^/$n: /" >> $L/env.txt
}
sampled clean-batch KC_SANITIZE_BATCH=1
sampled clean-off KC_SANITIZE_BATCH=0
sed -i '/warp_part\[warp\] = acc;/{n;s/__syncthreads();/\/\/ planted race: barrier removed/}' kernels/reduction/reduction.cu
sed -i '/if (lane == 0) red\[warp\] = v;/{n;s/__syncthreads();/\/\/ planted race: barrier removed/}' kernels/layernorm/layernorm.cu
grep -c "planted race" kernels/reduction/reduction.cu kernels/layernorm/layernorm.cu >> $L/env.txt
git diff --stat -- kernels >> $L/env.txt 2>&1
make -j16 build/kcontract >> $L/build-planted.log 2>&1; el "build planted"
sampled planted-batch KC_SANITIZE_BATCH=1
sampled planted-off KC_SANITIZE_BATCH=0
# serial with lanes batches too: the 9 and 9 clean neighbours
gpu_run planted-serial 300 $K run 'reduce_*:sanitize' 'layernorm.*:sanitize' 'rmsnorm.*:sanitize' 'softmax.*:sanitize' \
    --no-cache --inflight 4 --json $L/planted-serial.json
for n in clean-batch clean-off planted-batch planted-off planted-serial; do
  echo "$n: FAIL lines: $(grep -c '^\[w[0-9]*\] FAIL\|^FAIL' $L/$n.log); batches: $(grep -o 'a batch of [0-9]* items' $L/$n.log | sort | uniq -c | tr '\n' ';')" >> $L/env.txt
  grep -E '^(\[w[0-9]+\] )?FAIL' $L/$n.log | sed -E 's/^(\[w[0-9]+\] )?FAIL +([^ ]+) +(.{0,160}).*/\2 \3/' | sed "s/^/$n: /" >> $L/env.txt
done
gpu_env_pack
