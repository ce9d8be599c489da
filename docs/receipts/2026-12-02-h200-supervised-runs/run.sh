#!/bin/bash
# run.sh — issue 21's GPU check on one H200: the whole suite (both record
# files) serially without the :sanitize items, then every item with
# --jobs 8, each through tools/gpu-run.sh (environment, build, /usr/bin/time,
# memory samples). Logs go to $OUT/logs.tgz (the device returns at most 8
# files). Run from the repository root with .deps carried.
set -u -f   # -f: the pattern * reaches kcontract unexpanded
OUT=${OUT:-/tmp/kc-out}
mkdir -p "$OUT" logs
sh tools/gpu-deps.sh unpack
R="* --records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
KC_PREBUILT=${KC_PREBUILT:-} bash tools/gpu-run.sh logs/serial $R --exclude '*:sanitize' --json logs/serial/report.jsonl
KC_PREBUILT=1 bash tools/gpu-run.sh logs/jobs8 $R --jobs 8 --costs logs/jobs8/costs.tsv --json logs/jobs8/report.jsonl
KC_PREBUILT=1 bash tools/gpu-run.sh logs/jobs8b $R --jobs 8 --costs logs/jobs8/costs.tsv
for d in serial jobs8 jobs8b; do
  echo "== $d"; grep -E '^SUMMARY' logs/$d/run.log; grep -E 'Elapsed|Maximum resident' logs/$d/time.txt
  grep -cE '^(\[w[0-9]+\] )?(FAIL|MISSED|CRASH|TIMEOUT|LEAK|LIMIT|NOTRUN) ' logs/$d/run.log
done
tar czf "$OUT/logs.tgz" logs
