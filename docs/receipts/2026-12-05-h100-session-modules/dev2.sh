#!/bin/bash
# device call 2 (issue 23), tree exp/racecheck-batch (an experiment branch,
# never merged): one racecheck session, as the gate starts it, given the
# edge requests of the 71 :sanitize items racecheck ran in call 1
# (exp/race-seq.txt, heaviest first) one a line (the gate's way), one a line
# on a target opened with per-thread streams, and 4 or 8 a line
# (exp/race-b4.txt, exp/race-b8.txt: each line's items on lanes, one thread
# each, at once); alternated, twice each. Then two smem_reuse_race controls
# in one line with three clean items: are their races still reported, and
# under their own kernels' names?
. tools/gpu-env.sh
S="compute-sanitizer --tool racecheck --error-exitcode 86 --print-limit 10 --launch-timeout 60 --target-processes application-only --report-api-errors no --show-backtrace device"
for k in kc_smem_poison kc_gen_fill kc_check_bytes kc_check_unwritten kc_check_differs kc_check_close; do S="$S --kernel-name-exclude kne=$k"; done
S="$S --racecheck-report analysis --racecheck-num-workers $(nproc)"
sess() { local n=$1 f=$2 lanes=$3
  /usr/bin/time -v -o $L/$n.time env KC_SAN_TARGET_LANES=$lanes timeout 300 $S $K run --sanitize-target --seed 1 --device 0 < $f > $L/$n.log 2>&1; el $n
  echo "$n: wall $(awk -F': ' '/Elapsed/{print $2}' $L/$n.time), user $(awk -F': ' '/User time/{print $2}' $L/$n.time) s; ok lines $(grep -c 'sanitize-target: ok:' $L/$n.log), FAIL lines $(grep -c 'sanitize-target: FAIL' $L/$n.log); $(grep -E '(RACECHECK|ERROR) SUMMARY' $L/$n.log | tail -1)" >> $L/env.txt; }
for i in 1 2; do
  sess seq-$i exp/race-seq.txt 0
  sess seq-lanes-$i exp/race-seq.txt 1
  sess b4-$i exp/race-b4.txt 1
  sess b8-$i exp/race-b8.txt 1
done
sess ctl exp/race-ctl.txt 1
grep -E "Race reported|Error: " $L/ctl.log | cut -c1-300 | sort | uniq -c | head -20 >> $L/env.txt
gpu_env_pack
