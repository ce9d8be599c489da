#!/bin/bash
# device call 6: the GPU memory a worker's sanitizer sessions hold (the memory
# plan counts their host memory since 2c19bd5, not their GPU memory):
# memsample.py, now also summing nvidia-smi's per-process GPU memory below
# each worker once a second, over every item (--jobs 4 --inflight 4) and the
# 106 :sanitize items on two workers with batches of up to 8.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-ref-edges/dev6.sh (.deps carried).
. tools/gpu-env.sh
D=docs/receipts/2026-12-06-ref-edges
sampled() {   # NAME CMD...: CMD in the background, its kcontract parent sampled
    local n=$1; shift
    "$@" & local s=$!
    local p=""; for i in $(seq 50); do p=$(pgrep -x kcontract -o); [ -n "$p" ] && break; sleep 0.1; done
    if [ -n "$p" ]; then python3 $D/memsample.py $p $L/mem-$n.txt 2> $L/mem-$n.err; else echo "no kcontract process" > $L/mem-$n.txt; fi
    wait $s
    grep -E "whole tree|GPU memory below" $L/mem-$n.txt | sed "s/^/mem-$n: /" >> $L/env.txt
}
sampled all gpu_suite all 120 $K
sampled san-k8 gpu_run san-k8 90 $K run '*:sanitize' --jobs 2 --inflight 8 --no-cache --json $L/san-k8.json
gpu_env_pack
