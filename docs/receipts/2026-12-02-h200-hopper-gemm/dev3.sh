#!/bin/bash
# device call 3: build kcontract-staging, perf (cuBLASLt FP8 fixed), the gemm_hopper contracts over seeds
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin"
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
{ echo "date: $(date -u +%FT%TZ)"; echo "host: $(uname -srm)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 2; gcc --version | head -n 1;
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv; git log -1 --format=%H 2>/dev/null; cat COMMIT 2>/dev/null; } > $L/env.txt 2>&1
make -j16 build/kcontract-staging >> $L/build.log 2>&1 || { tail -n 40 $L/build.log; }
echo "build: $(( $(date +%s) - T0 )) s" >> $L/env.txt
./build/kcontract-staging info >> $L/env.txt 2>&1
cuobjdump -sass build/fatbin/gemm_wgmma.fatbin > $L/sass.txt 2>&1
for f in gemm_wgmma_bf16 gemm_wgmma_fp8; do
  awk -v f=$f '/Function :/{on=($3==f)} on' $L/sass.txt > /tmp/f.txt
  echo "$f HGMMA=$(grep -c HGMMA /tmp/f.txt) QGMMA=$(grep -c QGMMA /tmp/f.txt) UTMALDG=$(grep -c UTMALDG /tmp/f.txt) SYNCS=$(grep -c SYNCS /tmp/f.txt) HMMA=$(grep -c ' HMMA' /tmp/f.txt)" >> $L/sass_counts.txt
done
gzip -9 $L/sass.txt
KC_FATBIN_DIR=build/fatbin timeout 120 prebuilt/kc_gemm_hopper_bench perf 4096 8192 > $L/perf.txt 2>&1; echo "rc=$?" >> $L/perf.txt
for s in 1 2 3 4 5; do
  [ $(( $(date +%s) - T0 )) -gt 130 ] && { echo "seed $s not run: time" >> $L/env.txt; continue; }
  ex=""; [ $s -gt 1 ] && ex="--exclude *:sanitize"
  /usr/bin/time -v -o $L/time.seed$s.txt timeout 100 ./build/kcontract-staging run 'gemm_hopper*' --seed $s -j 8 $ex > $L/run.seed$s.log 2>&1
  echo "seed $s rc=$? at $(( $(date +%s) - T0 )) s" >> $L/env.txt
done
cd $O && tar czf logs.tgz logs && rm -rf logs
