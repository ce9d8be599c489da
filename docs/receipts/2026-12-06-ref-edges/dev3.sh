#!/bin/bash
# device call 3: the memory plan's hold on the sanitizer's sessions in a real
# run: every item as the receipts run it (--jobs 4 --inflight 4, sessions
# planned at 8 GiB a worker), and with KC_SANITIZER_HOST_MIB=70000 (68 GiB a
# worker: on this 128 GiB host one worker's fit beside the others, a second's
# do not), each sampled by memsample.py; then a figure no host has (16 TiB:
# refused before any child starts) and a bad one.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-ref-edges/dev3.sh (.deps carried).
. tools/gpu-env.sh
D=docs/receipts/2026-12-06-ref-edges
sampled() {   # NAME CMD...: CMD in the background, its kcontract parent sampled
    local n=$1; shift
    "$@" & local s=$!
    local p=""; for i in $(seq 50); do p=$(pgrep -x kcontract -o); [ -n "$p" ] && break; sleep 0.1; done
    if [ -n "$p" ]; then python3 $D/memsample.py $p $L/mem-$n.txt 2> $L/mem-$n.err; else echo "no kcontract process" > $L/mem-$n.txt; fi
    wait $s
    sed "s/^/mem-$n: /" $L/mem-$n.txt | head -6 >> $L/env.txt
}
grep MemAvailable /proc/meminfo >> $L/env.txt
sampled all gpu_suite all 120 $K
export KC_SANITIZER_HOST_MIB=70000
sampled one-holder gpu_suite one-holder 150 $K
grep -E "^kcontract: memory|runs alone" $L/one-holder.log | head -5 | sed "s/^/one-holder: /" >> $L/env.txt
KC_SANITIZER_HOST_MIB=16777216 $K run '*' $R --jobs 4 --inflight 4 --no-cache > $L/refused.log 2>&1; el "refused (16 TiB)"
KC_SANITIZER_HOST_MIB=lots $K run '*' $R --jobs 4 --inflight 4 --no-cache > $L/bad.log 2>&1; el "bad figure"
unset KC_SANITIZER_HOST_MIB
tail -n 2 $L/refused.log $L/bad.log | sed "s/^/refusals: /" >> $L/env.txt
gpu_env_pack
