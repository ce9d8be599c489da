#!/bin/bash
# device call: one shard of kcontract mutate over every bundled module, the
# same 1650 sampled mutants (seed 1) as 2026-12-02-h200-mutate-run (issue 24).
# usage: dev.sh K N  (shard K of N; the mutants' builds stay in build/mutants
# for the next call on a warm machine: make keeps what is up to date)
K=$1; N=$2
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
bash tools/sample-mem.sh $L/mem.txt 2 & S=$!
/usr/bin/time -v -o $L/mut$K.time timeout ${LIMIT:-560} ./build/kcontract mutate --build-jobs 16 --jobs 12 --budget 1650 --seed 1 \
    --accepted kernels/mutants.accepted --shard $K/$N --json $L/shard$K.json > $L/mut$K.log 2>&1
el "mutate shard $K/$N" $?
kill $S
tail -n 1 $L/mut$K.log >> $L/env.txt
mkdir -p $L/mutants$K; cp build/mutants/run-*.json build/mutants/*.list build/mutants/costs.tsv $L/mutants$K/ 2>/dev/null
cd $O && tar czf logs$K.tgz logs && rm -rf logs
