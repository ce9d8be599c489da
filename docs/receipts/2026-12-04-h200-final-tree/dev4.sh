#!/bin/bash
# device call 4 (issue 23): the final code (55cdb59: held verdicts keep
# their lines, one control planted for gate 1 at a time): every item under
# --jobs 4 --inflight 4 twice, and the serial gates 1-4 run once.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
for v in 1 2; do
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 90 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  echo "j4i4-$v: put back: $(grep -c 'decided by a run with nothing beside it' $L/j4i4-$v.log), met: $(grep -c 'lost its own' $L/j4i4-$v.log)" >> $L/env.txt
done
gpu_run serial 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_env_pack
