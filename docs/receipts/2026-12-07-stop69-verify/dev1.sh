#!/bin/bash
# device call 1: the tree at the end of stop 69 (named in COMMIT), whose 38
# commits after e0bf579's parent chain ran only through the fake driver:
# shards recording verdicts, the results cache forgetting REDs beside a
# failure, mutate's wave and selection checks, and library kernels in the
# build identity (lib*.so.source, sha256 through libcrypto). First, whether
# this machine has libcrypto and what `kcontract version` says (the build
# identity over 13 library kernels); then the head-verify runs of
# docs/receipts/2026-12-07-head-verify/dev1.sh, copied below.
# Each step runs only while the call's time allows it (MAX_S, default 420 s
# from the start, against the call's limit; each step's own limit below),
# so the logs are always packed.
# Run from the tree: git rev-parse HEAD > COMMIT; MAX_S=N bash docs/receipts/2026-12-07-stop69-verify/dev1.sh (.deps carried).
. tools/gpu-env.sh
MAX_S=${MAX_S:-420}
fits() { [ $(( $(date +%s) - T0 + $1 )) -le "$MAX_S" ] || { echo "skipped (time): $2" >> "$L/env.txt"; return 1; }; }
{ echo "libcrypto: $(ldconfig -p | grep -E 'libcrypto\.so\.(3|1\.1) ' | head -2 | tr '\n' ';')"
  timeout 150 make -j16 all > "$L/build-all.log" 2>&1; echo "make all: rc=$?"
  ls build/lib/*.so.source 2>/dev/null | wc -l | sed 's/^/library digests: /'
  /usr/bin/time -f "version: %e s" build/kcontract version 2>&1 | head -5; } >> "$L/env.txt" 2>&1
set -f
fits 150 all-1 && { gpu_smi all-1; gpu_suite all-1 150 $K; gpu_smi_end all-1; }
fits 120 serial && gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
fits 90 shards && { gpu_run shard0 120 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 0/2
  gpu_run shard1 120 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 1/2
  gpu_run merge 60 $K merge '*' $R --exclude '*:sanitize' --log $L/shard0.log --log $L/shard1.log; }
fits 15 tight && { KC_CACHE_DIR=$L/tight-cache gpu_run tight-jobs 60 $K run 'gemv.bf16*' --timeout 0.05 --jobs 2 --inflight 2
  KC_CACHE_DIR=$L/tight-cache gpu_run rerun 60 $K run 'gemv.bf16*' --rerun-failed --jobs 2 --inflight 2
  rm -rf $L/tight-cache; }
fits 120 bench && { ONLY_CACHED=1 NS=4 timeout $(( MAX_S - $(date +%s) + T0 - 10 )) sh bench/gpu_suite.sh $L/bench '*' $R --inflight 4 > $L/bench.log 2>&1; el bench
  grep -h "^BENCH" $L/bench.log >> $L/env.txt
  rm -rf $L/bench/cache; }
set +f
for f in all-1 serial shard0 shard1 tight-jobs rerun; do [ ! -f $L/$f.log ] || gpu_lines $L/$f.log; done
[ ! -f $L/merge.log ] || grep -hE "^(TALLY|SUMMARY)" $L/merge.log | sed "s/^/merge: /" >> $L/env.txt
gpu_env_pack
