#!/bin/bash
# device call 1 (issue 23): does a compute-sanitizer session shut other
# contexts out of the GPU? kc_ctx_stall_probe (bench/ctx_stall_probe.c: one
# context launching a one-thread kernel and waiting, over and over) runs
# alone, then beside: a racecheck session's start; racecheck of a CPU-bound
# item (attn_prefill.d128.bf16) with and without 16 busy CPUs; racecheck of
# a GPU-bound one (moe.align_block_size); memcheck of it; a gate-5 control
# with its own sessions; and a plain gates 1-4 run (another context, no
# sanitizer). Then the gates 1-4 items under --jobs 4 --inflight 4 without
# the sanitizer's items and without the controls planted for it.
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; compute-sanitizer --version | tail -1; nvidia-smi -q | grep -iA3 "compute mode\|timeslice\|MIG Mode" ; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract build/kc_ctx_stall_probe >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
K=$PWD/build/kcontract P=$PWD/build/kc_ctx_stall_probe
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
EX=""
for k in kc_smem_poison kc_gen_fill kc_check_bytes kc_check_unwritten kc_check_differs kc_check_close; do EX="$EX --kernel-name-exclude kne=$k"; done
# san TOOL TAG REQUEST...: one session (every CPU for racecheck's analysis), the requests on its stdin
san() {
  local tool=$1 tag=$2; shift 2
  local extra=""; [ $tool = racecheck ] && extra="--racecheck-report analysis --racecheck-num-workers 16"
  printf '%s\n' "$@" | /usr/bin/time -f "TIME $tag %e s wall %U s user %S s sys %M KiB" \
    compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 --launch-timeout 60 \
    --target-processes application-only --report-api-errors no $EX $extra \
    $K run --sanitize-target --seed 1 --device 0 > $L/san-$tag.txt 2>&1
}
# phase TAG PROBE_SECONDS CMD...: the probe from now, CMD from 1 s later; both waited for
phase() {
  local tag=$1 secs=$2; shift 2
  $P $secs > $L/probe-$tag.txt 2>&1 &
  local pp=$!
  sleep 1
  local a=$(date +%s.%N)
  "$@"
  local b=$(date +%s.%N)
  wait $pp
  echo "phase $tag: competitor unix $a .. $b" >> $L/probe-$tag.txt
  echo "$tag: $(tail -n 2 $L/probe-$tag.txt | head -n 1) | competitor $(awk "BEGIN{printf \"%.2f\", $b - $a}") s" >> $L/phases.txt
}
hog() { for i in $(seq 16); do timeout $1 sh -c 'while :; do :; done' & done; }
phase alone 4 sleep 1
phase race-start 6 san racecheck start
phase race-attn 12 san racecheck attn "attn_prefill.d128.bf16:sanitize edge"
hog 20; phase race-attn-hog 22 san racecheck attn-hog "attn_prefill.d128.bf16:sanitize edge"; wait
phase race-moe 12 san racecheck moe "moe.align_block_size:sanitize edge"
phase mem-moe 6 san memcheck moe-mem "moe.align_block_size:sanitize"
phase control 8 $K run 'gemm_hopper.fp8:control.scale_row_unclamped' --no-cache
phase gates 12 $K run 'moe.align_block_size' 'attn_prefill.d128.bf16' 'sampling.topk.f32' --no-cache
el probes $?
grep -h "^TIME" $L/san-*.txt >> $L/phases.txt
cp $L/phases.txt $O/phases.txt
NS="--exclude *:sanitize --exclude *smem_reuse_race --exclude *masked_tail_read_oob --exclude *scale_row_unclamped"
/usr/bin/time -v -o $L/j4i4-nosan.time timeout 150 $K run '*' $R $NS --jobs 4 --inflight 4 --no-cache --json $L/j4i4-nosan.json > $L/j4i4-nosan.log 2>&1
el "j4i4 without the sanitizer" $?
grep -E "^SUMMARY|^time in items|^slowest|^workers" $L/j4i4-nosan.log | sed "s/^/j4i4-nosan: /" >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
