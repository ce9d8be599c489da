#!/bin/bash
# device call 1 (issue 23): is the whole-GPU shared-memory poison what keeps
# lanes of one context from overlapping (bench pass 16p), and which split of
# one GPU into workers x lanes runs the whole suite fastest today?
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract build/kc_inflight_bench >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
/usr/bin/time -v -o $L/bench.time timeout 150 ./build/kc_inflight_bench --k 16,16p > $L/bench.log 2>&1
el "bench 16,16p" $?
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
for c in "2 8" "4 4" "1 16"; do
  set -- $c; n=j$1i$2
  /usr/bin/time -v -o $L/$n.time timeout 130 ./build/kcontract run '*' $R --jobs $1 --inflight $2 --json $L/$n.json > $L/$n.log 2>&1
  el "$n" $?
done
for f in j2i8 j4i4 j1i16; do grep -E "^SUMMARY|^time in items|^slowest" $L/$f.log | sed "s/^/$f: /" >> $L/env.txt; done
grep BENCH $L/bench.log >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
