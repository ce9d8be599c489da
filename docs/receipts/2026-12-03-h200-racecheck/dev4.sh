#!/bin/bash
# device call 4 (issue 23): does racecheck's CPU time (call 2: 29 CPU-s for
# sampling.topk.f32's edge shapes, 23 for attn_prefill.d128.bf16's) depend
# on what it reports? The session's words (analysis report), then
# --racecheck-report hazard, then --racecheck-detect-level error; each also
# on a control planted for racecheck (does it still report the race?).
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; compute-sanitizer --version | tail -1; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
K=$PWD/build/kcontract
EX=""
for k in kc_smem_poison kc_gen_fill kc_check_bytes kc_check_unwritten kc_check_differs kc_check_close; do EX="$EX --kernel-name-exclude kne=$k"; done
# rc TAG "RACECHECK WORDS" REQUEST...
rc() {
  local tag=$1 words=$2; shift 2
  printf '%s\n' "$@" | /usr/bin/time -f "TIME $tag %e s wall %U s user %S s sys %M KiB" \
    compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 10 --launch-timeout 60 \
    --target-processes application-only --report-api-errors no $EX $words --racecheck-num-workers 16 \
    $K run --sanitize-target --seed 1 --device 0 > $L/rc-$tag.txt 2>&1
  echo "$(grep -h '^TIME' $L/rc-$tag.txt); $(grep -c 'Race reported\|hazard detected' $L/rc-$tag.txt) report lines; $(grep -h 'RACECHECK SUMMARY' $L/rc-$tag.txt | tail -1)" >> $L/times.txt
}
for mode in "analysis:--racecheck-report analysis" "hazard:--racecheck-report hazard" "errlevel:--racecheck-report analysis --racecheck-detect-level error"; do
  tag=${mode%%:*}; words=${mode#*:}
  rc "$tag-topk" "$words" "sampling.topk.f32:sanitize edge"
  rc "$tag-attn" "$words" "attn_prefill.d128.bf16:sanitize edge"
  rc "$tag-race" "$words" "scan.incl.f32:control.smem_reuse_race edge"
done
el "modes" $?
cat $L/times.txt >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
