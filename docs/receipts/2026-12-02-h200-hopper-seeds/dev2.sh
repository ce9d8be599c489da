#!/bin/bash
# device call 2: the four trapping GEMM controls, ten runs under --jobs 8 with a watch of
# the workers (does a disturbed item now run again alone and end RED?), then every item
# with both launch-record files under --jobs 8 (the whole suite after the Hopper work).
set -f
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
{ echo "date: $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_mode --format=csv; cat COMMIT 2>/dev/null; } > $L/env.txt 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
echo "build: $(( $(date +%s) - T0 )) s" >> $L/env.txt
( while :; do date -u +%T; ps -eo pid,ppid,stat,wchan:32,etimes,pcpu,args | grep '[k]contract'; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader; sleep 2; done ) > $L/watch.txt 2>&1 &
W=$!
for s in 3 4 3 4 3 4 3 4 3 4; do
  [ $(( $(date +%s) - T0 )) -gt 250 ] && { echo "trap run seed $s not run: time" >> $L/env.txt; continue; }
  timeout 100 ./build/kcontract run 'gemm_hopper*:control.phase_flip' 'gemm_hopper*:control.expect_tx_short' --seed $s -j 8 --timeout 20 >> $L/traps.log 2>&1
  echo "traps seed $s rc=$? at $(( $(date +%s) - T0 )) s: $(grep -h '^SUMMARY' $L/traps.log | tail -n 1)" >> $L/env.txt
done
kill $W
bash tools/gpu-run.sh $L/suite '*' --records records/llama3-8b.txt --records records/mixtral-8x7b.txt --jobs 8 > /dev/null 2>&1
echo "suite rc=$? at $(( $(date +%s) - T0 )) s" >> $L/env.txt
cd $O && tar czf logs.tgz logs && rm -rf logs
