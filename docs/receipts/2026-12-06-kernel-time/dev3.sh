#!/bin/bash
# device call 3: kept device references (a control of a contract, and the
# cases of another block size, copy the kernel item's float64 reference
# instead of running it again; src/cuda/inputs.h). The traced serial run
# (bench/kernel_time.sh), then serial and --jobs 4 --inflight 4 runs of the
# tree and of the tree before (before.tar: the max references of call 2),
# alternated; a JSON report of each, whose reference_s the receipt sums.
# Run from the tree: git rev-parse HEAD > COMMIT; git archive REV -- . ':(exclude)docs/receipts' | gzip > before.tar;
# bash docs/receipts/2026-12-06-kernel-time/dev3.sh (.deps carried).
. tools/gpu-env.sh
make bench-kernel-time >> $L/build.log 2>&1; el "build libkc_kernel_time.so"
gpu_before
KT="bench/kernel_time.sh"
gpu_run serial-traced 200 $KT $L/kt-serial $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-traced.json
gpu_run serial 200 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_run serial-before 200 $KB run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-before.json
gpu_run serial-2 200 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-2.json
gpu_run serial-before-2 200 $KB run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-before-2.json
gpu_suite all 300 $K
gpu_suite all-before 300 $KB
grep '^BENCH kernel_time' $L/serial-traced.log | sed "s/^/serial-traced: /" >> $L/env.txt
grep -E '^ +[0-9.]+ +[0-9]+ +[0-9.]+ +reference' $L/serial-traced.log | head -8 | sed "s/^/serial-traced: /" >> $L/env.txt
for n in serial serial-before serial-2 serial-before-2 all all-before; do
  python3 -c "
import json,sys
it=[json.loads(l) for l in open('$L/$n.json') if '\"type\":\"item\"' in l]
k=lambda kind: sum(i['reference_s'] for i in it if i['kind']==kind)
print('$n: reference_s kernels %.2f controls %.2f' % (k('kernel'), k('control')))" >> $L/env.txt
done
gpu_env_pack
