#!/bin/bash
# device call: kcontract mutate over every bundled module, a seeded sample (--budget),
# first contract per module then the others on what it missed (two waves).
set -f
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin"
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_mode --format=csv; cat COMMIT 2>/dev/null; } > $L/env.txt 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
echo "build: $(( $(date +%s) - T0 )) s" >> $L/env.txt
/usr/bin/time -v -o $L/time.txt timeout ${MUT_LIMIT:-500} ./build/kcontract mutate --build-jobs 16 --jobs ${MUT_JOBS:-10} --timeout 20 \
    --budget ${MUT_BUDGET:-1600} --seed 1 --json $L/mutate.json > $L/mutate.log 2>&1
echo "mutate rc=$? at $(( $(date +%s) - T0 )) s" >> $L/env.txt
tail -n 1 $L/mutate.log >> $L/env.txt
gzip -9 $L/mutate.log $L/mutate.json 2>/dev/null
cp build/mutants/make.log $L/make.log 2>/dev/null; gzip -9 $L/make.log 2>/dev/null
# the common device references (issue 25) against the bundled host references, every case
timeout 60 ./build/kcontract run 'layernorm.*' 'rmsnorm.*' 'softmax.*' --exclude '*:*' --reference both -j 8 > $L/dref-both.log 2>&1
echo "dref both rc=$? at $(( $(date +%s) - T0 )) s: $(grep -h '^SUMMARY' $L/dref-both.log)" >> $L/env.txt
cd $O && tar czf logs.tgz logs && rm -rf logs
