#!/bin/bash
# device call (issue 24, final): the warp-mask check build and the second
# round of triage. 1) the serial gates 1-4 run over every item (the checked
# build must leave the suite green, :limits included); 2) mutate iterated over
# round 1's report: only what round 1 left missed and is not accepted now is
# built and run. usage: dev-final.sh BUDGET (1534 less the entries accepted in
# round 2: the same sample less the accepted ones)
B=$1
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L /tmp/r1
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
tar xzf docs/receipts/2026-12-03-h200-mutate-after/logs-round1.tgz -C /tmp/r1 logs/after.json
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
/usr/bin/time -v -o $L/s1.time timeout 130 ./build/kcontract run '*' $R --exclude '*:sanitize' --json $L/s1.json > $L/s1.log 2>&1
el "s1 serial gates 1-4" $?
grep -E "^SUMMARY|^time in items" $L/s1.log | sed "s/^/s1: /" >> $L/env.txt
bash tools/sample-mem.sh $L/mem.txt 2 & S=$!
/usr/bin/time -v -o $L/mut.time timeout 200 ./build/kcontract mutate --build-jobs 16 --jobs 12 --budget $B --seed 1 \
    --accepted kernels/mutants.accepted --iterate /tmp/r1/logs/after.json --json $L/final.json > $L/mut.log 2>&1
el "mutate iterate" $?
kill $S
tail -n 1 $L/mut.log >> $L/env.txt
mkdir -p $L/mutants; cp build/mutants/run-*.json build/mutants/*.list $L/mutants/ 2>/dev/null
cd $O && tar czf logs.tgz logs && rm -rf logs
