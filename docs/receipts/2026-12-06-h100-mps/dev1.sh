#!/bin/bash
# device call 1: would CUDA MPS let the workers' kernels run side by side (issue 23)?
# S = every item but the :sanitize items and the 14 controls planted for gate 1 (the
# items that fault on purpose), with R. Runs, alternated: S with --jobs 4 --inflight 4
# without MPS; S under an MPS daemon of this call's own (--jobs 4/8, --inflight 4/1);
# S without MPS again. Probes under MPS: one :sanitize item as an MPS client; a control
# planted for gate 1 as a client beside a healthy client run (is the fault contained?);
# the same control as a non-MPS context beside MPS clients.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-h100-mps/dev1.sh (.deps carried).
. tools/gpu-env.sh
set -f
X="--exclude *:sanitize --exclude *:control.page_offset_i32 --exclude *:control.int32_byte_offset --exclude *:control.expect_tx_short --exclude *:control.phase_flip --exclude *:control.slot_offset_i32"
S() { gpu_run "$1" 150 $K run '*' $R $X --no-cache --json "$L/$1.json" "${@:2}"; }
S plain-1 --jobs 4 --inflight 4
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=$L/mps-log
           mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; el "mps start"; }
mps_off() { echo quit | nvidia-cuda-mps-control; el "mps quit"; sleep 2
            unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
mps_on
S mps-j4i4 --jobs 4 --inflight 4
S mps-j8i4 --jobs 8 --inflight 4
S mps-j8i1 --jobs 8 --inflight 1
gpu_run probe-san 90 $K run 'rmsnorm.bf16:sanitize' --no-cache
# fault containment: a healthy client run, and 3 s in, a control planted for gate 1 as a client
( gpu_run probe-bg 150 $K run 'attn_prefill.*' 'gemm.*' $R --exclude '*:sanitize' --exclude '*:control.*' --jobs 2 --inflight 1 --no-cache ) &
sleep 3; gpu_run probe-fault 90 $K run 'kv_cache.nhd.f16:control.slot_offset_i32' --no-cache; wait
echo "mps server log tail:" >> $L/env.txt; tail -n 20 $L/mps-log/server.log >> $L/env.txt 2>&1
# the same control as a non-MPS context beside MPS clients
( gpu_run probe-bg2 150 $K run 'attn_prefill.*' 'gemm.*' $R --exclude '*:sanitize' --exclude '*:control.*' --jobs 2 --inflight 1 --no-cache ) &
sleep 3; ( unset CUDA_MPS_PIPE_DIRECTORY; gpu_run probe-fault-nonmps 90 $K run 'kv_cache.nhd.f16:control.slot_offset_i32' --no-cache ); wait
mps_off
S plain-2 --jobs 4 --inflight 4
S plain-j8i1 --jobs 8 --inflight 1
gpu_env_pack
