#!/bin/bash
# device call 3 (issue 23): the serial run of the gates 1-4 items before
# (1b7d5e7, from before.tar) and after every session keeps its clean
# builds' modules loaded across items (the serial run loaded a contract's
# kernel and device reference again in each of its items); then, after,
# every item under --jobs 4 --inflight 4 and the :sanitize items alone on
# four workers (their session targets keep modules too).
. tools/gpu-env.sh
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
for n in 1 2; do
  for v in before after; do
    if [ $v = before ]; then KK=$KB; else KK=$K; fi
    /usr/bin/time -v -o $L/serial-$v-$n.time timeout 150 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v-$n.json > $L/serial-$v-$n.log 2>&1
    el "serial gates 1-4 $v ($n)"
    grep -E "^SUMMARY|^time in items" $L/serial-$v-$n.log | sed "s/^/serial-$v-$n: /" >> $L/env.txt
  done
done
cp docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv $L/costs.tsv
/usr/bin/time -v -o $L/j4i4.time timeout 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs.tsv --no-cache --json $L/j4i4.json > $L/j4i4.log 2>&1
el "j4i4 every item"
grep -E "^SUMMARY|^workers" $L/j4i4.log | sed "s/^/j4i4: /" >> $L/env.txt
echo "j4i4: CPU $(grep -E 'User time|System time|Maximum resident' $L/j4i4.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
/usr/bin/time -v -o $L/san4.time timeout 150 $K run '*:sanitize' $R --jobs 4 --no-cache --json $L/san4.json > $L/san4.log 2>&1
el "sanitize items, --jobs 4"
grep -E "^SUMMARY" $L/san4.log | sed "s/^/san4: /" >> $L/env.txt
gpu_env_pack
