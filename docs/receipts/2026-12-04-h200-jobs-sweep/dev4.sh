#!/bin/bash
# device call 4 (issue 23): the final tree (a RED control's sessions killed,
# not waited for; the standby's sessions for the control after the next
# context loss; device backtraces only; cli.c split) against the tree
# stop 38 left (2726601, before.tar): the serial run of the gates 1-4 items
# alternated after, before, after, before; every item under --jobs 4
# --inflight 4, after, before, after (fresh copies of the stalls receipt's
# cost table), to see whether call 3's 60 s hang comes back.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
summ() { grep -E "^SUMMARY|^workers|^time in items|^slowest|time limit" $L/$1.log | sed "s/^/$1: /" >> $L/env.txt
         echo "$1: CPU $(grep -E 'User time|System time|Maximum resident|Elapsed' $L/$1.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt; }
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  /usr/bin/time -v -o $L/serial-$v.time timeout 100 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json > $L/serial-$v.log 2>&1
  el "serial gates 1-4 $v"; summ serial-$v
done
for v in after before after2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  cp $T $L/costs-j4i4-$v.tsv
  /usr/bin/time -v -o $L/j4i4-$v.time timeout 90 $KK run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json > $L/j4i4-$v.log 2>&1
  el "every item j4i4 $v"; summ j4i4-$v
done
gpu_env_pack
