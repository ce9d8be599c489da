#!/bin/bash
# device call 1: the FP8 GEMM with two partial-sum sets (SASS, speed next to cuBLASLt),
# then the Hopper families over seeds 1-5 with --jobs 8, then the trapping GEMM controls
# repeated under --jobs 8 with a watch of the workers (the TIMEOUT of issue 22's note).
set -f
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
{ echo "date: $(date -u +%FT%TZ)"; echo "host: $(uname -srm)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 2; gcc --version | head -n 1;
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,compute_mode --format=csv; cat COMMIT 2>/dev/null; } > $L/env.txt 2>&1
make -j16 build/kcontract build/kc_gemm_hopper_bench build/fatbin/gemm_wgmma.fatbin build/fatbin/gemm_tc.fatbin >> $L/build.log 2>&1 || tail -n 40 $L/build.log
echo "build: $(( $(date +%s) - T0 )) s" >> $L/env.txt
cuobjdump -sass build/fatbin/gemm_wgmma.fatbin > $L/sass.txt 2>&1
for f in gemm_wgmma_bf16 gemm_wgmma_fp8; do
  awk -v f=$f '/Function :/{on=($3==f)} on' $L/sass.txt > /tmp/f.txt
  echo "$f HGMMA=$(grep -c HGMMA /tmp/f.txt) QGMMA=$(grep -c QGMMA /tmp/f.txt) UTMALDG=$(grep -c UTMALDG /tmp/f.txt) WARPGROUP.DEPBAR=$(grep -c 'WARPGROUP.DEPBAR' /tmp/f.txt) HMMA=$(grep -c ' HMMA' /tmp/f.txt)" >> $L/sass_counts.txt
done
gzip -9 $L/sass.txt
KC_FATBIN_DIR=build/fatbin timeout 150 ./build/kc_gemm_hopper_bench perf 4096 8192 > $L/perf.txt 2>&1; echo "rc=$?" >> $L/perf.txt
echo "perf done: $(( $(date +%s) - T0 )) s" >> $L/env.txt
P="gemm_hopper* attn_prefill_hopper* pdl* rmsnorm_cluster* quant_fp8*"
for s in 1 2 3 4 5; do
  /usr/bin/time -v -o $L/time.seed$s.txt timeout 120 ./build/kcontract run $P --seed $s -j 8 > $L/run.seed$s.log 2>&1
  echo "seed $s rc=$? at $(( $(date +%s) - T0 )) s: $(grep -h '^SUMMARY' $L/run.seed$s.log)" >> $L/env.txt
done
# The trapping controls, four at a time beside each other, seeds 3 and 4 three times each,
# with a watch of every kcontract process (state, kernel wait channel) and the GPU every 2 s.
( while :; do date -u +%T; ps -eo pid,ppid,stat,wchan:32,etimes,pcpu,args | grep '[k]contract'; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader; sleep 2; done ) > $L/watch.txt 2>&1 &
W=$!
for s in 3 4 3 4 3 4; do
  [ $(( $(date +%s) - T0 )) -gt 470 ] && { echo "trap run seed $s not run: time" >> $L/env.txt; continue; }
  timeout 100 ./build/kcontract run 'gemm_hopper*:control.phase_flip' 'gemm_hopper*:control.expect_tx_short' --seed $s -j 8 --timeout 40 >> $L/traps.log 2>&1
  echo "traps seed $s rc=$? at $(( $(date +%s) - T0 )) s: $(grep -h '^SUMMARY' $L/traps.log | tail -n 1)" >> $L/env.txt
done
kill $W
cd $O && tar czf logs.tgz logs && rm -rf logs
