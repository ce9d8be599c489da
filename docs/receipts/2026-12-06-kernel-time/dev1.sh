#!/bin/bash
# device call 1: where the GPU's own time goes (issue 23). Every kernel, memset
# and copy of kcontract's processes traced with CUPTI (bench/kernel_time.sh,
# build/libkc_kernel_time.so): the gates 1-4 items serially, and every item
# under --jobs 4 --inflight 4 (gpu_suite), each traced and untraced, alternated;
# first one :sanitize item traced, to see that the tool's target runs beside it.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-06-kernel-time/dev1.sh (.deps carried).
. tools/gpu-env.sh
{ echo "libcupti: $(find / -xdev -name 'libcupti.so*' 2>/dev/null | tr '\n' ' ')"; } >> $L/env.txt
make bench-kernel-time >> $L/build.log 2>&1; el "build libkc_kernel_time.so"
KT="bench/kernel_time.sh"
gpu_run san-traced 120 $KT $L/kt-san $K run 'rmsnorm.f16:sanitize' --no-cache
gpu_run serial-traced 200 $KT $L/kt-serial $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-traced.json
gpu_run serial 200 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
cp "$KC_GPU_COSTS" "$L/costs-all-traced.tsv"
gpu_run all-traced 300 $KT $L/kt-all $K run '*' $R --jobs 4 --inflight 4 --costs "$L/costs-all-traced.tsv" --no-cache --json $L/all-traced.json
gpu_suite all 300 $K
for n in san-traced serial-traced all-traced; do grep '^BENCH kernel_time' $L/$n.log | sed "s/^/$n: /" >> $L/env.txt; done
gpu_env_pack
