#!/bin/bash
# device call 5: in call 1 the GPU ran a kernel in under half of each of the
# run's first 11 seconds: the two sanitizer workers began with the seven
# controls planted for the sanitizer (longest first by the cost table; each
# starts sessions of its own, two at a time), the other two with the items
# that go alone. Would the clean :sanitize items first (GPU-bound racecheck)
# and those controls last use that time? No code: the same binary, the cost
# table with those seven controls' seconds set to 0.05 (costs-late), so the
# queue's longest-first order hands them out last; alternated with the
# table as it is.
. tools/gpu-env.sh
T=docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv
awk -F'\t' 'BEGIN{OFS="\t"} $1 ~ /control\.(smem_reuse_race|masked_tail_read_oob|scale_row_unclamped)$/ {$2="0.050"} {print}' $T > $L/costs-late-src.tsv
diff $T $L/costs-late-src.tsv > $L/costs-late.diff
one() { local n=$1 src=$2; cp $src $L/costs-$n.tsv
        gpu_run $n 110 $K run '*' $R --jobs 4 --inflight 4 --costs $L/costs-$n.tsv --no-cache --json $L/$n.json; }
one base $T; one late $L/costs-late-src.tsv; one base-2 $T; one late-2 $L/costs-late-src.tsv
gpu_env_pack
