#!/bin/bash
# device call 2: the tree named in COMMIT (a lost context counted as a fault until
# its worker ends) against the tree in before.tar (the call-1 tree), each run with the
# receipts' whole-suite flags (R, --jobs 4 --inflight 4, a fresh copy of the cost
# table, --no-cache, --json), the GPU sampled every 200 ms:
#   alone-1, alone-2   the 156 items that run alone (the 14 controls planted for gate 1
#                      among them), new tree: how long each lost context took to end
#   all-new-1, all-old-1, all-new-2, all-old-2   every item, alternated
#   work-new-1, work-new-2   every item but the sanitizer's half (call 1's MISSED was there)
# Run from the tree: git rev-parse HEAD > COMMIT; git archive 1f90826 -- . ':(exclude)docs/receipts' > before.tar;
# bash docs/receipts/2026-12-06-halves/dev2.sh (.deps carried).
. tools/gpu-env.sh
gpu_before
set -f
G1="*:control.page_offset_i32 *:control.slot_offset_i32 *:control.expect_tx_short *:control.phase_flip *:control.int32_byte_offset"
SANCTL="*:control.smem_reuse_race *:control.masked_tail_read_oob gemm_hopper.fp8:control.scale_row_unclamped"
LIB="cub.* cublas_gemm.*"; SUITES="gpu.* host.*"; LIM="*:limits"; SAN="*:sanitize"
ex() { for p in "$@"; do printf -- "--exclude %s " "$p"; done; }
part() { local bin=$1 n=$2; shift 2
         cp "$KC_GPU_COSTS" "$L/costs-$n.tsv"
         nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 > "$L/$n.smi" 2>&1 &
         local smi=$!
         gpu_run "$n" 150 $bin run "$@" --jobs 4 --inflight 4 --costs "$L/costs-$n.tsv" --no-cache --json "$L/$n.json"
         kill $smi; wait $smi 2>/dev/null
         awk -F', ' -v n="$n" '$2 ~ /^[0-9]+$/ { s += $2; c++ } END { printf "%s: GPU utilization mean %.1f%% over %d samples of 200 ms\n", n, s / c, c }' \
             "$L/$n.smi" >> "$L/env.txt"
         grep -h "context lost; until then\|was being torn down\|lost its own or its worker" "$L/$n.log" | sed "s/^/$n: /" >> "$L/env.txt"; }
part $K alone-1 $G1 $LIB $SUITES $LIM $R $(ex $SAN)
part $K alone-2 $G1 $LIB $SUITES $LIM $R $(ex $SAN)
part $K all-new-1 '*' $R
part $KB all-old-1 '*' $R
part $K all-new-2 '*' $R
part $KB all-old-2 '*' $R
part $K work-new-1 '*' $R $(ex $SAN $SANCTL)
part $K work-new-2 '*' $R $(ex $SAN $SANCTL)
gpu_env_pack
