#!/bin/bash
# device call 7 (issue 23): every item under --jobs 4 --inflight 4 again, with
# the cost table call 6's run left (costs-call6.tsv: the sanitizer items'
# costs after 5f7d639 and 9575e88), twice.
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
for n in 1 2; do
  cp docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv $L/costs-$n.tsv
  /usr/bin/time -v -o $L/j4i4-$n.time timeout 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-$n.tsv --no-cache --json $L/j4i4-$n.json > $L/j4i4-$n.log 2>&1
  el "j4i4 every item ($n)" $?
  grep -E "^SUMMARY|^slowest|^workers" $L/j4i4-$n.log | sed "s/^/j4i4-$n: /" >> $L/env.txt
  echo "j4i4-$n: CPU $(grep -E 'User time|System time|Percent of CPU|Maximum resident' $L/j4i4-$n.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
done
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
