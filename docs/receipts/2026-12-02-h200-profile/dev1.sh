#!/bin/bash
# device call: where the time goes (issue 23: the whole suite under --inflight 4,
# serial gates 1-4; issue 24: mutant builds with cubin images, runs with and
# without --inflight), each run's JSON kept.
set -f
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
/usr/bin/time -v -o $L/r1.time timeout 120 ./build/kcontract run '*' $R --jobs 8 --inflight 4 --json $L/r1.json > $L/r1.log 2>&1
el "r1 jobs8 inflight4" $?
/usr/bin/time -v -o $L/r2.time timeout 110 ./build/kcontract run '*' $R --exclude '*:sanitize' --json $L/r2.json > $L/r2.log 2>&1
el "r2 serial gates1-4" $?
/usr/bin/time -v -o $L/m1.time timeout 150 ./build/kcontract mutate --build-jobs 16 --jobs 10 --timeout 20 --budget 300 --seed 2 --json $L/m1.json > $L/m1.log 2>&1
el "m1 mutate 300" $?
cp build/mutants/run-wave*.json $L/ 2>/dev/null; for f in $L/run-wave*.json; do mv $f ${f%.json}.m1.json; done
/usr/bin/time -v -o $L/m2.time timeout 120 ./build/kcontract mutate --build-jobs 16 --jobs 8 --inflight 4 --timeout 20 --budget 300 --seed 2 --json $L/m2.json > $L/m2.log 2>&1
el "m2 mutate 300 inflight4" $?
cp build/mutants/run-wave1.json $L/run-wave1.m2.json 2>/dev/null; cp build/mutants/run-wave2.json $L/run-wave2.m2.json 2>/dev/null
timeout 40 ./build/kcontract run 'layernorm.*' 'rmsnorm.*' 'softmax.*' --exclude '*:*' --reference both -j 8 > $L/dref-both.log 2>&1
el "dref both" $?
cd $O && tar czf logs.tgz logs && rm -rf logs
