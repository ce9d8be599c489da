#!/bin/bash
# device call 1: hunt the 60 s stall of a control planted for the sanitizer
# beside faults of gate 1 (2026-12-05-h100-gpu-time, call 5: 1 run of 14).
# The 14 controls planted for gate 1 and the 7 planted for the sanitizer,
# --jobs 4 --inflight 4 (gate-1 faults one at a time, as always), again and
# again under a 30 s limit, while a monitor writes every process's state and
# kernel wait channel each second, and the kernel stacks of any
# compute-sanitizer or kcontract process older than 15 s. Then every item
# twice, --jobs 4 --inflight 4, as the suite's figure at COMMIT.
. tools/gpu-env.sh
F="kv_cache.*:control.slot_offset_i32 gemm_hopper.*:control.expect_tx_short gemm_hopper.*:control.phase_flip
   attn_decode.*:control.page_offset_i32 embedding.*:control.int32_byte_offset"
S="scan.*:control.smem_reuse_race residual_add.*:control.masked_tail_read_oob gemm_hopper.fp8:control.scale_row_unclamped"
monitor() {
  while :; do
    echo "== $(date +%s.%N | cut -c1-14)"
    ps -eo pid,ppid,stat,etimes,wchan:28,args --sort=pid | grep -E 'kcontract|compute-sanit|sanitizer' | grep -v grep | cut -c1-220
    for p in $(ps -eo pid,etimes,comm | awk '$2 > 15 && ($3 ~ /compute-sanit|kcontract|TreeLauncher/) {print $1}'); do
      echo "-- stack of $p ($(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-120))"
      for t in /proc/$p/task/*; do echo "task ${t##*/} $(cat $t/comm) $(cat $t/wchan)"; done | sort -k4 | uniq -c -f3 | head -20
      cat /proc/$p/stack 2>/dev/null | head -12
    done
    sleep 1
  done
}
monitor > $L/monitor.txt 2>&1 & MON=$!
for i in $(seq 1 10); do
  gpu_run stress-$i 150 $K run $F $S --jobs 4 --inflight 4 --timeout 30 --no-cache --json $L/stress-$i.json
  echo "stress-$i: $(grep -c 'exceeded its time limit' $L/stress-$i.log) timeouts, $(grep -c "worker's processes then" $L/stress-$i.log) process lists" >> $L/env.txt
done
kill $MON
nvidia-smi -q -d PERFORMANCE,CLOCK > $L/smi.txt 2>&1
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
for i in 1 2; do
  cp $T $L/costs-j4i4-$i.tsv
  gpu_run j4i4-$i 150 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$i.tsv --no-cache --json $L/j4i4-$i.json
  echo "j4i4-$i: $(grep -c 'exceeded its time limit' $L/j4i4-$i.log) timeouts" >> $L/env.txt
done
gpu_env_pack
