#!/bin/bash
# The next device call for the racecheck batch (issue 23), from this branch
# (exp/racecheck-batch), never merged: the batch WITHOUT threads
# (KC_SAN_TARGET_BATCH=serial: every item of a line prepared on one thread,
# every case launched together, one synchronize). One racecheck session as
# the gate starts it, given the 71 items' edge requests one a line, then
# 4, 8 and 16 a line, alternated, twice; each run under a 120 s timeout (the
# threaded batch hung: docs/receipts/2026-12-05-h100-session-modules,
# call 2). Then the two smem_reuse_race controls in one line with three
# clean items: are their races reported, under their kernels' names?
# Run from the tree: git rev-parse HEAD > COMMIT; bash exp/dev3.sh (.deps carried).
. tools/gpu-env.sh
S="compute-sanitizer --tool racecheck --error-exitcode 86 --print-limit 10 --launch-timeout 60 --target-processes application-only --report-api-errors no --show-backtrace device"
for k in kc_smem_poison kc_gen_fill kc_check_bytes kc_check_unwritten kc_check_differs kc_check_close; do S="$S --kernel-name-exclude kne=$k"; done
S="$S --racecheck-report analysis --racecheck-num-workers $(nproc)"
sess() { local n=$1 f=$2
  /usr/bin/time -v -o $L/$n.time env KC_SAN_TARGET_BATCH=serial timeout 120 $S $K run --sanitize-target --seed 1 --device 0 < $f > $L/$n.log 2>&1; el $n
  echo "$n: wall $(awk -F': ' '/Elapsed/{print $2}' $L/$n.time), user $(awk -F': ' '/User time/{print $2}' $L/$n.time) s; ok lines $(grep -c 'sanitize-target: ok:' $L/$n.log), FAIL lines $(grep -c 'sanitize-target: FAIL' $L/$n.log); $(grep -E '(RACECHECK|ERROR) SUMMARY' $L/$n.log | tail -1)" >> $L/env.txt
  grep 'sanitize-target: FAIL' $L/$n.log | head -3 | cut -c1-300 | sed "s/^/$n: /" >> $L/env.txt; }
for i in 1 2; do
  sess seq-$i exp/race-seq.txt
  sess b4-$i exp/race-b4.txt
  sess b8-$i exp/race-b8.txt
  sess b16-$i exp/race-b16.txt
done
sess ctl exp/race-ctl.txt
grep -E "Race reported|Error: " $L/ctl.log | cut -c1-300 | sort | uniq -c | head -20 >> $L/env.txt
gpu_env_pack
