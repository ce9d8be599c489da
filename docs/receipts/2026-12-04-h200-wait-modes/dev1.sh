#!/bin/bash
# device call 1 (issue 23): how a worker waits for the GPU. Workers open
# their context with CU_CTX_SCHED_BLOCKING_SYNC (KC_CUDA_SCHED=block, chosen
# in e2584e0 for --jobs 8, where spinning kept 7.6 host cores busy); the
# serial run took 32 s of system time in 44 s of wall and 398k voluntary
# context switches (2026-12-04-h200-jobs-sweep, call 4). Serial gates 1-4
# alternated block, spin, block, spin; every item under --jobs 4 --inflight 4
# block then spin; the 106 :sanitize items on 4 workers block then spin, and
# on one worker (their serial sum).
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
for v in block spin block2 spin2; do
  gpu_run serial-$v 100 env KC_CUDA_SCHED=${v%2} $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json
done
for v in block spin; do
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 90 env KC_CUDA_SCHED=$v $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
done
for v in block spin; do
  cp $T $L/costs-san-j4-$v.tsv
  gpu_run san-j4-$v 60 env KC_CUDA_SCHED=$v $K run '*:sanitize' --jobs 4 --costs $L/costs-san-j4-$v.tsv --no-cache --json $L/san-j4-$v.json
done
gpu_run san-j1-block 110 $K run '*:sanitize' --no-cache --json $L/san-j1-block.json
gpu_env_pack
