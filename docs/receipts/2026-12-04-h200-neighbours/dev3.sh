#!/bin/bash
# device call 3 (issue 23): guarded buffers in workers with lanes (this
# tree: each buffer its own mapping with 8 GiB unmapped either side)
# against the stream-ordered pool (32bfda5, before.tar). The kv_cache items
# on one worker with 4 in flight, then every item under --jobs 4
# --inflight 4, alternated after, before, after, before: the gates of the
# kv_cache slot_offset_i32 controls, the put-backs and the wall.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
gpu_before
slot_gates() { grep -E '^(\[w[0-9]+\] )?RED +kv_cache\.[^ ]*:control\.slot_offset_i32' $L/$1.log | sed -E "s/^/$1: /; s/(caught by gate [0-9]).*/\1/" >> $L/env.txt; }
for v in after before; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  gpu_run kv-$v 60 $KK run 'kv_cache.*' --exclude '*:sanitize' $R --jobs 1 --inflight 4 --no-cache
  slot_gates kv-$v
done
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 100 $KK run '*' $R --jobs 4 --inflight 4 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  echo "j4i4-$v: put back: $(grep -c 'decided by a run with nothing beside it' $L/j4i4-$v.log), beside a verdict not final: $(grep -c 'not known to be its own' $L/j4i4-$v.log), no gaps: $(grep -h 'had no unmapped gaps' $L/j4i4-$v.log | head -3)" >> $L/env.txt
  slot_gates j4i4-$v
done
gpu_env_pack
