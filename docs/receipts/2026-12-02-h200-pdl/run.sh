#!/bin/bash
# run.sh — the PDL pair's GPU check on one H200 (issue 22): build, then
#  1. the pdl contracts, seeds 1 to 5 (every kernel PASS, every control RED;
#     seed 1 with the :sanitize items);
#  2. the SASS of the clean module (the griddepcontrol instructions);
#  3. pdl_probe (this folder) built clean and as each control's build: does
#     the dependent start before the producer ends, how often a dependent
#     that does not wait reads early, on a created stream, on the legacy
#     default stream and without the attribute, and one pair's time.
# Logs go to $OUT/logs.tgz. Run from the repository root with .deps carried.
set -u -f   # -f: patterns reach kcontract unexpanded
OUT=${OUT:-/tmp/kc-out}
R=docs/receipts/2026-12-02-h200-pdl
mkdir -p "$OUT" logs
export PATH="$PATH:/usr/local/cuda/bin"
sh tools/gpu-deps.sh unpack
t0=$(date +%s)
make -j"$(nproc)" build/kcontract > logs/build.log 2>&1 || { tail -n 40 logs/build.log; exit 1; }
for v in clean dependent_no_wait wait_in_one_thread; do
  d=; [ $v = clean ] || d=-DKC_CONTROL_$v
  nvcc -O3 -std=c++17 -arch=sm_90 $d -Ikernels/pdl -o logs/probe_$v $R/pdl_probe.cu >> logs/build.log 2>&1 &
done
wait
echo "build: $(( $(date +%s) - t0 )) s"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nvcc --version | tail -n 2;
  gcc --version | head -n 1; nproc; } > logs/env.txt 2>&1
./build/kcontract info >> logs/env.txt 2>&1
for s in 1 2 3 4 5; do
  x=; [ $s = 1 ] || x="--exclude *:sanitize"
  /usr/bin/time -f "%e s wall, %M KiB peak RSS" -o logs/time.seed$s.txt ./build/kcontract run 'pdl*' $x --seed $s > logs/pdl.seed$s.log 2>&1
  echo "seed $s: exit $? | $(grep '^SUMMARY' logs/pdl.seed$s.log) | $(cat logs/time.seed$s.txt) | $(grep '^peak' logs/pdl.seed$s.log)"
done
set +f   # the patterns are done: the log globs below expand (the receipt's run had -f here: its greps found no files)
grep -hE '^(FAIL|MISSED|CRASH|TIMEOUT|LEAK|LIMIT|KNOWN|SKIP)|^ +also' logs/pdl.seed*.log | cut -c1-300 | head -n 20
grep -h ':control\.' logs/pdl.seed*.log | cut -c1-260
grep -h ':limits\|:sanitize' logs/pdl.seed1.log | cut -c1-600
cuobjdump -sass build/fatbin/token_quant_pdl.fatbin > logs/sass.token_quant_pdl.txt 2>&1
echo "SASS: $(grep -cE 'ACQBULK|griddep|PREEXIT|DEPBAR' logs/sass.token_quant_pdl.txt) ACQBULK/PREEXIT/DEPBAR lines; opcodes:"
grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z][A-Z0-9_.]+' logs/sass.token_quant_pdl.txt | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -n 40 | tr '\n' ' '; echo
for v in clean dependent_no_wait wait_in_one_thread; do
  timeout 60 ./logs/probe_$v $v > logs/probe.$v.log 2>&1; echo "probe $v: exit $?"; cat logs/probe.$v.log
done
rm -f logs/probe_*
tar czf "$OUT/logs.tgz" logs
