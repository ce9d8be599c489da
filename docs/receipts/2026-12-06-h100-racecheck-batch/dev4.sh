#!/bin/bash
# The racecheck batch without threads (KC_SAN_TARGET_BATCH=serial), measured
# again without the library kernels (dev3's lines with a cub.* item failed:
# the experiment batches own modules only): the 64 items racecheck runs that
# are not library kernels, one a line, then 4, 8 and 16 a line, alternated,
# twice; then the two smem_reuse_race controls one a line and in one line
# with three clean items: are their races reported in a batch too?
# Run from the tree: git rev-parse HEAD > COMMIT; bash exp/dev4.sh (.deps carried).
. tools/gpu-env.sh
S="compute-sanitizer --tool racecheck --error-exitcode 86 --print-limit 10 --launch-timeout 60 --target-processes application-only --report-api-errors no --show-backtrace device"
for k in kc_smem_poison kc_gen_fill kc_check_bytes kc_check_unwritten kc_check_differs kc_check_close; do S="$S --kernel-name-exclude kne=$k"; done
S="$S --racecheck-report analysis --racecheck-num-workers $(nproc)"
sess() { local n=$1 f=$2
  /usr/bin/time -v -o $L/$n.time env KC_SAN_TARGET_BATCH=serial timeout 120 $S $K run --sanitize-target --seed 1 --device 0 < $f > $L/$n.log 2>&1; el $n
  echo "$n: wall $(awk -F': ' '/Elapsed/{print $2}' $L/$n.time), user $(awk -F': ' '/User time/{print $2}' $L/$n.time) s; ok lines $(grep -c 'sanitize-target: ok:' $L/$n.log), FAIL lines $(grep -c 'sanitize-target: FAIL' $L/$n.log); $(grep -E '(RACECHECK|ERROR) SUMMARY' $L/$n.log | tail -1)" >> $L/env.txt
  grep 'sanitize-target: FAIL' $L/$n.log | head -3 | cut -c1-300 | sed "s/^/$n: /" >> $L/env.txt; }
for i in 1 2; do
  sess seq-$i exp/race-nl-seq.txt
  # b4 left out of this call: device time ran short (exp/race-nl-b4.txt)
  sess b8-$i exp/race-nl-b8.txt
  sess b16-$i exp/race-nl-b16.txt
done
sess ctl-seq exp/race-ctl-seq.txt
sess ctl exp/race-ctl.txt
for n in ctl-seq ctl; do grep -E "Race reported|Error: |RACECHECK SUMMARY|sanitize-target: (ok|FAIL)" $L/$n.log | cut -c1-200 | sort | uniq -c | head -20 | sed "s/^/$n: /" >> $L/env.txt; done
gpu_env_pack
