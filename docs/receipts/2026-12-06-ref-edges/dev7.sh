#!/bin/bash
# device call 7 (1ba3ccd): the sanitizer sessions' GPU share planned (8 GiB a
# holder on its device) against it off (KC_SANITIZER_GPU_MIB=0), every item,
# alternated on one machine; each run's header and GPU memory below each worker.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-ref-edges/dev7.sh (.deps carried).
. tools/gpu-env.sh
D=docs/receipts/2026-12-06-ref-edges
sampled() {   # NAME CMD...: CMD in the background, its kcontract parent sampled
    local n=$1; shift
    "$@" & local s=$!
    local p=""; for i in $(seq 50); do p=$(pgrep -x kcontract -o); [ -n "$p" ] && break; sleep 0.1; done
    if [ -n "$p" ]; then python3 $D/memsample.py $p $L/mem-$n.txt 2> $L/mem-$n.err; else echo "no kcontract process" > $L/mem-$n.txt; fi
    wait $s
    grep -E "GPU memory below" $L/mem-$n.txt | head -3 | sed "s/^/mem-$n: /" >> $L/env.txt
    grep -h "^kcontract: memory\|runs alone" $L/$n.log | head -3 | sed "s/^/header-$n: /" >> $L/env.txt
}
sampled gpu-on gpu_suite gpu-on 120 $K
KC_SANITIZER_GPU_MIB=0 sampled gpu-off gpu_suite gpu-off 120 $K
gpu_env_pack
