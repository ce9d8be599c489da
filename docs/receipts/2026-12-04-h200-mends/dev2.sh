#!/bin/bash
# device call 2 (issue 23): racecheck on fewer blocks (c8a1a69:
# attn_prefill's one-head launch of every edge length, CUB's edge.16385
# instead of edge.65537) against the tree before it (fa3d201, before.tar):
# the seven :sanitize items it changes; the 106 :sanitize items on one
# worker; every item under --jobs 4 --inflight 4; each after, then before;
# the serial gates 1-4 run after (the new edge shapes run there too). One
# round each: three device starts had failed and the budget was short.
# Not run in the session that wrote it: no machine was lent after call 1
# (README.md here); it is the next session's first call, with before.tar
# from `git archive fa3d201` and COMMIT the tree's HEAD. The "after" runs
# also carry what came after the script: the GPU-state watch of the items a
# worker with lanes runs alone (8a3e6ed) and of the context's limits
# (1a2f627), whose lines the last step counts per log (a limit the driver
# changes by itself would show here as a false finding).
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
# The context limits on this driver first (a few seconds): which change by
# themselves, which can be set back (tools/probes/ctx_limits_probe.cu).
( P=$PWD/tools/probes/ctx_limits_probe.cu; cd $L && nvcc -arch=sm_90 -rdc=true -o ctx_limits_probe $P -lcuda -lcublas \
    -lcudadevrt && { ./ctx_limits_probe; ./ctx_limits_probe setl2 & sleep 3; ./ctx_limits_probe read; wait; } ) \
  > $L/limits-probe.txt 2>&1
gpu_before
S7="attn_prefill.d*:sanitize cub.sort*:sanitize"
for v in after before; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  gpu_run san7-$v 120 $KK run $S7 --no-cache
  echo "san7-$v: $(grep -o '^PASS *[^ ]*\|racecheck [0-9.]* s ([^)]*)' $L/san7-$v.log | tr '\n' ' ')" >> $L/env.txt
done
for v in after before; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  gpu_run san-j1-$v 100 $KK run '*:sanitize' --no-cache --json $L/san-j1-$v.json
done
for v in after before; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 100 $KK run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  echo "j4i4-$v: ran again: $(grep -h '^ran again alone' $L/j4i4-$v.log)" >> $L/env.txt
done
gpu_run serial 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
for f in $L/*.log; do
  echo "state lines $(basename $f): limits $(grep -c "changed the CUDA context's" $f)," \
       "memory $(grep -c 'left GPU memory allocated' $f), restarts $(grep -c 'GPU state left by' $f)" >> $L/env.txt
done
gpu_env_pack
