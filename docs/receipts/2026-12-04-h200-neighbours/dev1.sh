#!/bin/bash
# device call 1 (issue 23) on nvidia-h200-x2: every item under --jobs 4
# --inflight 4 on GPU 0, controls alone in their worker (this tree) against
# controls in flight under the neighbours' rule (ea861d2, before.tar),
# alternated after, before, after, before; then every item over both GPUs
# (--devices 0,1 --jobs 8 --inflight 4) with this tree, twice.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
gpu_before
nvidia-smi topo -m >> $L/env.txt 2>&1
for v in after before after2 before2; do
  case $v in before*) KK=$KB;; *) KK=$K;; esac
  cp $T $L/costs-j4i4-$v.tsv
  gpu_run j4i4-$v 100 $KK run '*' $R --jobs 4 --inflight 4 --devices 0 --costs $L/costs-j4i4-$v.tsv --no-cache --json $L/j4i4-$v.json
  echo "j4i4-$v: put back: $(grep -c 'decided by a run with nothing beside it' $L/j4i4-$v.log), beside a verdict not final: $(grep -c 'not known to be its own' $L/j4i4-$v.log), met: $(grep -c 'lost its own' $L/j4i4-$v.log)" >> $L/env.txt
  grep -E '^(\[w[0-9]+\] )?RED +kv_cache\.[^ ]*:control\.slot_offset_i32' $L/j4i4-$v.log | sed -E "s/^/j4i4-$v: /; s/(caught by gate [0-9]).*/\1/" >> $L/env.txt
done
for v in 2gpu 2gpu2; do
  cp $T $L/costs-j8i4-$v.tsv
  gpu_run j8i4-$v 100 $K run '*' $R --jobs 8 --inflight 4 --devices 0,1 --costs $L/costs-j8i4-$v.tsv --no-cache --json $L/j8i4-$v.json
  echo "j8i4-$v: put back: $(grep -c 'decided by a run with nothing beside it' $L/j8i4-$v.log), beside a verdict not final: $(grep -c 'not known to be its own' $L/j8i4-$v.log)" >> $L/env.txt
done
gpu_env_pack
