#!/bin/bash
# device call 4: the --jobs run's wall at the tree in COMMIT against 71135dc
# (before.tar) on one machine, alternated (calls 1-3 each ran on another H100).
. tools/gpu-env.sh
gpu_before
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
one() { local n=$1 bin=$2; cp $T $L/costs-$n.tsv
        gpu_run $n 110 $bin run '*' $R --jobs 4 --inflight 4 --costs $L/costs-$n.tsv --no-cache --json $L/$n.json; }
one j4i4-after $K; one j4i4-before $KB; one j4i4-after-2 $K; one j4i4-before-2 $KB
gpu_env_pack
