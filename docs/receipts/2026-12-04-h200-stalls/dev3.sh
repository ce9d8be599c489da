#!/bin/bash
# device call 3 (issue 23): a control's sessions it did not ask serve the
# next control (dfa8667). The gates 1-4 items with the seven controls
# planted for the sanitizer under --jobs 4 --inflight 4 (call 2: 31.2 s;
# without those controls, call 1: 23.5 s), the serial run of the same items
# (2026-12-03-h200-racecheck call 3: 63.5 s), and every item under --jobs 4
# --inflight 4 (the same receipt: 65.9 s), each with its session starts
# counted from the process table every 0.2 s.
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p $L
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$2 at $(( $(date +%s) - T0 )) s" >> $L/env.txt; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; echo "commit: $(cat COMMIT)"; compute-sanitizer --version | tail -1; } > $L/env.txt 2>&1
sh tools/gpu-deps.sh unpack > $L/build.log 2>&1
make -j16 build/kcontract >> $L/build.log 2>&1 || tail -n 40 $L/build.log
el build $?
K=$PWD/build/kcontract
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
# sessions TAG: the compute-sanitizer processes seen (pid, tool), every 0.2 s, until stopped
sessions() { while :; do ps -eo pid=,args= | awk '/compute-sanitizer --tool/ && !/awk/ {for(i=1;i<=NF;i++) if($i=="--tool") print $1, $(i+1)}' >> $L/seen-$1.txt; sleep 0.2; done; }
runit() {
  local tag=$1; shift
  : > $L/seen-$tag.txt; sessions $tag & local sp=$!
  /usr/bin/time -v -o $L/$tag.time timeout 150 $K run '*' $R "$@" --no-cache --json $L/$tag.json > $L/$tag.log 2>&1
  el "$tag" $?
  kill $sp; wait $sp 2>/dev/null
  sort -u $L/seen-$tag.txt > $L/sessions-$tag.txt
  grep -E "^SUMMARY|^time in items|^slowest|^workers" $L/$tag.log | sed "s/^/$tag: /" >> $L/env.txt
  echo "$tag: sessions started: $(wc -l < $L/sessions-$tag.txt) ($(awk '{print $2}' $L/sessions-$tag.txt | sort | uniq -c | tr '\n' ' '))" >> $L/env.txt
}
runit j4i4-nosan --exclude '*:sanitize' --jobs 4 --inflight 4
runit serial --exclude '*:sanitize'
runit j4i4 --jobs 4 --inflight 4
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
