#!/bin/bash
# device call 1: would the every-item run be shorter if the 13 controls
# planted for gate 1 ran first, one at a time, with nothing beside them?
# The stop 69-70 verify (../2026-12-07-stop69-verify) had them on one worker
# from 0.5 to 27.3 s, 1.4-3.8 s each beside the sanitizer sessions, against
# 0.2-0.6 s each serially. exp-fault-first.patch (branch exp/fault-first,
# not merged) adds KC_DISPATCH_FAULT_FIRST=1 for that order; unset, the
# dispatch is main's. The patch is applied to the copy here, then every item
# (gpu_suite: --jobs 4 --inflight 4, --no-cache) runs with the knob off and
# on, alternated, each run only while the call's time allows (MAX_S).
# Run from the tree: git rev-parse HEAD > COMMIT; MAX_S=N bash docs/receipts/2026-12-08-fault-first/dev1.sh (.deps carried).
patch -p1 -s < docs/receipts/2026-12-08-fault-first/exp-fault-first.patch || { echo "patch failed"; exit 1; }
. tools/gpu-env.sh
echo "patched: exp-fault-first.patch (KC_DISPATCH_FAULT_FIRST)" >> "$L/env.txt"
MAX_S=${MAX_S:-300}
fits() { [ $(( $(date +%s) - T0 + $1 )) -le "$MAX_S" ] || { echo "skipped (time): $2" >> "$L/env.txt"; return 1; }; }
set -f
for r in off-1 on-1 off-2 on-2; do
  fits 60 $r || continue
  case $r in on-*) export KC_DISPATCH_FAULT_FIRST=1 ;; *) unset KC_DISPATCH_FAULT_FIRST ;; esac
  gpu_smi $r; gpu_suite $r 90 $K; gpu_smi_end $r
done
set +f
for r in off-1 on-1 off-2 on-2; do [ ! -f $L/$r.log ] || gpu_lines $L/$r.log; done
gpu_env_pack
