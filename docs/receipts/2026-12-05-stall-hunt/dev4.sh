#!/bin/bash
# device call 4: the tree at COMMIT (after the review's mends of
# kc_host_release) against an experiment built from before.tar (branch
# exp/san-controls-late, not on main): the holders of sanitizer sessions take
# the sanitizer's items before its controls, so racecheck's GPU-bound work
# starts in the first seconds, beside the churn of the controls planted for
# gate 1, and the controls planted for the sanitizer come at the end, beside
# the items in flight. The whole suite alternated, variant first; the cuBLAS
# items once at COMMIT.
. tools/gpu-env.sh
gpu_before
gpu_run cublas 120 $K run 'cublas_gemm.*' --jobs 1 --no-cache
echo "cublas: $(grep -c 'left GPU memory\|kc_host_release' $L/cublas.log) lines with memory left or a failed release" >> $L/env.txt
for i in 1 2; do
  gpu_suite late-$i 150 $KB
  gpu_suite main-$i 150 $K
done
gpu_env_pack
