#!/bin/bash
# device call 2 (issue 23): host buffers in transparent huge pages (81f351a)
# against the tree before it (9532db0, before.tar: the GPU-state watch's two
# mends, which both trees carry: the pool trimmed before an item run alone
# is measured, the local memory of a stack the driver raised left out).
# Call 1 found a serial run's system time is not glibc's heap (its tunables
# left 3.38 M of 3.57 M faults). Here: the serial gates 1-4 run, before,
# after, after, before (wall, system time, minor faults); every
# kcontract process's /proc/PID/stat sampled each 50 ms in the second
# "after" (faults, user and system ticks over time, to put on the items of
# serial-after-2.json); every item --jobs 4 --inflight 4 after (second)
# and before (last), their lines of memory left and restarts counted (call 2 of
# 2026-12-04-h200-mends had 8, every cuBLAS item and control, and 2 in the
# serial run). The host's THP setting first.
. tools/gpu-env.sh
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)" >> $L/env.txt
gpu_before
SER=(run '*' $R --exclude '*:sanitize' --no-cache)
sample() { while [ -e $L/.sampling ]; do t=$(date +%s.%N)
             for p in $(pgrep -x kcontract); do read -r s < /proc/$p/stat 2>/dev/null && echo "$t $s"; done
             sleep 0.05; done > $L/stat-samples.txt; }
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
j4i4() { case $1 in before*) KK=$KB;; *) KK=$K;; esac
         cp $T $L/costs-j4i4-$1.tsv
         gpu_run j4i4-$1 100 $KK run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$1.tsv --no-cache --json $L/j4i4-$1.json; }
# the most wanted first: a call cut short by the device budget keeps them
gpu_run serial-before-1 100 $KB "${SER[@]}" --json $L/serial-before-1.json
gpu_run serial-after-1 100 $K "${SER[@]}" --json $L/serial-after-1.json
j4i4 after
touch $L/.sampling; sample & SP=$!; date +%s.%N > $L/serial-after-2.start
gpu_run serial-after-2 100 $K "${SER[@]}" --json $L/serial-after-2.json
rm -f $L/.sampling; wait $SP
echo "stat samples: $(wc -l < $L/stat-samples.txt)" >> $L/env.txt
gpu_run serial-before-2 100 $KB "${SER[@]}" --json $L/serial-before-2.json
j4i4 before
for f in $L/serial-*.log $L/j4i4-*.log; do
  n=$(basename $f .log)
  echo "$n: faults, voluntary, involuntary: $(grep -E 'Minor|Voluntary|Involuntary' $L/$n.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
  echo "state lines $n: limits $(grep -c "changed the CUDA context's" $f)," \
       "memory $(grep -c 'left GPU memory allocated' $f), restarts $(grep -c 'GPU state left by' $f)," \
       "fresh $(grep -c 'fresh process' $f)" >> $L/env.txt
done
grep -h 'left GPU memory allocated' $L/*.log | cut -c1-400 | sed 's/^/memory line: /' >> $L/env.txt
gpu_env_pack
