#!/bin/bash
# run.sh — the harness run of the attn_prefill_hopper contracts on one H200
# (issue 22), after the standalone run this receipt's README records:
#  1. build build/kcontract (the kernel is sm_90a: KC_CUDA_ARCH_attn_prefill_hopper);
#  2. 'attn_prefill_hopper.*' serially, seeds 1 to 5, :limits and :sanitize
#     included (every kernel PASS, every control RED by its planted gate);
#  3. the SASS of the clean fatbin: HGMMA, UTMALDG, mbarrier and setmaxnreg counts;
#  4. the existing 'attn_prefill.*' family once, to show it unchanged.
# Logs go to $OUT/logs.tgz. Run from the repository root with .deps carried.
set -u -f   # -f: patterns reach kcontract unexpanded
OUT=${OUT:-/tmp/kc-out}
mkdir -p "$OUT" logs
export PATH="$PATH:/usr/local/cuda/bin"
sh tools/gpu-deps.sh unpack
t0=$(date +%s)
make -j"$(nproc)" build/kcontract > logs/build.log 2>&1 || { tail -n 40 logs/build.log; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > logs/env.txt
./build/kcontract info >> logs/env.txt 2>&1
K="attn_prefill_hopper.*"
for s in 1 2 3 4 5; do
  /usr/bin/time -v -o logs/time.seed$s.txt ./build/kcontract run $K --seed $s > logs/hopper.seed$s.log 2>&1
  echo "seed $s: exit $? | $(grep '^SUMMARY' logs/hopper.seed$s.log) | $(grep -E 'Elapsed|Maximum resident' logs/time.seed$s.txt | tr -s ' ' | tr '\n' ' ')"
done
grep -hE '^(FAIL|MISSED|CRASH|TIMEOUT|LEAK|LIMIT|KNOWN)|^ +also' logs/hopper.seed*.log | cut -c1-300 | head -n 40
grep -h ':limits' logs/hopper.seed1.log | cut -c1-300
grep -h ':control\.' logs/hopper.seed1.log | cut -c1-240
cuobjdump -sass build/fatbin/attn_prefill_hopper.fatbin > logs/sass.attn_prefill_hopper.txt 2>&1
echo "SASS (4 kernels): $(grep -c HGMMA logs/sass.attn_prefill_hopper.txt) HGMMA, $(grep -c UTMALDG logs/sass.attn_prefill_hopper.txt) UTMALDG, $(grep -c 'SYNCS' logs/sass.attn_prefill_hopper.txt) SYNCS, $(grep -c USETMAXREG logs/sass.attn_prefill_hopper.txt) USETMAXREG, $(grep -cE '\bLDL\b|\bSTL\b' logs/sass.attn_prefill_hopper.txt) LDL/STL"
./build/kcontract run 'attn_prefill.*' > logs/attn_prefill.log 2>&1
echo "attn_prefill.*: exit $? | $(grep '^SUMMARY' logs/attn_prefill.log)"
tar czf "$OUT/logs.tgz" logs
