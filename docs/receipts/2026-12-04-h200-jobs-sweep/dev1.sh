#!/bin/bash
# device call 1 (issue 23): the tree stop 38 left (2726601), not timed there:
# the serial run of the gates 1-4 items once; every item under --jobs N
# --inflight K for three (N, K), each from a fresh copy of the stalls
# receipt's cost table (a run writes its table back); the 106 :sanitize
# items alone on 4 and 8 workers. Per-run /usr/bin/time -v and --json.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
summ() { grep -E "^SUMMARY|^workers|^time in items|^slowest" $L/$1.log | sed "s/^/$1: /" >> $L/env.txt
         echo "$1: CPU $(grep -E 'User time|System time|Maximum resident|Elapsed' $L/$1.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt; }
/usr/bin/time -v -o $L/serial.time timeout 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json > $L/serial.log 2>&1
el "serial gates 1-4"; summ serial
for c in "4 4" "8 4" "8 2"; do
  set -- $c; n=j$1i$2; cp $T $L/costs-$n.tsv
  /usr/bin/time -v -o $L/$n.time timeout 100 $K run '*' $R --jobs $1 --inflight $2 --costs $L/costs-$n.tsv --no-cache --json $L/$n.json > $L/$n.log 2>&1
  el "every item $n"; summ $n
done
for j in 4 8; do
  n=san-j$j; cp $T $L/costs-$n.tsv
  /usr/bin/time -v -o $L/$n.time timeout 60 $K run '*:sanitize' --jobs $j --costs $L/costs-$n.tsv --no-cache --json $L/$n.json > $L/$n.log 2>&1
  el "sanitize items $n"; summ $n
done
gpu_env_pack
