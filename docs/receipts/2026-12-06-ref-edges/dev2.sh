#!/bin/bash
# device call 2: the host memory a holder's compute-sanitizer sessions take
# (the memory plan counts none of it): memsample.py samples every process
# below the run's parent every 0.2 s, for every item under --jobs 4
# --inflight 4 (racecheck batches of up to 4), and for the 106 :sanitize
# items on two workers with batches of up to 8 (--inflight 8) and without
# batches (--inflight 1).
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-ref-edges/dev2.sh (.deps carried).
. tools/gpu-env.sh
D=docs/receipts/2026-12-06-ref-edges
sampled() {   # NAME CMD...: CMD in the background, its kcontract parent sampled
    local n=$1; shift
    "$@" & local s=$!
    local p=""; for i in $(seq 50); do p=$(pgrep -x kcontract -o); [ -n "$p" ] && break; sleep 0.1; done
    if [ -n "$p" ]; then python3 $D/memsample.py $p $L/mem-$n.txt 2> $L/mem-$n.err; else echo "no kcontract process" > $L/mem-$n.txt; fi
    wait $s
    sed "s/^/mem-$n: /" $L/mem-$n.txt | head -12 >> $L/env.txt
}
sampled all gpu_suite all 120 $K
sampled san-k8 gpu_run san-k8 90 $K run '*:sanitize' --jobs 2 --inflight 8 --no-cache --json $L/san-k8.json
sampled san-k1 gpu_run san-k1 90 $K run '*:sanitize' --jobs 2 --no-cache --json $L/san-k1.json
gpu_env_pack
