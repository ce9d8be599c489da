#!/bin/bash
# device call 1 (issue 23): where a serial run's system time goes. Every
# receipt's serial run of the gates 1-4 items spends 29-38 s of its 38-44 s
# wall in the kernel (/usr/bin/time -v: "System time") with 3.6 M minor page
# faults (13.6 GiB of fresh 4 KiB pages); a --jobs run's processes 58-77 s.
# Here: the serial run as it is; the same under strace -f -c -w (every
# system call's count and wall time, what a thread waits in the kernel too;
# Debian 12's strace and libunwind8 unpacked from .deps/debs, put there by
# `apt-get download strace libunwind8` on a machine with Debian's registry); the same with glibc's malloc keeping what
# is freed (GLIBC_TUNABLES: mmap threshold at its 32 MiB maximum, trim
# threshold 16 GiB) to see how many faults are the host heap's; the gates
# 1-4 items on one worker with 16 in flight (one context, no time slices).
. tools/gpu-env.sh
mkdir -p /tmp/st && for f in .deps/debs/strace_*.deb .deps/debs/libunwind8_*.deb; do dpkg -x "$f" /tmp/st; done
ST="env LD_LIBRARY_PATH=/tmp/st/usr/lib/x86_64-linux-gnu /tmp/st/usr/bin/strace"
SER=(run '*' $R --exclude '*:sanitize' --no-cache)
gpu_run serial 100 $K "${SER[@]}" --json $L/serial.json
gpu_run serial-heap 100 env GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=17179869184 \
  $K "${SER[@]}" --json $L/serial-heap.json
gpu_run serial-strace 300 $ST -f -c -w -S time -o $L/strace-serial.txt $K "${SER[@]}" --json $L/serial-strace.json
gpu_run j1i16 100 $K "${SER[@]}" --jobs 1 --inflight 16 --json $L/j1i16.json
head -n 30 $L/strace-serial.txt | sed 's/^/strace: /' >> $L/env.txt
for n in serial serial-heap serial-strace j1i16; do
  echo "$n: $(grep -E 'Minor|Voluntary|Involuntary' $L/$n.time | awk -F': ' '{printf "%s ", $2}')" >> $L/env.txt
done
gpu_env_pack
