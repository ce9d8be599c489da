#!/bin/bash
# device call 6 (issue 23): sampling.topk's edge.r520.v33.k560 left out of
# racecheck (9575e88, kc_shape.no_racecheck). Its three :sanitize items
# (2026-12-03-h200-racecheck call 1, --jobs 1: racecheck 3.0, 2.9, 2.6 s),
# racecheck by hand on sampling.topk.f32's edge shapes (that receipt's call
# 2: 3.34 s wall, 29.1 CPU-s), the 106 :sanitize items on 4 workers (its
# call 1: 29.6 s), and every item under --jobs 4 --inflight 4 with the lanes
# receipt's cost table (call 5: 64.1 s).
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
EX=""
for k in kc_smem_poison kc_gen_fill kc_check_bytes kc_check_unwritten kc_check_differs kc_check_close; do EX="$EX --kernel-name-exclude kne=$k"; done
san() {
  local tool=$1 tag=$2; shift 2
  local extra=""; [ $tool = racecheck ] && extra="--racecheck-report analysis --racecheck-num-workers 16"
  printf '%s\n' "$@" | /usr/bin/time -f "TIME $tag %e s wall %U s user %S s sys %M KiB" \
    compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 --launch-timeout 60 \
    --target-processes application-only --report-api-errors no $EX $extra \
    $K run --sanitize-target --seed 1 --device 0 > $L/san-$tag.txt 2>&1
  grep -h "^TIME" $L/san-$tag.txt >> $L/env.txt
}
$K run 'sampling.topk.*' $R --no-cache --json $L/topk.json > $L/topk.log 2>&1
el "sampling.topk items" $?
grep -E "^(PASS|RED|FAIL|MISSED|SKIP|CRASH|TIMEOUT|LEAK) .*:sanitize|^SUMMARY" $L/topk.log | cut -c1-600 >> $L/env.txt
san racecheck topk-f32 "sampling.topk.f32:sanitize edge"
/usr/bin/time -v -o $L/s-j4.time timeout 150 $K run '*:sanitize' $R --jobs 4 --no-cache > $L/s-j4.log 2>&1
el "sanitize items -j4" $?
grep -E "^SUMMARY|^workers" $L/s-j4.log | sed "s/^/s-j4: /" >> $L/env.txt
echo "s-j4: CPU $(grep -E 'User time|System time|Percent of CPU' $L/s-j4.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
cp docs/receipts/2026-12-03-h200-lanes/costs-j4i4.tsv $L/costs-lanes.tsv
/usr/bin/time -v -o $L/j4i4.time timeout 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-lanes.tsv --no-cache --json $L/j4i4.json > $L/j4i4.log 2>&1
el "j4i4 every item" $?
grep -E "^SUMMARY|^time in items|^slowest|^workers" $L/j4i4.log | sed "s/^/j4i4: /" >> $L/env.txt
echo "j4i4: CPU $(grep -E 'User time|System time|Percent of CPU' $L/j4i4.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
