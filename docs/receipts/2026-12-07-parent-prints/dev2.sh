#!/bin/bash
# device call 2: the session's tree after call 1 (the --rerun-failed rule,
# a broken driver refused, reports after bad usage, a red-team's mends):
# every item with --jobs 4 --inflight 4, the gates 1-4 items as two --shard
# slices (each a serial run of its half) joined by kcontract merge (given
# --records this time: call 1's merge, without them, could not name the
# launch-record items and refused), and time limits that run out under real
# kernels (--timeout 0.05 with --jobs 2 --inflight 2), where
# each item must still have one line. Kept short: the device time left was
# about 330 s.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-parent-prints/dev2.sh (.deps carried).
. tools/gpu-env.sh
gpu_smi all-1; gpu_suite all-1 150 $K; gpu_smi_end all-1
gpu_run shard0 120 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 0/2
gpu_run shard1 120 $K run '*' $R --exclude '*:sanitize' --no-cache --shard 1/2
gpu_run merge 60 $K merge '*' $R --exclude '*:sanitize' --log $L/shard0.log --log $L/shard1.log
gpu_run tight-jobs 60 $K run 'gemv.bf16*' --no-cache --timeout 0.05 --jobs 2 --inflight 2
for f in $L/all-1.log $L/shard0.log $L/shard1.log $L/tight-jobs.log; do
    awk '{ l = $0; sub(/^\[w[0-9]+\] /, "", l) }
         l ~ /^(PASS|FAIL|RED|MISSED|KNOWN|LIMIT|LEAK|CRASH|TIMEOUT|SKIP|NOTRUN) / { split(l, a, " "); n[a[2]]++; s[a[1]]++; t++ }
         END { bad = 0; for (k in n) if (n[k] != 1) { bad++; print "  more than one line: " k " (" n[k] ")" }
               printf "state lines in %s: %d for %d items, %d items not on exactly one;", FILENAME, t, length(n), bad
               for (k in s) printf " %s %d", k, s[k]; printf "\n" }' "$f" >> $L/env.txt
    n=$(grep -c -E "without its end line|did not end within|protocol violated|not trusted|on its own|each passed its run alone|does not work" "$f")
    echo "new lines in $(basename $f): $n" >> $L/env.txt
done
grep -E "^(TALLY|SUMMARY)" $L/merge.log | sed "s/^/merge: /" >> $L/env.txt
gpu_env_pack
