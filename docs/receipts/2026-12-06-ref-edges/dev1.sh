#!/bin/bash
# device call 1: (a) --reference both over every gemm, cublas_gemm and
# gemm_hopper item with the records (their M <= 8 shapes take the GEMV tile
# that df5bb71 narrowed, not yet run on a GPU); (b) branch exp/gemv-idle-warps
# (threads whose rows are all past M skip the multiply), built from before.tar:
# gemv_ref's launch times against HEAD's and --reference both over the GEMV
# families; (c) HEAD's every-item run and traced serial run (the GEMV tile in
# a whole-suite run).
# Run from the tree: git rev-parse HEAD > COMMIT; git archive exp/gemv-idle-warps
# -- . ':(exclude)docs/receipts' | gzip > before.tar; bash docs/receipts/2026-12-06-ref-edges/dev1.sh (.deps carried).
. tools/gpu-env.sh
gpu_before
make bench-kernel-time >> $L/build.log 2>&1; el "build libkc_kernel_time.so"
launches() { cat $1/ktime.*.tsv | awk -F'\t' '$1=="K" && $8=="gemv_ref" {printf "%.3f ms grid %s\n", ($3-$2)/1e6, $6}' > $2; rm -rf $1; }
gpu_run gemv-head 60 bench/kernel_time.sh $L/kt-gh $K run gemv.bf16 --no-cache; launches $L/kt-gh $L/gemv-head-launches.txt
gpu_run gemv-idle 60 bench/kernel_time.sh $L/kt-gi $KB run gemv.bf16 --no-cache; launches $L/kt-gi $L/gemv-idle-launches.txt
gpu_run both-gemm 180 $K run 'gemm.*' 'cublas_gemm.*' 'gemm_hopper.*' $R --exclude '*:sanitize' --reference both --no-cache --json $L/both-gemm.json
gpu_run both-gemv-idle 100 $KB run 'gemv.*' 'fp8_gemv.*' 'quant_int4.*' $R --exclude '*:sanitize' --reference both --no-cache --json $L/both-gemv-idle.json
gpu_suite all 120 $K
gpu_run serial-traced 90 bench/kernel_time.sh $L/kt-serial $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-traced.json
# the serial run's copies and check kernels by size: kind, log2 bucket of bytes (copies) or grid, count, GPU-s
cat $L/kt-serial/ktime.*.tsv | awk -F'\t' '$1=="C" && $3>=$2 {b=0; x=$6; while (x>1) {x/=2; b++}; k=$8"\t2^"b; n[k]++; t[k]+=$3-$2} $1=="K" && $8~/^kc_check/ && $3>=$2 {k=$8"\t"$6; n[k]++; t[k]+=$3-$2} END{for (k in n) printf "%s\t%d\t%.6f\n", k, n[k], t[k]/1e9}' | sort -t$'\t' -k4 -rn > $L/serial-copies-checks.tsv
grep -E "^BENCH kernel_time" $L/serial-traced.log | sed "s/^/serial-traced: /" >> $L/env.txt
for d in $L/kt-*; do [ -d "$d" ] && cp $d/kernels.tsv $d.kernels.tsv 2>/dev/null; rm -rf $d; done
gpu_env_pack
