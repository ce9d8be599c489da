#!/bin/bash
# device call 4 (issue 23): the harness's check results in page-locked host
# memory: the bench's 16 lanes with --trace, and the whole suite under
# --jobs 4 --inflight 4 with call 2's cost table (every verdict as before?).
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract build/kc_inflight_bench >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
/usr/bin/time -v -o $L/bench.time timeout 70 ./build/kc_inflight_bench --trace --k 16 > $L/bench.log 2>&1
el "bench --trace 16" $?
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
cp docs/receipts/2026-12-03-h200-lanes/costs-j4i4.tsv $L/costs.tsv
/usr/bin/time -v -o $L/j4i4.time timeout 90 ./build/kcontract run '*' $R --jobs 4 --inflight 4 --costs $L/costs.tsv --json $L/j4i4.json > $L/j4i4.log 2>&1
el "j4i4 (costs of call 2)" $?
grep -E "^SUMMARY|^time in items|^slowest" $L/j4i4.log | sed "s/^/j4i4: /" >> $L/env.txt
grep -v "^  differs" $L/bench.log >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
