#!/bin/sh
# device call 2: tolerance calibration (contract's distributions), the fixed control, perf
cd "$(dirname "$0")/prebuilt"
O=${OUT:-/tmp/out}; mkdir -p $O/logs
export KC_FATBIN_DIR=fatbin
for d in normal uniform wide; do
  timeout 120 ./kc_gemm_hopper_bench check fatbin/gemm_wgmma.fatbin dist=$d > $O/logs/check_$d.txt 2>&1; echo "rc=$?" >> $O/logs/check_$d.txt
done
timeout 60 ./kc_gemm_hopper_bench check fatbin/gemm_wgmma@store_unguarded.fatbin > $O/logs/ctl_store.txt 2>&1; echo "rc=$?" >> $O/logs/ctl_store.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > $O/logs/smi_before.txt 2>&1
timeout 300 ./kc_gemm_hopper_bench perf 4096 8192 > $O/logs/perf.txt 2>&1; echo "rc=$?" >> $O/logs/perf.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > $O/logs/smi_after.txt 2>&1
cd $O && tar czf logs.tgz logs && rm -rf logs
