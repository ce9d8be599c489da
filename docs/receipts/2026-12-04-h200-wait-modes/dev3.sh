#!/bin/bash
# device call 3 (issue 23): the tree that spins in a run of one worker
# (ad8de5e), checked where spinning could cost: the serial gates 1-4 run
# under KC_CUDA_SCHED yield (polls, but gives the core up when others wait
# for it), spin (the new default there) and block (the old), alternated; and
# four --shard k/4 serial runs started together on the one host (as Bazel or
# CTest run a sharded test in parallel), each spinning by default, against
# all four blocking and all four yielding.
. tools/gpu-env.sh
for v in yield spin block yield2 spin2; do
  gpu_run serial-$v 100 env KC_CUDA_SCHED=${v%2} $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-$v.json
done
shards() {  # NAME [KC_CUDA_SCHED value, or "" for the default]
  local t0=$(date +%s.%N)
  for k in 0 1 2 3; do
    if [ -n "$2" ]; then gpu_run $1-k$k 120 env KC_CUDA_SCHED=$2 $K run '*' $R --exclude '*:sanitize' --shard $k/4 --no-cache &
    else gpu_run $1-k$k 120 $K run '*' $R --exclude '*:sanitize' --shard $k/4 --no-cache & fi
  done
  wait
  echo "$1: all four ended at $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" >> $L/env.txt
}
shards shards-default ""
shards shards-block block
shards shards-yield yield
gpu_env_pack
