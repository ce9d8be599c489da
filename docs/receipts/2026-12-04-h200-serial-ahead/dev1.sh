#!/bin/bash
# device call 1 (issue 23): the serial run of the gates 1-4 items before
# (c70d7bc, from before.tar) and after three changes (c030711: sessions of the
# controls planted for the sanitizer started up to 48 items ahead; a67785e:
# gemm_hopper's watchdog 250 ms; e4a4235: device references for quant_fp8
# and pdl), the new references against the host's (--reference both), then
# every item under --jobs 4 --inflight 4 after. A sampler writes the host's
# used memory every 0.5 s (memory-<run>.txt): spares are processes of their own.
. tools/gpu-env.sh
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
sample() { while :; do free -m | awk '/^Mem:/ {print $3}'; sleep 0.5; done > $L/memory-$1.txt & SAMPLER=$!; }
unsample() { kill $SAMPLER; echo "$1: peak host memory used $(sort -n $L/memory-$1.txt | tail -1) MiB" >> $L/env.txt; }
$K run 'quant_fp8.*' 'pdl.*' --reference both --no-cache > $L/both.log 2>&1; el "quant_fp8 and pdl, --reference both"
grep -E "^SUMMARY" $L/both.log | sed "s/^/both: /" >> $L/env.txt
for v in before after after2; do
  if [ $v = before ]; then KK=$KB; else KK=$K; fi
  sample serial-$v
  /usr/bin/time -v -o $L/serial-$v.time timeout 150 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json > $L/serial-$v.log 2>&1
  el "serial gates 1-4 $v"
  unsample serial-$v
  grep -E "^SUMMARY|^time in items|^slowest" $L/serial-$v.log | sed "s/^/serial-$v: /" >> $L/env.txt
done
cp docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv $L/costs.tsv
sample j4i4
/usr/bin/time -v -o $L/j4i4.time timeout 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs.tsv --no-cache --json $L/j4i4.json > $L/j4i4.log 2>&1
el "j4i4 every item"
unsample j4i4
grep -E "^SUMMARY|^slowest|^workers" $L/j4i4.log | sed "s/^/j4i4: /" >> $L/env.txt
echo "j4i4: CPU $(grep -E 'User time|System time|Percent of CPU|Maximum resident' $L/j4i4.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
gpu_env_pack
