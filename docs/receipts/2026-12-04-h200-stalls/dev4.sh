#!/bin/bash
# device call 4 (issue 23): sanitizer items and the controls planted for the
# sanitizer go in flight on a lane of their own, one a worker (this
# commit). The gates 1-4 items with those controls under --jobs 4
# --inflight 4 (call 3: 30.2 s); every item the same way with the lanes
# receipt's cost table (2026-12-03-h200-lanes: 60.0-65.9 s), and with the
# table the first run left (call 3's setting: 67.6 s).
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
runit() {
  local tag=$1; shift
  /usr/bin/time -v -o $L/$tag.time timeout 150 $K run '*' $R "$@" --no-cache --json $L/$tag.json > $L/$tag.log 2>&1
  el "$tag" $?
  grep -E "^SUMMARY|^time in items|^slowest|^workers" $L/$tag.log | sed "s/^/$tag: /" >> $L/env.txt
  echo "$tag: CPU $(grep -E 'User time|System time|Percent of CPU' $L/$tag.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
}
rm -f build/kcontract.costs.tsv
runit j4i4-nosan --exclude '*:sanitize' --jobs 4 --inflight 4
cp docs/receipts/2026-12-03-h200-lanes/costs-j4i4.tsv $L/costs-lanes.tsv
runit j4i4-lanes-costs --jobs 4 --inflight 4 --costs $L/costs-lanes.tsv
runit j4i4 --jobs 4 --inflight 4
cd $O && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs
