#!/bin/bash
# device call 5 (issue 23): one control planted for gate 1 at a time
# (6b10033, in this tree 53761b6) against any number at once (4ab0239,
# before.tar), every item under --jobs 4 --inflight 4, alternated after,
# before, after, before.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
gpu_before
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 90 $KK run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  echo "j4i4-$v: put back: $(grep -c 'decided by a run with nothing beside it' $L/j4i4-$v.log), met: $(grep -c 'lost its own' $L/j4i4-$v.log)" >> $L/env.txt
done
gpu_env_pack
