#!/bin/bash
# device call 2 (issue 23): where the serial run's host references and the
# remaining generators spend their time, per case: profile.patch (applied
# here only, never committed) prints one PROF line per host reference
# (bytes in and out; preparing = allocation and download of its inputs, the
# reference itself, the upload of its float64 outputs) and per host-made
# input (generation with the stream's download, the upload).
patch -p1 < docs/receipts/2026-12-04-h200-generators/profile.patch > /tmp/patch.log 2>&1 || cat /tmp/patch.log
. tools/gpu-env.sh
echo "perf: $(command -v perf || echo none)" >> $L/env.txt
KC_PROFILE=1 /usr/bin/time -v -o $L/serial-prof.time timeout 150 $K run '*' $R --exclude '*:sanitize' --no-cache --json $L/serial-prof.json > $L/serial-prof.log 2>&1
el "serial gates 1-4 profiled"
grep -E "^SUMMARY|^time in items" $L/serial-prof.log | sed "s/^/serial-prof: /" >> $L/env.txt
grep -c "^PROF" $L/serial-prof.log >> $L/env.txt
gpu_env_pack
