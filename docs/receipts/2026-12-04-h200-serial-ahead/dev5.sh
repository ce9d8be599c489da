#!/bin/bash
# device call 5 (issue 23): the final tree after the review (kc_dref_block_max
# shared by quant_fp8's and pdl's device references; the standby only on a
# device in the default compute mode): those references against their host
# twins (--reference both), the device's compute mode, and the serial run of
# the gates 1-4 items once more.
. tools/gpu-env.sh
nvidia-smi --query-gpu=compute_mode --format=csv >> $L/env.txt 2>&1
$K run 'quant_fp8.*' 'pdl.*' --exclude '*:sanitize' --reference both --no-cache > $L/both.log 2>&1; el "quant_fp8 and pdl, --reference both"
grep -E "^SUMMARY" $L/both.log | sed "s/^/both: /" >> $L/env.txt
/usr/bin/time -v -o $L/serial.time timeout 150 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json > $L/serial.log 2>&1
el "serial gates 1-4"
grep -E "^SUMMARY|^time in items|^slowest" $L/serial.log | sed "s/^/serial: /" >> $L/env.txt
echo "serial: $(grep -c 'continuing in a fresh process' $L/serial.log) fresh processes, $(grep -c standby $L/serial.log) lines naming the standby" >> $L/env.txt
gpu_env_pack
