#!/bin/bash
# device call 1 (issue 23): main after stop 42's review mends (input caches
# charge whole granules, the out-of-memory retry, a serial line's seconds),
# never run on a GPU: every item under --jobs 4 --inflight 4 twice and the
# serial run once; one context for the gate items against several (--jobs 2
# --inflight 8, --jobs 1 --inflight 16); and racecheck's report mode (the
# gate's `analysis` against `hazard`, and `analysis` with --racecheck-
# detect-level warn) on the six heaviest :sanitize items and the
# smem_reuse_race controls, through a wrapper that rewrites the session's
# words (racecheck-mode.sh), alternated twice.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
for v in a b; do
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 100 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  echo "j4i4-$v: put back: $(grep -c 'decided by a run with nothing beside it' $L/j4i4-$v.log), no gaps: $(grep -h 'had no unmapped gaps' $L/j4i4-$v.log | head -3)" >> $L/env.txt
done
gpu_run serial 100 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
for jk in "2 8" "1 16"; do set -- $jk
  cp $T $L/costs-j$1i$2.tsv
  gpu_run j$1i$2 120 $K run '*' $R --jobs $1 --inflight $2 --costs $L/costs-j$1i$2.tsv --no-cache --json $L/j$1i$2.json
done
S="attn_prefill.d*:sanitize cub.sort*:sanitize *:control.smem_reuse_race"
W=$PWD/docs/receipts/2026-12-04-h200-mends/racecheck-mode.sh
for round in 1 2; do for m in analysis hazard warn; do
  KC_RACE_MODE=$m KC_REAL_SANITIZER=$(command -v compute-sanitizer) KC_COMPUTE_SANITIZER=$W \
    gpu_run race-$m-$round 120 $K run $S --no-cache
  echo "race-$m-$round: $(grep -o 'racecheck [0-9.]* s' $L/race-$m-$round.log | tr '\n' ' ')" >> $L/env.txt
done; done
gpu_env_pack
