#!/bin/bash
# device call: the whole suite under --jobs 8 without and with --inflight 4
# (one call, like for like; issue 23), then kcontract mutate over the three
# modules whose mutants the library run missed, with the accepted equivalents
# and the strengthened checks (issue 24's after-run), then --reference both.
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
bash tools/sample-mem.sh $L/mem-k1.txt 1 & S=$!
/usr/bin/time -v -o $L/k1.time timeout 110 ./build/kcontract run '*' $R --jobs 8 --json $L/k1.json > $L/k1.log 2>&1
el "k1 jobs8" $?
kill $S; bash tools/sample-mem.sh $L/mem-k4.txt 1 & S=$!
/usr/bin/time -v -o $L/k4.time timeout 100 ./build/kcontract run '*' $R --jobs 8 --inflight 4 --json $L/k4.json > $L/k4.log 2>&1
el "k4 jobs8 inflight4" $?
kill $S
/usr/bin/time -v -o $L/mut.time timeout 170 ./build/kcontract mutate --build-jobs 16 --jobs 12 --accepted kernels/mutants.accepted \
    --json $L/mut.json 'pdl.*' 'quant_fp8.*' 'embedding.*' > $L/mut.log 2>&1
el "mutate 3 modules" $?
tail -n 1 $L/mut.log >> $L/env.txt
timeout 30 ./build/kcontract run 'layernorm.*' 'rmsnorm.*' 'softmax.*' --exclude '*:*' --reference both -j 8 > $L/dref-both.log 2>&1
el "dref both" $?
cd $O && tar czf logs.tgz logs && rm -rf logs
