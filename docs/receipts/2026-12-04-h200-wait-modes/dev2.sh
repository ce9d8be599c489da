#!/bin/bash
# device call 2 (issue 23): the serial run's worker spins (--gpu-wait spin
# from its parent) against the tree before (d924dfd, before.tar: it blocks),
# alternated after, before, after, before. Then how the sanitizer's items
# share the one GPU with the rest: the 106 :sanitize items on 2 workers
# alone; every item split in two runs started together (the :sanitize items
# on 1 or 2 workers beside the rest on 3 or 2 workers with 4 items in
# flight); every item under --jobs 4 --inflight 4 as the baseline; and
# racecheck by hand over attn_prefill.d128.bf16's edge shapes (the heaviest
# racecheck request) with 1 and 16 analysis threads, the GPU's utilization
# sampled every 100 ms.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  gpu_run serial-$v 100 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json
done
cp $T $L/costs-san-j2.tsv
gpu_run san-j2 60 $K run '*:sanitize' --jobs 2 --costs $L/costs-san-j2.tsv --no-cache --json $L/san-j2.json
split() {  # NAME SAN_JOBS REST_JOBS
  cp $T $L/costs-$1-san.tsv; cp $T $L/costs-$1-rest.tsv
  local t0=$(date +%s.%N)
  gpu_run $1-san 90 $K run '*:sanitize' --jobs $2 --costs $L/costs-$1-san.tsv --no-cache --json $L/$1-san.json &
  gpu_run $1-rest 90 $K run '*' $R --exclude '*:sanitize' --jobs $3 --inflight 4 --costs $L/costs-$1-rest.tsv --no-cache --json $L/$1-rest.json
  wait
  echo "$1: both ended at $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" >> $L/env.txt
}
split split13 1 3
split split22 2 2
cp $T $L/costs-j4i4.tsv
gpu_run j4i4 90 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4.tsv --no-cache --json $L/j4i4.json
S=/usr/local/cuda/bin/compute-sanitizer
X="--error-exitcode 86 --print-limit 10 --launch-timeout 60 --target-processes application-only --report-api-errors no --show-backtrace device --kernel-name-exclude kne=kc_smem_poison --kernel-name-exclude kne=kc_gen_fill --kernel-name-exclude kne=kc_check_bytes --kernel-name-exclude kne=kc_check_unwritten --kernel-name-exclude kne=kc_check_differs --kernel-name-exclude kne=kc_check_close"
for w in 1 16; do
  nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader -lms 100 > $L/race-w$w.util 2>&1 & U=$!
  printf 'attn_prefill.d128.bf16:sanitize edge\n' | /usr/bin/time -v -o $L/race-w$w.time $S --tool racecheck $X --racecheck-report analysis --racecheck-num-workers $w $K run --sanitize-target --seed 1 --device 0 > $L/race-w$w.log 2>&1
  el "racecheck attn_prefill.d128.bf16 edge, $w analysis threads"; kill $U
  echo "race-w$w: CPU $(grep -E 'User time|System time|Elapsed' $L/race-w$w.time | awk -F': ' '{printf "%s ", $2}'); GPU util mean $(awk -F', ' '{gsub(/ %/,"",$2); s+=$2; n++} END {printf "%.0f%% over %d samples", s/n, n}' $L/race-w$w.util)" >> $L/env.txt
done
gpu_env_pack
