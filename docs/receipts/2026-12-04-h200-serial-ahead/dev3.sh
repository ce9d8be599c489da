#!/bin/bash
# device call 3 (issue 23): the serial run of the gates 1-4 items before
# (e4a4235, from before.tar: no standby) and after (8f5da46: the standby takes
# a retiring worker's place as soon as its result arrives; gpu.harness.checks
# makes its inputs on the harness's threads); after, before, after, before.
. tools/gpu-env.sh
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  /usr/bin/time -v -o $L/serial-$v.time timeout 150 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json > $L/serial-$v.log 2>&1
  el "serial gates 1-4 $v"
  grep -E "^SUMMARY|^time in items|^slowest" $L/serial-$v.log | sed "s/^/serial-$v: /" >> $L/env.txt
  echo "serial-$v: $(grep -c 'continuing in a fresh process' $L/serial-$v.log) fresh processes, $(grep -c standby $L/serial-$v.log) lines naming the standby" >> $L/env.txt
done
gpu_env_pack
