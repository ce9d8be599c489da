#!/bin/bash
# device call 1: gate 3's "never written" marker on a GPU (b7a8709: every
# reference output starts as the signaling NaN 0x7FF47FF47FF47FF4, filled on
# the device by cuMemsetD32, and an element left so fails even against a NaN
# output) and the start-up checks the new user's and the red team's rounds
# added (kernel symbols read from the sm_90 images, the count probe's alarm).
# Every bundled reference must write every element of every output, on the
# host and on the device:
#   serial      the gates 1-4 items serially (device references where a
#               contract has one): the SUMMARY as before;
#   both        every kernel item (no controls, no :sanitize) with
#               --reference both (host and device references, each checked
#               against the output and against each other), --jobs 4 --inflight 4;
#   all-1       every item, --jobs 4 --inflight 4, --no-cache.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-ref-unwritten/dev1.sh (.deps carried).
. tools/gpu-env.sh
set -f
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache
gpu_run both 150 $K run '*' $R --exclude '*:sanitize' --exclude '*:control.*' --exclude '*:limits' --reference both --jobs 4 --inflight 4 --no-cache
gpu_smi all-1; gpu_suite all-1 150 $K; gpu_smi_end all-1
set +f
gpu_lines $L/serial.log $L/both.log $L/all-1.log
grep -h "never wrote" $L/*.log | head -20 >> $L/env.txt
gpu_env_pack
