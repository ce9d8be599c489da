#!/bin/sh
# device call 1: the standalone check, controls, perf, SASS
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O/logs
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $O/logs/env.txt 2>&1
which nvcc cuobjdump nvdisasm >> $O/logs/env.txt 2>&1; ls /usr/local/cuda/bin >> $O/logs/env.txt 2>&1
B=prebuilt/kc_gemm_hopper_bench
if ! $B 2>&1 | grep -q usage; then
  echo "prebuilt binary does not run; building" >> $O/logs/env.txt
  $B >> $O/logs/env.txt 2>&1
  nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o $B bench/gemm_hopper_bench.cu -lcuda -lcublas -lcublasLt >> $O/logs/env.txt 2>&1
fi
cd prebuilt
timeout 120 ./kc_gemm_hopper_bench check fatbin/gemm_wgmma.fatbin > $O/logs/check.txt 2>&1; echo "rc=$?" >> $O/logs/check.txt
for c in phase_flip expect_tx_short box_off_by_one k_tail_dropped store_unguarded scale_block_shift scale_row_unclamped; do
  echo "== $c" >> $O/logs/controls.txt
  timeout 60 ./kc_gemm_hopper_bench check fatbin/gemm_wgmma@$c.fatbin > $O/logs/c.txt 2>&1; echo "rc=$?" >> $O/logs/c.txt
  grep -v " result=ok" $O/logs/c.txt >> $O/logs/controls.txt
done
rm -f $O/logs/c.txt
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass fatbin/gemm_wgmma.fatbin > $O/logs/sass.txt 2>&1
  for f in gemm_wgmma_bf16 gemm_wgmma_fp8; do
    awk -v f=$f '/Function :/{on=($3==f)} on' $O/logs/sass.txt > $O/logs/f.txt
    echo "$f HGMMA=$(grep -c HGMMA $O/logs/f.txt) QGMMA=$(grep -c QGMMA $O/logs/f.txt) UTMALDG=$(grep -c UTMALDG $O/logs/f.txt) SYNCS=$(grep -c SYNCS $O/logs/f.txt)" >> $O/logs/sass_counts.txt
  done
  rm -f $O/logs/f.txt
fi
timeout 300 ./kc_gemm_hopper_bench perf 4096 8192 > $O/logs/perf.txt 2>&1; echo "rc=$?" >> $O/logs/perf.txt
cd $O && tar czf logs.tgz logs && rm -rf logs
