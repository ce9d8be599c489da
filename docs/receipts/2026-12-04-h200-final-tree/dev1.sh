#!/bin/bash
# device call 1 (issue 23): the tree stop 40 left, run on a GPU for the first
# time (9f681d0, whose code is 1d32e62: a run of one worker yields, decided
# by the queue's worker count), plus moe.align_block_size's racecheck without
# edge.t7.e256.k8.b16 (f5794da; HEAD, 9891377, adds gpu_before). Serial
# gates 1-4 run with its default wait against KC_CUDA_SCHED=block, alternated
# twice; moe.align_block_size:sanitize against 9f681d0 (before.tar),
# alternated twice; then the 106 :sanitize items on one worker and every
# item under --jobs 4 --inflight 4, once each.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
gpu_before
for v in yield block yield2 block2; do
  case $v in block*) S=block;; *) S=;; esac
  KC_CUDA_SCHED=$S gpu_run serial-$v 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json
done
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  gpu_run moe-san-$v 60 $KK run 'moe.align_block_size:sanitize' --no-cache
  grep -h "^PASS" $L/moe-san-$v.log | sed "s/^/moe-san-$v: /" | cut -c1-600 >> $L/env.txt
done
gpu_run san-j1 100 $K run '*:sanitize' --no-cache --json $L/san-j1.json
cp $T $L/costs-j4i4.tsv
gpu_run j4i4 90 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4.tsv --no-cache --json $L/j4i4.json
gpu_env_pack
