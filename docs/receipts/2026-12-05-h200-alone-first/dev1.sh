#!/bin/bash
# device call 1 (issue 23): the items that go alone first (12eea43) against
# the tree before it (1bccbca, before.tar), every item with both record files
# under --jobs. Before, a worker with items in flight never emptied for an
# item that may not share, and the 14 controls planted for gate 1 (one at a
# time) ran at the run's end (H100 phases receipt: 31.8 to 50.6 s of 50.6).
# Runs, the most wanted first, the logs packed after each:
#   j4i4-after, j4i4-before     --jobs 4 --inflight 4 (the receipts' run)
#   j2i16-after, j3i8-after     fewer workers (contexts), more lanes each
#   j4i4-sf-after               with KC_DISPATCH_SANITIZER_FIRST=1
#   j4i4-after-2, j4i4-before-2 the pair again (run-to-run spread)
# Each run gets a fresh copy of the stalls receipt's cost table.
. tools/gpu-env.sh
gpu_before
snap() { (cd "$O" && tar czf logs.tgz logs && cp logs/env.txt env.txt); }
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
one() { local n=$1 bin=$2; shift 2; cp $T $L/costs-$n.tsv
        gpu_run $n 110 $bin run '*' $R "$@" --costs $L/costs-$n.tsv --no-cache --json $L/$n.json; snap; }
one j4i4-after $K --jobs 4 --inflight 4
one j4i4-before $KB --jobs 4 --inflight 4
one j2i16-after $K --jobs 2 --inflight 16
one j3i8-after $K --jobs 3 --inflight 8
KC_DISPATCH_SANITIZER_FIRST=1 one j4i4-sf-after $K --jobs 4 --inflight 4
one j4i4-after-2 $K --jobs 4 --inflight 4
one j4i4-before-2 $KB --jobs 4 --inflight 4
gpu_env_pack
