#!/bin/bash
# sample-mem.sh OUTFILE [INTERVAL] [NAME] — samples, until killed, every
# process named NAME (default kcontract; ps -C, so at most 15 characters) for its resident memory (ps) and GPU memory (nvidia-smi compute apps),
# one line per process per sample: "t=<s> pid=<pid> ppid=<ppid> rss_kib=<n>"
# and "t=<s> gpu_pid=<pid> gpu_mib=<n> gpu=<bus id>". Used for receipts' per-process peaks.
out=${1:?usage: sample-mem.sh OUTFILE [INTERVAL] [NAME]}
iv=${2:-0.5}
name=${3:-kcontract}
: > "$out"
t0=$(date +%s.%N)
while :; do
  t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
  ps -C "$name" -o pid=,ppid=,rss= 2>/dev/null | awk -v t="$t" '{print "t=" t " pid=" $1 " ppid=" $2 " rss_kib=" $3}' >> "$out"
  nvidia-smi --query-compute-apps=pid,used_memory,gpu_bus_id --format=csv,noheader,nounits 2>/dev/null |
    awk -F', *' -v t="$t" 'NF>=2{print "t=" t " gpu_pid=" $1 " gpu_mib=" $2 " gpu=" $3}' >> "$out"
  sleep "$iv"
done
