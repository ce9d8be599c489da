#!/bin/bash
# device call 3 (issue 23): controls planted for gate 1 alone in their worker
# (398331d) against in flight (cde35ca, call 2's tree: before.tar), every
# item under --jobs 4 --inflight 4, alternated after, before, after,
# before; then the serial gates 1-4 run of this tree with its default wait
# and with KC_CUDA_SCHED=block.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
gpu_before
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 90 $KK run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  echo "j4i4-$v: put back: $(grep -c 'decided by a run with nothing beside it' $L/j4i4-$v.log), met: $(grep -c 'lost its own' $L/j4i4-$v.log)" >> $L/env.txt
done
gpu_run serial-yield 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-yield.json
KC_CUDA_SCHED=block gpu_run serial-block 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-block.json
gpu_env_pack
