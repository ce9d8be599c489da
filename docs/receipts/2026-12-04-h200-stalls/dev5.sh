#!/bin/bash
# device call 5 (issue 23): moe_align_block_size's placement scan with warp
# shuffles (5f7d639): its items' verdicts, and racecheck's run of its edge
# shapes by hand (2026-12-03-h200-racecheck call 2: 5.20 s wall, 2.2 CPU-s
# with 16 analysis threads; its :sanitize item's racecheck 4.3 s in that
# receipt's call 1). Then every item under --jobs 4 --inflight 4 with the
# lanes receipt's cost table (call 4: 65.7 s).
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
$K run 'moe.align_block_size' 'moe.align_block_size:*' $R --no-cache --json $L/moe.json > $L/moe.log 2>&1
el "moe items" $?
grep -E "^(PASS|RED|FAIL|MISSED|SKIP|CRASH|TIMEOUT|LEAK) |^SUMMARY" $L/moe.log | cut -c1-400 >> $L/env.txt
san racecheck moe-1 "moe.align_block_size:sanitize edge"
san racecheck moe-2 "moe.align_block_size:sanitize edge"
cp docs/receipts/2026-12-03-h200-lanes/costs-j4i4.tsv $L/costs-lanes.tsv
/usr/bin/time -v -o $L/j4i4.time timeout 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-lanes.tsv --no-cache --json $L/j4i4.json > $L/j4i4.log 2>&1
el "j4i4 every item" $?
grep -E "^SUMMARY|^time in items|^slowest|^workers" $L/j4i4.log | sed "s/^/j4i4: /" >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
