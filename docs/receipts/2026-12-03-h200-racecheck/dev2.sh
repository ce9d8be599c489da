#!/bin/bash
# device call 2 (issue 23): the heavy :sanitize items' racecheck by hand
# (call 1's requests named no item: a session target gets no --records),
# CPU or GPU bound, one analysis thread against 16, sessions side by side;
# then the serial run of the gates 1-4 items with sessions started ahead
# only just before their control (call 1's rule started them items ahead,
# and the serial run's re-executions ended them unused).
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
# san TOOL WORKERS TAG REQUEST...: one session, the requests on its stdin
san() {
  local tool=$1 w=$2 tag=$3; shift 3
  local extra=""; [ $tool = racecheck ] && extra="--racecheck-report analysis --racecheck-num-workers $w"
  printf '%s\n' "$@" | /usr/bin/time -f "TIME $tag %e s wall %U s user %S s sys %M KiB" \
    compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 --launch-timeout 60 \
    --target-processes application-only --report-api-errors no $EX $extra \
    $K run --sanitize-target --seed 1 --device 0 > $L/san-$tag.txt 2>&1
  grep -h "^TIME" $L/san-$tag.txt >> $L/times.txt
}
san racecheck 16 start-racecheck
san memcheck 16 start-memcheck
for it in moe.align_block_size attn_prefill.d128.bf16 sampling.topk.f32 cub.sort_pairs_desc.f32; do
  san racecheck 16 "$it-w16" "$it:sanitize edge"
  san racecheck 1 "$it-w1" "$it:sanitize edge"
  san memcheck 16 "$it-memcheck" "$it:sanitize all"
done
el "one at a time" $?
san racecheck 16 pair-a "moe.align_block_size:sanitize edge" & san racecheck 16 pair-b "moe.align_block_size:sanitize edge" & wait
san racecheck 4 four-a "moe.align_block_size:sanitize edge" & san racecheck 4 four-b "attn_prefill.d128.bf16:sanitize edge" &
san racecheck 4 four-c "sampling.topk.f32:sanitize edge" & san racecheck 4 four-d "cub.sort_pairs_desc.f32:sanitize edge" & wait
san racecheck 16 four-serial "moe.align_block_size:sanitize edge" "attn_prefill.d128.bf16:sanitize edge" "sampling.topk.f32:sanitize edge" "cub.sort_pairs_desc.f32:sanitize edge"
el "side by side" $?
/usr/bin/time -v -o $L/serial.time timeout 150 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json > $L/serial.log 2>&1
el "serial gates 1-4" $?
grep -E "^SUMMARY|^time in items|^slowest" $L/serial.log | sed "s/^/serial: /" >> $L/env.txt
cat $L/times.txt >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
