#!/bin/bash
# device call 2: where the driver's resource-manager lock holds the run.
# rmwait.py samples every kcontract and compute-sanitizer process 10 times a
# second (uninterruptible waits in the NVIDIA driver's RM locks, by role)
# and nvidia-smi dmon the GPU's utilisation each second, over: every item
# with --jobs 4 --inflight 4 (as call 1), then the 21 controls that start
# and end CUDA contexts (the 14 planted for gate 1: a fault, a new worker;
# the 7 planted for the sanitizer: sessions of their own) with --jobs 4 and
# with --jobs 1.
. tools/gpu-env.sh
F="kv_cache.*:control.slot_offset_i32 gemm_hopper.*:control.expect_tx_short gemm_hopper.*:control.phase_flip
   attn_decode.*:control.page_offset_i32 embedding.*:control.int32_byte_offset"
S="scan.*:control.smem_reuse_race residual_add.*:control.masked_tail_read_oob gemm_hopper.fp8:control.scale_row_unclamped"
watch() {   # NAME CMD...: CMD under gpu_run with both samplers beside it
  local n=$1; shift
  python3 docs/receipts/2026-12-05-stall-hunt/rmwait.py $L/rm-$n.txt & local w=$!
  nvidia-smi dmon -s u -d 1 > $L/dmon-$n.txt 2>&1 & local d=$!
  gpu_run $n "$@"
  kill $w $d; wait $w $d 2>/dev/null
  awk -F'[ =]' '{rm+=$8; D+=$6; n++} END {printf "%s: %d s sampled, RM-lock waits %.1f process-s, D %.1f process-s\n", FILENAME, n, rm/10, D/10}' $L/rm-$n.txt >> $L/env.txt
}
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
cp $T $L/costs-j4i4.tsv
watch j4i4 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4.tsv --no-cache --json $L/j4i4.json
watch ctl-j4 150 $K run $F $S --jobs 4 --inflight 4 --no-cache --json $L/ctl-j4.json
watch ctl-j1 150 $K run $F $S --jobs 1 --no-cache --json $L/ctl-j1.json
gpu_env_pack
