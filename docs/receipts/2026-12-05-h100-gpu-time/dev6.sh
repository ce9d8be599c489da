#!/bin/bash
# device call 6: the tree after the review's mends (COMMIT): the bound under
# a tool 10 s, raised only where the module's own is lower, C linkage, the
# clean line naming it. The racecheck sessions of calls 2-3 (one and two
# analysis threads, three times each), the gate on two CPUs, every item once.
. tools/gpu-env.sh
RC() { local bin=$1 w=$2; echo compute-sanitizer --tool racecheck --error-exitcode 86 --print-limit 10 --launch-timeout 60 \
  --target-processes application-only --report-api-errors no \
  --kernel-name-exclude kne=kc_smem_poison --kernel-name-exclude kne=kc_gen_fill --kernel-name-exclude kne=kc_check_bytes \
  --kernel-name-exclude kne=kc_check_unwritten --kernel-name-exclude kne=kc_check_differs --kernel-name-exclude kne=kc_check_close \
  --show-backtrace device --racecheck-report analysis --racecheck-num-workers $w $bin run --sanitize-target --seed 1 --device 0; }
for i in 1 2 3; do for w in 1 2; do
  printf 'gemm_hopper.bf16:sanitize edge\ngemm_hopper.fp8:sanitize edge\n' | gpu_run wd-w$w-$i 120 $(RC $K $w)
  echo "wd-w$w-$i: $(grep -c 'sanitize-target: ok:' $L/wd-w$w-$i.log) ok, $(grep -c 'sanitize-target: FAIL:' $L/wd-w$w-$i.log) FAIL, $(grep -c 'watchdog: kc_watchdog_ns 10 s' $L/wd-w$w-$i.log) raised to 10 s" >> $L/env.txt
done; done
gpu_run cpu2 300 taskset -c 0,1 $K run 'gemm_hopper.*:sanitize' 'attn_prefill_hopper.*:sanitize' --no-cache
grep -o "PASS   gemm_hopper[^ ]*\|watchdog kc_watchdog_ns [^]]*" $L/cpu2.log >> $L/env.txt
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
cp $T $L/costs-j4i4.tsv
gpu_run j4i4 110 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4.tsv --no-cache --json $L/j4i4.json
grep -E "control\.(expect_tx_short|phase_flip)" $L/j4i4.log | cut -c1-160 >> $L/env.txt
echo "j4i4: $(grep -c 'watchdog kc_watchdog_ns 10 s' $L/j4i4.log) clean lines name the raised watchdog" >> $L/env.txt
gpu_env_pack
