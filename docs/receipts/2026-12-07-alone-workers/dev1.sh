#!/bin/bash
# device call 1 (branch exp/alone-workers): does feeding the GPU items in
# flight from the run's first second shorten an every-item run? With
# KC_DISPATCH_ALONE_WORKERS=1 at most one worker at a time runs the items
# that go alone (controls planted for gate 1, library kernels, suites,
# :limits) while items that share are pending; the other workers without
# sessions take items in flight from the start. Default (every such worker
# takes those items first) and the knob alternated, then 5 workers with it.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-alone-workers/dev1.sh (.deps carried).
. tools/gpu-env.sh
for r in 1 2; do
    gpu_smi def-$r; gpu_suite def-$r 150 $K; gpu_smi_end def-$r
    gpu_smi one-$r; KC_DISPATCH_ALONE_WORKERS=1 gpu_suite one-$r 150 $K; gpu_smi_end one-$r
done
cp "$KC_GPU_COSTS" "$L/costs-five.tsv"
gpu_smi five; KC_DISPATCH_ALONE_WORKERS=1 gpu_run five 150 $K run '*' $R --jobs 5 --inflight 4 --costs "$L/costs-five.tsv" \
    --no-cache --json "$L/five.json"; gpu_smi_end five
for f in $L/def-*.log $L/one-*.log $L/five.log; do
    n=$(grep -c -E "without its end line|did not end within|protocol violated|not trusted|on its own|each passed its run alone" "$f")
    echo "new lines in $(basename $f): $n" >> $L/env.txt
done
gpu_env_pack
