#!/bin/bash
# device call 2 (issue 23): (1) which driver call makes lanes of one context
# wait on each other? The bench's kernel items serially and on 16 lanes, with
# every traced driver call's summed wall time (--trace), the shared-memory
# poison off (p), and references/checks on one thread per lane (t).
# (2) the serial gates 1-4 run with inputs made ahead (input_prefetch).
# (3) the whole suite under --jobs 4 --inflight 4 with the dispatch that
# counts lanes in the others' share, twice (the first fills the cost table).
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvcc --version | tail -n 1; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract build/kc_inflight_bench >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
/usr/bin/time -v -o $L/s1.time timeout 150 ./build/kcontract run '*' $R --exclude '*:sanitize' --json $L/s1.json > $L/s1.log 2>&1
el "s1 serial gates 1-4, inputs ahead" $?
/usr/bin/time -v -o $L/bench.time timeout 200 ./build/kc_inflight_bench --trace --k 16,16t,16p,4 > $L/bench.log 2>&1
el "bench --trace 16,16t,16p,4" $?
for n in j4i4a j4i4b; do
  /usr/bin/time -v -o $L/$n.time timeout 130 ./build/kcontract run '*' $R --jobs 4 --inflight 4 --json $L/$n.json > $L/$n.log 2>&1
  el "$n" $?
done
for f in j4i4a j4i4b; do grep -E "^SUMMARY|^time in items|^slowest" $L/$f.log | sed "s/^/$f: /" >> $L/env.txt; done
grep -E "^SUMMARY|^time in items|^input buffers|^slowest" $L/s1.log | sed "s/^/s1: /" >> $L/env.txt
grep -v "^  differs" $L/bench.log >> $L/env.txt
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
