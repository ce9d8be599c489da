#!/bin/bash
# device call 1 (issue 23): the --jobs run's halves, each with the GPU to
# itself, against the whole run. The mends and host-time receipts found the
# sanitizer's items take 19-22 s on one worker alone but 61 item-seconds
# beside the items in flight (initcheck 0.5 -> 12.1 s, synccheck 0 -> 5.8 s),
# and the gates 1-4 items in flight of one worker (--jobs 1 --inflight 16)
# took 9.3 s, the items that go alone 21 s after them. Here, at HEAD:
#   all-j4i4        every item, --jobs 4 --inflight 4 (the receipts' run);
#   all-j4i4-sf     the same with KC_DISPATCH_SANITIZER_FIRST=1: every
#                   worker takes the sanitizer's items first, the rest after;
#   san-j2          the 106 :sanitize items alone on 2 workers;
#   gates-j1i16     every other item (the controls planted for the
#                   sanitizer included), --jobs 1 --inflight 16;
#   bench           bench/gpu_suite.sh's cached modes (fill, none, one)
#                   with --jobs 4 --inflight 4 and a cache of their own
#                   (last: cached-one leaves a comment line in rmsnorm.cu).
# In the order most wanted first, the logs packed after each run: device
# time was short (eight requests for a machine refused before this call).
# Whether running the halves one after the other beats running them side by
# side: san-jN + gates-jNiK against all-j4i4.
. tools/gpu-env.sh
snap() { (cd "$O" && tar czf logs.tgz logs && cp logs/env.txt env.txt); }
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
cp $T $L/costs-all-j4i4.tsv
gpu_run all-j4i4 120 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-all-j4i4.tsv --no-cache --json $L/all-j4i4.json; snap
cp $T $L/costs-all-j4i4-sf.tsv
KC_DISPATCH_SANITIZER_FIRST=1 gpu_run all-j4i4-sf 120 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-all-j4i4-sf.tsv --no-cache --json $L/all-j4i4-sf.json; snap
gpu_run san-j2 100 $K run '*:sanitize' --jobs 2 --no-cache --json $L/san-j2.json; snap
gpu_run gates-j1i16 100 $K run '*' $R --exclude '*:sanitize' --jobs 1 --inflight 16 --no-cache --json $L/gates-j1i16.json; snap
KC_CACHE_DIR= MAKEFLAGS=-j16 ONLY_CACHED=1 REBUILD=0 NS=4 timeout 200 sh bench/gpu_suite.sh $L/bench '*' $R --inflight 4 > $L/bench.out 2> $L/bench.err
el bench
grep -h "^BENCH" $L/bench.out $L/bench/bench.out >> $L/env.txt
gpu_env_pack
