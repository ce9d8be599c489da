#!/bin/bash
# device call 4 (issue 23): the final tree (gen_on refused where the contract
# does not run a distribution, the lint's boundary rule for gen_on, the
# memory plan's host bytes per shape): the serial run of the gates 1-4 items,
# then every item under --jobs 4 --inflight 4.
. tools/gpu-env.sh
/usr/bin/time -v -o $L/serial.time timeout 150 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json > $L/serial.log 2>&1
el "serial gates 1-4"
grep -E "^SUMMARY|^time in items" $L/serial.log | sed "s/^/serial: /" >> $L/env.txt
cp docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv $L/costs.tsv
/usr/bin/time -v -o $L/j4i4.time timeout 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs.tsv --no-cache --json $L/j4i4.json > $L/j4i4.log 2>&1
el "j4i4 every item"
grep -E "^SUMMARY|^workers" $L/j4i4.log | sed "s/^/j4i4: /" >> $L/env.txt
echo "j4i4: CPU $(grep -E 'User time|System time|Maximum resident' $L/j4i4.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
gpu_env_pack
