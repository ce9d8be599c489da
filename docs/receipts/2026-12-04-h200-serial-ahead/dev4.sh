#!/bin/bash
# device call 4 (issue 23): the serial run of the gates 1-4 items before
# (8f5da46, from before.tar) and after (fe12904: gate 3 copies the
# references a contract's kernel item kept instead of computing them again
# for its controls); after, before, after. Then every item under --jobs 4
# --inflight 4 (after), and the --reference both agreement of every contract
# with a device reference, serially, gates 1-4 only.
. tools/gpu-env.sh
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
for v in after before after2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  /usr/bin/time -v -o $L/serial-$v.time timeout 150 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json > $L/serial-$v.log 2>&1
  el "serial gates 1-4 $v"
  grep -E "^SUMMARY|^time in items|^input buffers|^slowest" $L/serial-$v.log | sed "s/^/serial-$v: /" >> $L/env.txt
done
cp docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv $L/costs.tsv
/usr/bin/time -v -o $L/j4i4.time timeout 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs.tsv --no-cache --json $L/j4i4.json > $L/j4i4.log 2>&1
el "j4i4 every item"
grep -E "^SUMMARY|^workers" $L/j4i4.log | sed "s/^/j4i4: /" >> $L/env.txt
echo "j4i4: CPU $(grep -E 'User time|System time|Maximum resident' $L/j4i4.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
timeout 150 $K run '*' --exclude '*:sanitize' --exclude '*:control.*' --exclude '*:limits' --reference both --no-cache > $L/both.log 2>&1
el "every kernel item, --reference both"
grep -E "^SUMMARY" $L/both.log | sed "s/^/both: /" >> $L/env.txt
gpu_env_pack
