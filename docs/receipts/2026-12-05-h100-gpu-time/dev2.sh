#!/bin/bash
# device call 2 (issue 23, found in call 1): gemm_hopper's mbarrier watchdog
# (250 ms of wall time) trapped a healthy launch under racecheck with one
# analysis thread. The tree in COMMIT raises a module's watchdog bound in
# the sanitizer's target (kcontract_watchdog.cuh); before.tar is 71135dc.
#   wd-<tree>-w<N>-<i>  one racecheck session (as the gate starts it, but
#                       --racecheck-num-workers N), the edge requests of
#                       gemm_hopper.bf16 and .fp8:sanitize, three times each
#   cpu2-<tree>         the gate itself on two CPUs (taskset -c 0,1: racecheck
#                       gets two analysis threads): every :sanitize item of
#                       the TMA + wgmma families
#   j4i4                every item, --jobs 4 --inflight 4, the tree after (the
#                       hang controls must still be RED by gate 1 at 250 ms)
. tools/gpu-env.sh
gpu_before
snap() { (cd "$O" && tar czf logs.tgz logs && cp logs/env.txt env.txt); }
RC() { local bin=$1 w=$2; echo compute-sanitizer --tool racecheck --error-exitcode 86 --print-limit 10 --launch-timeout 60 \
  --target-processes application-only --report-api-errors no \
  --kernel-name-exclude kne=kc_smem_poison --kernel-name-exclude kne=kc_gen_fill --kernel-name-exclude kne=kc_check_bytes \
  --kernel-name-exclude kne=kc_check_unwritten --kernel-name-exclude kne=kc_check_differs --kernel-name-exclude kne=kc_check_close \
  --show-backtrace device --racecheck-report analysis --racecheck-num-workers $w $bin run --sanitize-target --seed 1 --device 0; }
for i in 1 2 3; do
  for w in 1 2; do
    for t in after before; do
      bin=$K; [ $t = before ] && bin=$KB
      printf 'gemm_hopper.bf16:sanitize edge\ngemm_hopper.fp8:sanitize edge\n' | gpu_run wd-$t-w$w-$i 120 $(RC $bin $w)
      echo "wd-$t-w$w-$i: $(grep -c 'sanitize-target: ok:' $L/wd-$t-w$w-$i.log) ok, $(grep -c 'sanitize-target: FAIL:' $L/wd-$t-w$w-$i.log) FAIL" >> $L/env.txt
    done
  done
done
snap
for t in after before; do
  bin=$K; [ $t = before ] && bin=$KB
  gpu_run cpu2-$t 300 taskset -c 0,1 $bin run 'gemm_hopper.*:sanitize' 'attn_prefill_hopper.*:sanitize' --no-cache
done
snap
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
cp $T $L/costs-j4i4.tsv
gpu_run j4i4 110 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4.tsv --no-cache --json $L/j4i4.json
grep -E "control\.(expect_tx_short|phase_flip)" $L/j4i4.log | cut -c1-220 >> $L/env.txt
gpu_env_pack
