#!/bin/bash
# device call 4: why gemv_ref is slow: each launch's duration in case order
# (traced run of gemv.bf16 alone), and Nsight Compute on two of its launches.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-kernel-time/dev4.sh (.deps carried).
. tools/gpu-env.sh
make bench-kernel-time >> $L/build.log 2>&1; el "build libkc_kernel_time.so"
gpu_run gemv-traced 60 bench/kernel_time.sh $L/kt-gemv $K run gemv.bf16 --no-cache --json $L/gemv-traced.json
cat $L/kt-gemv/*.tsv | awk -F'\t' '$1=="K" && $8!~/^kc_/ {printf "%s %.3f ms grid %s block %s\n", $8, ($3-$2)/1e6, $6, $7}' > $L/gemv-launches.txt
rm -rf $L/kt-gemv
grep -c gemv_ref $L/gemv-launches.txt >> $L/env.txt
timeout 90 ncu --target-processes all --kernel-name gemv_ref --launch-skip 20 --launch-count 2 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
  $K run gemv.bf16 --no-cache > $L/ncu-gemv.log 2>&1; el ncu
grep -E "Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Stall|Block Limit|Compute \(SM\) Throughput|Memory Throughput|Grid Size|==PROF==|==ERROR==" $L/ncu-gemv.log | head -40 >> $L/env.txt
gpu_env_pack
