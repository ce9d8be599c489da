#!/bin/bash
# device call 4 (issue 23): the final tree (a run of one worker yields;
# attn_prefill.d*'s racecheck runs edge.len127.h8 in place of the 32-head
# edge.len127) against the tree before the shape change (dd13ad8,
# before.tar): attn_prefill.d*'s four :sanitize items alone, alternated
# after, before, after, before; then, after only, the 106 :sanitize items on
# one worker, every item under --jobs 4 --inflight 4, and the serial gates
# 1-4 run with its default wait.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  gpu_run ap-san-$v 60 $KK run 'attn_prefill.d*:sanitize' --no-cache --json $L/ap-san-$v.json
  grep -h "^PASS" $L/ap-san-$v.log | sed "s/^/ap-san-$v: /" | cut -c1-400 >> $L/env.txt
done
gpu_run san-j1 100 $K run '*:sanitize' --no-cache --json $L/san-j1.json
cp $T $L/costs-j4i4.tsv
gpu_run j4i4 90 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4.tsv --no-cache --json $L/j4i4.json
gpu_run serial 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_env_pack
