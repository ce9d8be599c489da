#!/bin/bash
# device call 1: the tree named in COMMIT on one GPU: first the vouch path
# (tools/probes/vouch_rerun_probe.sh, serially and with --jobs 1: a worker
# killed under an item after its clean :sanitize verdict); then every item
# with --jobs 4 --inflight 4 with the GPU's utilization sampled; the serial
# gates 1-4 run; every item with 6 workers of 4 lanes (more workers take the
# items in flight beside the chains of items that run alone: does the GPU
# fill sooner?); every item again with 4; then with 5.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-h100-workers/dev1.sh
# (.deps carried; at c92ce91 it ran as docs/receipts/next/dev1.sh, the same file).
. tools/gpu-env.sh
PROBE_DIR=$L timeout 120 bash tools/probes/vouch_rerun_probe.sh $K > $L/probe.log 2>&1; el probe
grep -h "^PROBE" $L/probe.log >> $L/env.txt
gpu_smi all-1
gpu_suite all-1 120 $K
gpu_smi_end all-1
grep -h "^kcontract: memory" $L/all-1.log | sed "s/^/header: /" >> $L/env.txt
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
jobs_run() { cp "$KC_GPU_COSTS" $L/costs-j$1.tsv
             gpu_smi j$1
             gpu_run j$1 120 $K run '*' $R --jobs $1 --inflight 4 --costs $L/costs-j$1.tsv --no-cache --json $L/j$1.json
             gpu_smi_end j$1; }
jobs_run 6
if [ -z "${SHORT:-}" ]; then     # SHORT=1: the first four runs alone (little device time left)
    gpu_suite all-2 120 $K
    jobs_run 5
fi
gpu_env_pack
