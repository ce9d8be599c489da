#!/bin/bash
# device call 1 (stop 68): the tree named in COMMIT on a GPU.
#   hosts-*     a multi-host CI's retry on real kernels: 'gemv.*' measured
#               into a table T (--jobs), then round 1 as two --shard slices
#               cut by T with time limits that run out (--timeout 0.05), their
#               merge (which now records its verdicts in T, seconds kept), a
#               second merge of the same logs (T still the one they were cut
#               by), then round 2: the slices of --rerun-failed, their merge;
#   all-1       every item (R, --jobs 4 --inflight 4, --no-cache, --json), GPU sampled.
# Every log is then counted: state lines per item (exactly one), and the
# lines a healthy run never has.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-merge-verdicts/dev1.sh (.deps carried).
. tools/gpu-env.sh
set -f
T=$L/hosts.costs.tsv
gpu_run hosts-measure 90 $K run 'gemv.*' --jobs 4 --inflight 4 --costs $T
for k in 0 1; do gpu_run hosts-r1-s$k 90 $K run 'gemv.*' --costs $T --shard $k/2 --timeout 0.05; done
cp $T $L/hosts.costs-r1-before-merge.tsv
gpu_run hosts-r1-merge 30 $K merge 'gemv.*' --costs $T --log $L/hosts-r1-s0.log --log $L/hosts-r1-s1.log
cp $T $L/hosts.costs-r1-after-merge.tsv
gpu_run hosts-r1-merge-again 30 $K merge 'gemv.*' --costs $T --log $L/hosts-r1-s0.log --log $L/hosts-r1-s1.log
for k in 0 1; do gpu_run hosts-r2-s$k 90 $K run 'gemv.*' --rerun-failed --costs $T --shard $k/2; done
gpu_run hosts-r2-merge 30 $K merge 'gemv.*' --rerun-failed --costs $T --log $L/hosts-r2-s0.log --log $L/hosts-r2-s1.log
for n in hosts-r1-merge hosts-r1-merge-again hosts-r2-merge; do
    grep -hE "^(TALLY|SUMMARY)|cost table|merge failed" $L/$n.log | sed "s/^/$n: /" >> $L/env.txt
done
gpu_smi all-1; gpu_suite all-1 150 $K; gpu_smi_end all-1
set +f
gpu_lines $L/all-1.log $L/hosts-r1-s0.log $L/hosts-r1-s1.log $L/hosts-r2-s0.log $L/hosts-r2-s1.log
gpu_env_pack
