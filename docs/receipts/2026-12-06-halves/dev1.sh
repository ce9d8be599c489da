#!/bin/bash
# device call 1: where an every-item run's wall goes at the tree named in COMMIT.
# Each part of the suite alone, with the receipts' whole-suite flags (R,
# --jobs 4 --inflight 4, a fresh copy of the reference cost table, --no-cache,
# --json), the GPU's utilization sampled every 200 ms by nvidia-smi:
#   all    every item (866), twice, first and last
#   san    the sanitizer's half: the 106 :sanitize items and the 7 controls planted for it
#   alone  the items that run alone in a worker: the 14 controls planted for gate 1,
#          the 29 CUB/cuBLAS items, the 16 suites, the 97 :limits items
#   fly    the 597 items that go in flight (driver-launched kernels and their gate 2-4 controls)
#   work   alone + fly (everything but the sanitizer's half)
# then serially the items other than :sanitize, and bench/gpu_suite.sh's cache
# modes (cached-fill, cached-none, cached-one).
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-halves/dev1.sh (.deps carried).
. tools/gpu-env.sh
set -f
G1="*:control.page_offset_i32 *:control.slot_offset_i32 *:control.expect_tx_short *:control.phase_flip *:control.int32_byte_offset"
SANCTL="*:control.smem_reuse_race *:control.masked_tail_read_oob gemm_hopper.fp8:control.scale_row_unclamped"
LIB="cub.* cublas_gemm.*"; SUITES="gpu.* host.*"; LIM="*:limits"; SAN="*:sanitize"
ex() { for p in "$@"; do printf -- "--exclude %s " "$p"; done; }
part() { local n=$1; shift
         echo "$n: $($K list "$@" 2>/dev/null | tail -1)" >> "$L/env.txt"
         cp "$KC_GPU_COSTS" "$L/costs-$n.tsv"
         nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 > "$L/$n.smi" 2>&1 &
         local smi=$!
         gpu_run "$n" 150 $K run "$@" --jobs 4 --inflight 4 --costs "$L/costs-$n.tsv" --no-cache --json "$L/$n.json"
         kill $smi; wait $smi 2>/dev/null
         awk -F', ' -v n="$n" '$2 ~ /^[0-9]+$/ { s += $2; c++; if ($2 >= 50) h++ }
              END { printf "%s: GPU utilization mean %.1f%% over %d samples of 200 ms, %d at 50%% or more\n", n, s / c, c, h }' \
              "$L/$n.smi" >> "$L/env.txt"; }
part all-1 '*' $R
part san $SAN $SANCTL $R
part alone $G1 $LIB $SUITES $LIM $R $(ex $SAN)
part fly '*' $R $(ex $SAN $SANCTL $G1 $LIB $SUITES $LIM)
part work '*' $R $(ex $SAN $SANCTL)
part all-2 '*' $R
set +f
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
ONLY_CACHED=1 NS=4 timeout 240 sh bench/gpu_suite.sh $L/bench '*' $R --inflight 4 > $L/bench.log 2>&1; el bench
grep -h "^BENCH" $L/bench.log >> $L/env.txt
rm -rf $L/bench/cache
gpu_env_pack
