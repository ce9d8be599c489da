#!/bin/bash
# device call 3 (issue 23): the serial run of the gates 1-4 items and the
# whole suite under --jobs 4 --inflight 4, with sessions that served no
# request stopped at once (a control decided by memcheck no longer waits
# for its racecheck session's start).
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; compute-sanitizer --version | tail -1; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
K=$PWD/build/kcontract
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
/usr/bin/time -v -o $L/serial.time timeout 150 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json > $L/serial.log 2>&1
el "serial gates 1-4" $?
grep -E "^SUMMARY|^time in items|^slowest" $L/serial.log | sed "s/^/serial: /" >> $L/env.txt
cp docs/receipts/2026-12-03-h200-lanes/costs-j4i4.tsv $L/costs.tsv
/usr/bin/time -v -o $L/j4i4.time timeout 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs.tsv --no-cache --json $L/j4i4.json > $L/j4i4.log 2>&1
el "j4i4 every item" $?
grep -E "^SUMMARY|^time in items|^slowest|^workers" $L/j4i4.log | sed "s/^/j4i4: /" >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
