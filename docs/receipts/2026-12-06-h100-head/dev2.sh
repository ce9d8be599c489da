#!/bin/bash
# device call 2: gate 2's checks and gate 4's compare queued behind their
# launch, each readback the launch's synchronize (branch exp/fold-syncs,
# COMMIT) against main (before.tar), alternated on one machine: serially over
# the gates 1-4 items, then every item with --jobs 4 --inflight 4, twice each.
# Run from the tree: git rev-parse HEAD > COMMIT; git archive main -- . ':(exclude)docs/receipts' | gzip > before.tar;
# bash docs/receipts/2026-12-06-h100-head/dev2.sh (.deps carried).
. tools/gpu-env.sh
gpu_before
gpu_run serial-after 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-after.json
gpu_run serial-before 120 $KB run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-before.json
gpu_suite all-after-1 120 $K
gpu_suite all-before-1 120 $KB
gpu_suite all-after-2 120 $K
gpu_suite all-before-2 120 $KB
gpu_env_pack
