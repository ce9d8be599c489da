#!/bin/bash
# device call: kcontract mutate over every bundled module, a seeded sample of
# MUT_BUDGET mutants (issue 24's run): cubin images, the baseline, time limits
# from it; the report, the waves' JSON and the mutants' lists kept.
set -f
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
bash tools/sample-mem.sh $L/mem.txt 1 & S=$!
/usr/bin/time -v -o $L/mutate.time timeout ${MUT_LIMIT:-520} ./build/kcontract mutate --build-jobs 16 --jobs ${MUT_JOBS:-12} \
    --budget ${MUT_BUDGET:-1650} --seed 1 --json $L/mutate.json > $L/mutate.log 2>&1
el mutate $?
kill $S 2>/dev/null
tail -n 1 $L/mutate.log >> $L/env.txt
cp build/mutants/run-*.json build/mutants/mutants*.list $L/ 2>/dev/null
nvidia-smi --query-gpu=memory.used --format=csv >> $L/env.txt 2>&1
cd $O && tar czf logs.tgz logs && rm -rf logs
