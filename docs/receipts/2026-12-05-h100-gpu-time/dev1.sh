#!/bin/bash
# device call 1 (issue 23): who holds the time-sliced GPU during a --jobs run,
# and what racecheck's cost is made of, at the tree in COMMIT (71135dc: the
# alone-first mend, not yet run on a GPU).
#   j4i4, j4i4-2   every item, --jobs 4 --inflight 4, with nvidia-smi pmon
#                  (each process's share of the time a kernel ran, once a
#                  second) and ps every half second (which process is which:
#                  a worker, a compute-sanitizer target of which tool)
#   race-seq       the eight items with the most racecheck time, one racecheck
#                  session, their edge requests one after another (as the gate)
#   race-seq-w1    the same with one racecheck analysis thread (is it the CPU?)
#   race-par       the same eight requests, one session each, all at once
#                  (separate contexts: time-sliced)
. tools/gpu-env.sh
snap() { (cd "$O" && tar czf logs.tgz logs && cp logs/env.txt env.txt); }
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
watch_on() { local n=$1
  nvidia-smi pmon -s u -d 1 -o T > $L/pmon-$n.txt 2>&1 & PM=$!
  ( while :; do echo "@ $(date +%s.%N)"; ps -eo pid,ppid,args --no-headers | grep -E 'kcontract|compute-sanitizer' | grep -v grep | cut -c1-300; sleep 0.5; done ) > $L/ps-$n.txt 2>&1 & PS=$!
  echo "$n start $(date +%s.%N)" >> $L/marks.txt; }
watch_off() { echo "$1 end $(date +%s.%N)" >> $L/marks.txt; kill $PM $PS 2>/dev/null; wait $PM $PS 2>/dev/null; }
one() { local n=$1; shift; cp $T $L/costs-$n.tsv; watch_on $n
        gpu_run $n 110 $K run '*' $R "$@" --costs $L/costs-$n.tsv --no-cache --json $L/$n.json; watch_off $n; snap; }
one j4i4 --jobs 4 --inflight 4
one j4i4-2 --jobs 4 --inflight 4
ITEMS="attn_prefill.d128.bf16:sanitize attn_prefill.d128.f16:sanitize cub.sort_pairs_desc.f32:sanitize cub.sort_keys.u32:sanitize attn_prefill.d64.f16:sanitize attn_prefill.d64.bf16:sanitize gemm_hopper.bf16:sanitize moe.align_block_size:sanitize"
RC() { echo compute-sanitizer --tool racecheck --error-exitcode 86 --print-limit 10 --launch-timeout 60 \
  --target-processes application-only --report-api-errors no \
  --kernel-name-exclude kne=kc_smem_poison --kernel-name-exclude kne=kc_gen_fill --kernel-name-exclude kne=kc_check_bytes \
  --kernel-name-exclude kne=kc_check_unwritten --kernel-name-exclude kne=kc_check_differs --kernel-name-exclude kne=kc_check_close \
  --show-backtrace device --racecheck-report analysis --racecheck-num-workers $1 $K run --sanitize-target --seed 1 --device 0; }
race_seq() { local n=$1 w=$2; watch_on $n
  for i in $ITEMS; do echo "$i edge"; done | gpu_run $n 200 $(RC $w); watch_off $n; }
race_seq race-seq 16
race_seq race-seq-w1 1
watch_on race-par
t0=$(date +%s.%N)
pids=""
for i in $ITEMS; do (echo "$i edge" | /usr/bin/time -v -o $L/race-par-${i%%:*}.time timeout 200 $(RC 16) > $L/race-par-${i%%:*}.log 2>&1) & pids="$pids $!"; done
wait $pids; echo "race-par: wall $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{printf "%.2f", b-a}') s" >> $L/env.txt
watch_off race-par
gpu_env_pack
