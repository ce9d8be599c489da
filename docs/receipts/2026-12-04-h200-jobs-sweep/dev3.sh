#!/bin/bash
# device call 3 (issue 23): the tree after this stop's two changes (a RED
# control's sessions not waited for, c4f260f; the standby's sessions for the
# control after the next context loss, 9031091) against the tree before
# (2726601, before.tar): the serial run of the gates 1-4 items alternated
# after, before, after, before; every item under --jobs 4 --inflight 4
# after, before, after (fresh copies of the stalls receipt's cost table).
# First a probe: one sanitizer command by hand, as the gate runs it, with
# compute-sanitizer's --show-backtrace at its default (yes), device and no
# (how much of a tool's run the host backtraces saved at each launch take).
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
summ() { grep -E "^SUMMARY|^workers|^time in items|^slowest" $L/$1.log | sed "s/^/$1: /" >> $L/env.txt
         echo "$1: CPU $(grep -E 'User time|System time|Maximum resident|Elapsed' $L/$1.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt; }
mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/
(cd /tmp/before && make -j16 build/kcontract > $L/build-before.log 2>&1); el "build before"
KB=/tmp/before/build/kcontract
S=/usr/local/cuda/bin/compute-sanitizer
X="--error-exitcode 86 --print-limit 10 --launch-timeout 60 --target-processes application-only --report-api-errors no --kernel-name-exclude kne=kc_smem_poison --kernel-name-exclude kne=kc_gen_fill --kernel-name-exclude kne=kc_check_bytes --kernel-name-exclude kne=kc_check_unwritten --kernel-name-exclude kne=kc_check_differs --kernel-name-exclude kne=kc_check_close"
probe() {  # tool item extra...
  local tool=$1 item=$2; shift 2
  for bt in yes device no; do
    local t0=$(date +%s.%N)
    $S --tool $tool $X --show-backtrace $bt "$@" $K run $item --sanitize-target --seed 1 --device 0 > $L/probe-$tool-${item//[:.]/_}-$bt.log 2>&1
    local rc=$?
    echo "probe $tool $item --show-backtrace $bt: rc=$rc $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}") s" >> $L/env.txt
  done
}
probe memcheck residual_add.bf16:control.masked_tail_read_oob --leak-check no
probe memcheck gemm_hopper.fp8:sanitize --leak-check no
probe memcheck attn_decode.hnd.bf16:sanitize --leak-check no
probe racecheck moe.align_block_size:sanitize --racecheck-report analysis --racecheck-num-workers 16
probe initcheck sampling.topk.f16:sanitize
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  /usr/bin/time -v -o $L/serial-$v.time timeout 100 $KK run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json > $L/serial-$v.log 2>&1
  el "serial gates 1-4 $v"; summ serial-$v
done
for v in after before after2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  cp $T $L/costs-j4i4-$v.tsv
  /usr/bin/time -v -o $L/j4i4-$v.time timeout 90 $KK run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json > $L/j4i4-$v.log 2>&1
  el "every item j4i4 $v"; summ j4i4-$v
done
gpu_env_pack
