#!/bin/bash
# device call 5: the GEMV tile 8 x 32 (was 8 x 128): gemv_ref's launches in
# case order (as call 4), --reference both over every item of the three
# families that use it (bitwise agreement with the host), and their traced run.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-kernel-time/dev5.sh (.deps carried).
. tools/gpu-env.sh
make bench-kernel-time >> $L/build.log 2>&1; el "build libkc_kernel_time.so"
gpu_run gemv-traced 60 bench/kernel_time.sh $L/kt-gemv $K run gemv.bf16 --no-cache --json $L/gemv-traced.json
cat $L/kt-gemv/*.tsv | awk -F'\t' '$1=="K" && $8!~/^kc_/ {printf "%s %.3f ms grid %s block %s\n", $8, ($3-$2)/1e6, $6, $7}' > $L/gemv-launches.txt
rm -rf $L/kt-gemv
P="gemv.* fp8_gemv.* quant_int4.*"
gpu_run both 120 $K run $P $R --reference both --no-cache --json $L/both.json
gpu_run fam-traced 120 bench/kernel_time.sh $L/kt-fam $K run $P $R --no-cache --json $L/fam-traced.json
grep -E "^BENCH kernel_time|_ref$" $L/fam-traced.log | grep -E "BENCH|gemv_ref|fp8_gemv_ref|quant_int4_ref" | sed "s/^/fam-traced: /" >> $L/env.txt
for d in $L/kt-*; do [ -d "$d" ] && cat $d/*.tsv | awk -F'\t' '$2>0 && $3>=$2 {k=$1"\t"$8; n[k]++; t[k]+=($3-$2)} END{for(x in n) printf "%s\t%d\t%.6f\n", x, n[x], t[x]/1e9}' | sort -t$'\t' -k4 -rn > $d.kernels.tsv && rm -rf $d; done
gpu_env_pack
