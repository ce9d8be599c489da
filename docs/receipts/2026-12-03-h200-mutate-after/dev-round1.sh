#!/bin/bash
# device call (issue 24): after the triage, the same sample as
# 2026-12-03-h200-mutate-sharded less the 116 accepted (--budget 1534 draws
# exactly those: the least hashes of what is not accepted), iterated over the
# two shards' reports: only the 48 missed and not accepted, and the 327 no
# shard ran, are built and run; the contracts are the strengthened ones.
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L /tmp/sh
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
R=docs/receipts/2026-12-03-h200-mutate-sharded
tar xzf $R/logs0.tgz -C /tmp/sh logs/shard0.json && tar xzf $R/logs1.tgz -C /tmp/sh logs/shard1.json
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
bash tools/sample-mem.sh $L/mem.txt 2 & S=$!
/usr/bin/time -v -o $L/mut.time timeout ${LIMIT:-500} ./build/kcontract mutate --build-jobs 16 --jobs 12 --budget 1534 --seed 1 \
    --accepted kernels/mutants.accepted --iterate /tmp/sh/logs/shard0.json --iterate /tmp/sh/logs/shard1.json \
    --json $L/after.json > $L/mut.log 2>&1
el "mutate iterate" $?
kill $S
tail -n 1 $L/mut.log >> $L/env.txt
mkdir -p $L/mutants; cp build/mutants/run-*.json build/mutants/*.list build/mutants/costs.tsv $L/mutants/ 2>/dev/null
cd $O && tar czf logs.tgz logs && rm -rf logs
