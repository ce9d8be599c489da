#!/bin/bash
# device call 2: the session's last tree (named in COMMIT), after call 1's
# 6a4c339: its later commits change no GPU work, but one changes what every
# worker checks before it prints an item's line (item_run.c, line_may_print),
# so every item once more, and the gates 1-4 items serially, with the same
# search for the lines a healthy run never has.
# Run from the tree: git rev-parse HEAD > COMMIT; bash docs/receipts/2026-12-07-final-tree/dev2.sh (.deps carried).
. tools/gpu-env.sh
gpu_smi all-1; gpu_suite all-1 150 $K; gpu_smi_end all-1
gpu_run serial 120 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial.json
for f in $L/all-1.log $L/serial.log; do
    n=$(grep -c -E "without its end line|before it said its compute-sanitizer sessions vouch|did not end within|protocol violated|still waits for its worker's end line|could not wait for its worker|not trusted|on its own|each passed its run alone|closed or replaced the worker's result pipe" "$f")
    p=$(grep -c -E "^(\[w[0-9]+\] )?PASS +[^ ]+:sanitize " "$f")
    c=$(grep -c -E "^(\[w[0-9]+\] )?CRASH " "$f")
    echo "new lines in $(basename $f): $n; :sanitize PASS lines: $p; CRASH lines: $c" >> $L/env.txt
done
gpu_env_pack
