#!/bin/bash
# device call 2: the max-type float64 references (reduce_max_ref,
# sampling_argmax_ref, softmax_ref's max pass) with the warp's lanes reading a
# row together (kc_rowfold_first_max). First --reference both (host and device
# must agree bit for bit where the contract says so) over every item of those
# families on seeds 1-3; then the traced serial run (bench/kernel_time.sh) of
# the tree and of the tree before (before.tar); then serial and --jobs 4
# --inflight 4 runs of both trees, alternated.
# Run from the tree: git rev-parse HEAD > COMMIT; git archive REV -- . ':(exclude)docs/receipts' | gzip > before.tar;
# bash docs/receipts/2026-12-06-kernel-time/dev2.sh (.deps carried).
. tools/gpu-env.sh
make bench-kernel-time >> $L/build.log 2>&1; el "build libkc_kernel_time.so"
gpu_before
P="reduce_max.* sampling.* softmax.*"
for s in 1 2 3; do
  gpu_run both-s$s 200 $K run $P $R --reference both --seed $s --no-cache --json $L/both-s$s.json
done
KT="bench/kernel_time.sh"
gpu_run serial-traced 200 $KT $L/kt-serial $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-traced.json
gpu_run serial-traced-before 200 $KT $L/kt-serial-before $KB run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-traced-before.json
gpu_run serial 200 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_run serial-before 200 $KB run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-before.json
gpu_suite all 300 $K
gpu_suite all-before 300 $KB
gpu_suite all-2 300 $K
gpu_suite all-before-2 300 $KB
for n in serial-traced serial-traced-before; do grep '^BENCH kernel_time' $L/$n.log | sed "s/^/$n: /" >> $L/env.txt; done
for n in serial-traced serial-traced-before; do grep -E '^ +[0-9.]+ +[0-9]+ +[0-9.]+ +reference' $L/$n.log | head -8 | sed "s/^/$n: /" >> $L/env.txt; done
gpu_env_pack
