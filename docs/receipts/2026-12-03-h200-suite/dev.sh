#!/bin/bash
# device call (issue 23, and the contracts strengthened by issue 24's triage):
# the serial gates 1-4 run and the whole suite under --jobs 8 --inflight 4,
# with at most two gate-5 controls at once; like for like with the serial
# and k4 runs of d31eb66 (63.8 s and 72.5 s).
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
/usr/bin/time -v -o $L/s1.time timeout 150 ./build/kcontract run '*' $R --exclude '*:sanitize' --json $L/s1.json > $L/s1.log 2>&1
el "s1 serial gates 1-4" $?
bash tools/sample-mem.sh $L/mem-k4.txt 1 & S=$!
/usr/bin/time -v -o $L/k4.time timeout 150 ./build/kcontract run '*' $R --jobs 8 --inflight 4 --json $L/k4.json > $L/k4.log 2>&1
el "k4 jobs8 inflight4" $?
kill $S
for f in s1 k4; do grep -E "^SUMMARY|^time in items|^slowest" $L/$f.log | sed "s/^/$f: /" >> $L/env.txt; done
cd $O && tar czf logs.tgz logs && rm -rf logs
