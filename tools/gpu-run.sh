#!/bin/bash
# gpu-run.sh OUTDIR [kcontract args...] — on a GPU machine: record the
# environment, build build/kcontract, and run it under /usr/bin/time -v,
# writing env.txt, build.log, run.log and time.txt into OUTDIR. Used for the
# receipts in docs/receipts/ (the device machine has no Criterion, so only the
# kcontract binary is built there).
set -u
out=${1:?usage: gpu-run.sh OUTDIR [args...]}; shift
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(uname -srm)"
  echo "cpus: $(nproc)"
  grep -E 'MemTotal|MemAvailable' /proc/meminfo
  nvcc --version | tail -n 2
  gcc --version | head -n 1
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv
} > "$out/env.txt" 2>&1
start=$(date +%s.%N)
if [ -n "${KC_PREBUILT:-}" ] && [ -x build/kcontract ]; then
  echo "prebuilt build/kcontract (KC_PREBUILT set), not rebuilt" > "$out/build.log"
else
  make -j"$(nproc)" build/kcontract > "$out/build.log" 2>&1 || { tail -n 40 "$out/build.log"; exit 1; }
fi
echo "build: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s" >> "$out/env.txt"
./build/kcontract info >> "$out/env.txt" 2>&1
bash tools/sample-mem.sh "$out/mem.txt" 0.5 &
sampler=$!
/usr/bin/time -v -o "$out/time.txt" ./build/kcontract run "$@" > "$out/run.log" 2>&1
rc=$?
kill "$sampler" 2>/dev/null
# Per-process peaks from the samples: host RSS (MiB) and GPU memory (MiB).
awk '{for(i=1;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]}
      if(v["pid"]!=""&&v["rss_kib"]!=""){if(v["rss_kib"]>r[v["pid"]])r[v["pid"]]=v["rss_kib"]}
      if(v["gpu_pid"]!=""){if(v["gpu_mib"]+0>g[v["gpu_pid"]])g[v["gpu_pid"]]=v["gpu_mib"]+0}
      delete v}
     END{for(p in r)printf "pid %s peak_rss_mib %.0f peak_gpu_mib %s\n",p,r[p]/1024,(p in g)?g[p]:"-"}' "$out/mem.txt" > "$out/peaks.txt"
cat "$out/peaks.txt"
echo "exit status: $rc" >> "$out/time.txt"
grep -E '^(FAIL|MISSED|LIMIT|KNOWN)|^    ' "$out/run.log" | head -n 60
tail -n 2 "$out/run.log"
grep -E 'Elapsed|Maximum resident' "$out/time.txt"
echo "exit status: $rc"
