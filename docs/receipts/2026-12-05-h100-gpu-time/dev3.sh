#!/bin/bash
# device call 3: the watchdog's bound in constant memory (the tree in COMMIT,
# after call 2's a9f878f, whose bound was a __device__ variable): the same
# racecheck sessions with one and two analysis threads (three times each),
# the gemm_hopper and attn_prefill_hopper :sanitize items through the gate on
# two CPUs, and every item with --jobs 4 --inflight 4 twice (the hang controls
# still RED by gate 1; gemm_wgmma's modules kept across items again).
. tools/gpu-env.sh
snap() { (cd "$O" && tar czf logs.tgz logs && cp logs/env.txt env.txt); }
RC() { local bin=$1 w=$2; echo compute-sanitizer --tool racecheck --error-exitcode 86 --print-limit 10 --launch-timeout 60 \
  --target-processes application-only --report-api-errors no \
  --kernel-name-exclude kne=kc_smem_poison --kernel-name-exclude kne=kc_gen_fill --kernel-name-exclude kne=kc_check_bytes \
  --kernel-name-exclude kne=kc_check_unwritten --kernel-name-exclude kne=kc_check_differs --kernel-name-exclude kne=kc_check_close \
  --show-backtrace device --racecheck-report analysis --racecheck-num-workers $w $bin run --sanitize-target --seed 1 --device 0; }
for i in 1 2 3; do for w in 1 2; do
  printf 'gemm_hopper.bf16:sanitize edge\ngemm_hopper.fp8:sanitize edge\n' | gpu_run wd-w$w-$i 120 $(RC $K $w)
  echo "wd-w$w-$i: $(grep -c 'sanitize-target: ok:' $L/wd-w$w-$i.log) ok, $(grep -c 'sanitize-target: FAIL:' $L/wd-w$w-$i.log) FAIL, $(grep -c 'sanitize-target: watchdog:' $L/wd-w$w-$i.log) raised" >> $L/env.txt
done; done
gpu_run cpu2 300 taskset -c 0,1 $K run 'gemm_hopper.*:sanitize' 'attn_prefill_hopper.*:sanitize' --no-cache
snap
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
for n in j4i4 j4i4-2; do
  cp $T $L/costs-$n.tsv
  gpu_run $n 110 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-$n.tsv --no-cache --json $L/$n.json
  grep -E "control\.(expect_tx_short|phase_flip)" $L/$n.log | cut -c1-160 >> $L/env.txt
  snap
done
gpu_env_pack
