#!/bin/bash
# device call 1 (issue 23): a clean :sanitize item's four tools side by side
# (8bb42e7) against one after another (e73e968, before.tar). The alone-first
# receipt found the sanitizer's half bounding every --jobs run. Runs, the
# most wanted first, the logs packed after each:
#   san-j2-after, san-j2-before    the 106 :sanitize items alone, --jobs 2
#   j4i4-after, j4i4-before        every item, --jobs 4 --inflight 4
#   j3i8-after                     three workers of eight lanes
#   j4i4-after-2, j4i4-before-2    the pair again (run-to-run spread)
# (Device time was short: 900 s left after refused starts.)
# Every --jobs run over every item gets a fresh copy of the stalls receipt's
# cost table.
. tools/gpu-env.sh
gpu_before
snap() { (cd "$O" && tar czf logs.tgz logs && cp logs/env.txt env.txt); }
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
one() { local n=$1 bin=$2; shift 2; cp $T $L/costs-$n.tsv
        gpu_run $n 110 $bin run '*' $R "$@" --costs $L/costs-$n.tsv --no-cache --json $L/$n.json; snap; }
san() { local n=$1 bin=$2; shift 2
        gpu_run $n 90 $bin run '*:sanitize' "$@" --no-cache --json $L/$n.json; snap; }
san san-j2-after $K --jobs 2
san san-j2-before $KB --jobs 2
one j4i4-after $K --jobs 4 --inflight 4
one j4i4-before $KB --jobs 4 --inflight 4
one j3i8-after $K --jobs 3 --inflight 8
one j4i4-after-2 $K --jobs 4 --inflight 4
one j4i4-before-2 $KB --jobs 4 --inflight 4
gpu_env_pack
