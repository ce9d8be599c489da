#!/bin/bash
# device call 2 (issue 23): a RED control's own sanitizer sessions not
# waited for (c4f260f) against the tree before (2726601, before.tar), the
# serial run of the gates 1-4 items alternated: after, before, after;
# then every item under --jobs 4 --inflight 4 with the tree after
# and before (fresh copies of the stalls receipt's cost table).
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
summ() { grep -E "^SUMMARY|^workers|^time in items|^slowest" $L/$1.log | sed "s/^/$1: /" >> $L/env.txt
         echo "$1: CPU $(grep -E 'User time|System time|Maximum resident|Elapsed' $L/$1.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt; }
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
for v in after before after2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  /usr/bin/time -v -o $L/serial-$v.time timeout 100 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json > $L/serial-$v.log 2>&1
  el "serial gates 1-4 $v"; summ serial-$v
done
for v in after before; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  cp $T $L/costs-j4i4-$v.tsv
  /usr/bin/time -v -o $L/j4i4-$v.time timeout 100 $KK run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json > $L/j4i4-$v.log 2>&1
  el "every item j4i4 $v"; summ j4i4-$v
done
gpu_env_pack
