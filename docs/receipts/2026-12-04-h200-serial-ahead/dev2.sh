#!/bin/bash
# device call 2 (issue 23): the serial run of the gates 1-4 items before
# (e4a4235, from before.tar) and after (fe233f0) the standby worker, which
# takes the place of a worker that lost its context; after, before, after.
. tools/gpu-env.sh
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
sample() { while :; do free -m | awk '/^Mem:/ {print $3}'; sleep 0.5; done > $L/memory-$1.txt & SAMPLER=$!; }
unsample() { kill $SAMPLER; echo "$1: peak host memory used $(sort -n $L/memory-$1.txt | tail -1) MiB" >> $L/env.txt; }
for v in after before after2; do
  if [ $v = before ]; then KK=$KB; else KK=$K; fi
  sample serial-$v
  /usr/bin/time -v -o $L/serial-$v.time timeout 150 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json > $L/serial-$v.log 2>&1
  el "serial gates 1-4 $v"
  unsample serial-$v
  grep -E "^SUMMARY|^time in items|^slowest" $L/serial-$v.log | sed "s/^/serial-$v: /" >> $L/env.txt
  echo "serial-$v: $(grep -c 'continuing in a fresh process' $L/serial-$v.log) fresh processes, $(grep -c standby $L/serial-$v.log) lines naming the standby" >> $L/env.txt
done
gpu_env_pack
