#!/bin/bash
# run.sh — issue 22's first GPU check on one H200: build, then
#  1. the cluster and cooperative contracts (rmsnorm_cluster.*, quant_fp8.*),
#     serially, seeds 1 to 5 (every kernel PASS, every control RED);
#  2. their SASS: cluster barriers and distributed shared memory mapping;
#  3. --shard 0/2 and 1/2 of them, merged: the same SUMMARY as serial;
#  4. the whole suite with both record files, serially without the
#     :sanitize items and with --jobs 8 with them (the rest unchanged).
# Logs go to $OUT/logs.tgz (the device returns at most 8 files). Run from
# the repository root with .deps carried.
set -u -f   # -f: patterns reach kcontract unexpanded
OUT=${OUT:-/tmp/kc-out}
mkdir -p "$OUT" logs
export PATH="$PATH:/usr/local/cuda/bin"
sh tools/gpu-deps.sh unpack
t0=$(date +%s)
make -j"$(nproc)" build/kcontract > logs/build.log 2>&1 || { tail -n 40 logs/build.log; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > logs/env.txt
./build/kcontract info >> logs/env.txt 2>&1
K="rmsnorm_cluster.* quant_fp8.*"
for s in 1 2 3 4 5; do
  ./build/kcontract run $K --seed $s > logs/new.seed$s.log 2>&1
  echo "new items, seed $s: exit $? | $(grep '^SUMMARY' logs/new.seed$s.log)"
done
grep -hE '^(FAIL|MISSED|CRASH|TIMEOUT|LEAK|LIMIT|KNOWN)|^ +also' logs/new.seed*.log | head -n 40
grep -h 'rmsnorm_cluster.*:limits\|quant_fp8.*:limits' logs/new.seed1.log | cut -c1-400
grep -h ':control\.' logs/new.seed1.log | cut -c1-220
for f in rmsnorm_cluster quant_fp8; do
  cuobjdump -sass build/fatbin/$f.fatbin > logs/sass.$f.txt 2>&1
  echo "$f SASS: $(grep -c UCGABAR logs/sass.$f.txt) UCGABAR, $(grep -c MAPA logs/sass.$f.txt) MAPA, $(grep -cE 'LD\.E.*|LDS' logs/sass.$f.txt) loads, $(grep -c 'ATOM' logs/sass.$f.txt) ATOM*"
done
./build/kcontract run $K --shard 0/2 > logs/shard0.log 2>&1; ./build/kcontract run $K --shard 1/2 > logs/shard1.log 2>&1
./build/kcontract merge $K --log logs/shard0.log --log logs/shard1.log > logs/merge.log 2>&1
echo "merge: exit $? | $(grep '^SUMMARY' logs/merge.log)"
R="* --records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
KC_PREBUILT=1 bash tools/gpu-run.sh logs/serial $R --exclude '*:sanitize' > /dev/null 2>&1
KC_PREBUILT=1 bash tools/gpu-run.sh logs/jobs8 $R --jobs 8 --costs logs/jobs8/costs.tsv > /dev/null 2>&1
for d in serial jobs8; do
  echo "== $d: $(grep -E '^SUMMARY' logs/$d/run.log)"; grep -E 'Elapsed|exit status' logs/$d/time.txt
  grep -E '^(\[w[0-9]+\] )?(FAIL|MISSED|CRASH|TIMEOUT|LEAK|LIMIT|NOTRUN) ' logs/$d/run.log | cut -c1-300 | head -n 20
done
rm -f logs/*/mem.txt
tar czf "$OUT/logs.tgz" logs
