#!/bin/bash
# device call 1: the tree where the parent prints every verdict a worker
# sends (a worker prints no item line; item_run.h) and a broken driver is
# refused: every item with --jobs 4 --inflight 4 (lanes: alone, batches,
# in flight, vouched :sanitize lines), the gates 1-4 items serially, and
# the same items as two --shard slices joined by kcontract merge (which
# holds each TALLY to its item lines). For every log: how many items have
# other than one state line, and the lines a healthy run never has.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-parent-prints/dev1.sh (.deps carried).
. tools/gpu-env.sh
gpu_smi all-1; gpu_suite all-1 150 $K; gpu_smi_end all-1
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
gpu_run shard0 120 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 0/2
gpu_run shard1 120 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 1/2
gpu_run merge 60 $K merge --log $L/shard0.log --log $L/shard1.log
for f in $L/all-1.log $L/serial.log $L/shard0.log $L/shard1.log; do
    awk '{ l = $0; sub(/^\[w[0-9]+\] /, "", l) }
         l ~ /^(PASS|FAIL|RED|MISSED|KNOWN|LIMIT|LEAK|CRASH|TIMEOUT|SKIP|NOTRUN) / { split(l, a, " "); n[a[2]]++; t++ }
         END { bad = 0; for (k in n) if (n[k] != 1) { bad++; print "  more than one line: " k " (" n[k] ")" }
               printf "state lines in %s: %d for %d items, %d items not on exactly one\n", FILENAME, t, length(n), bad }' "$f" >> $L/env.txt
    n=$(grep -c -E "without its end line|did not end within|protocol violated|not trusted|on its own|each passed its run alone|does not work" "$f")
    echo "new lines in $(basename $f): $n" >> $L/env.txt
done
gpu_env_pack
