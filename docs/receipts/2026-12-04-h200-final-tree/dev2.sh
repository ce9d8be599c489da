#!/bin/bash
# device call 2 (issue 23; the FAIL of call 1): does a fault in one process
# end another process's CUDA context on the same GPU? Two kcontract runs of
# one worker each, side by side for about 80 s: one loops over the sampling
# items (long device references on large shapes), the other over ten
# controls planted for gate 1 (four gemm_hopper traps, six illegal
# addresses); every FAIL of the first is counted. Then the tree that holds
# such verdicts (8530240): every item under --jobs 4 --inflight 4, twice,
# and the serial gates 1-4 run once.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
END=$(( $(date +%s) + 80 ))
( i=0; while [ $(date +%s) -lt $END ]; do i=$((i+1))
    $K run 'sampling.argmax.*' 'sampling.topk.*' --exclude '*:sanitize' --no-cache > $L/probe-innocent-$i.log 2>&1; done ) &
INN=$!
( i=0; while [ $(date +%s) -lt $END ]; do i=$((i+1))
    $K run 'gemm_hopper.*:control.expect_tx_short' 'gemm_hopper.*:control.phase_flip' \
      'attn_decode.*:control.page_offset_i32' 'embedding.*:control.int32_byte_offset' --no-cache > $L/probe-faults-$i.log 2>&1; done ) &
FLT=$!
wait $INN $FLT; el probe
{ echo "probe: innocent runs $(ls $L/probe-innocent-*.log | wc -l), fault runs $(ls $L/probe-faults-*.log | wc -l)"
  echo "probe: innocent SUMMARY lines: $(cat $L/probe-innocent-*.log | grep -c '^SUMMARY')"
  echo "probe: innocent FAIL lines: $(cat $L/probe-innocent-*.log | grep -c '^FAIL')"
  cat $L/probe-innocent-*.log | grep -E '^FAIL' | cut -c1-300 | sort | uniq -c | sort -rn | head -10
  echo "probe: fault runs' RED lines: $(cat $L/probe-faults-*.log | grep -c '^RED'), MISSED: $(cat $L/probe-faults-*.log | grep -c '^MISSED')"
} >> $L/env.txt
for v in 1 2; do
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 90 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  grep -h "runs again alone\|decided by a run" $L/j4i4-$v.log | cut -c1-400 | sed "s/^/j4i4-$v: /" >> $L/env.txt
done
gpu_run serial 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_env_pack
