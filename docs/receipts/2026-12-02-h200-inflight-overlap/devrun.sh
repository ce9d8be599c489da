#!/bin/sh
# one device call: build the bench, run it, and (if nsys is here) a profile's API summary
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv,noheader; nproc; echo "commit e7c211a"; echo "nsys: $(which nsys || echo absent)"; } > $O/env.txt 2>&1
t0=$(date +%s)
sh tools/gpu-deps.sh unpack > $O/build.log 2>&1 && make -j16 build/kc_inflight_bench >> $O/build.log 2>&1 || { echo BUILD FAILED; tail -30 $O/build.log; exit 1; }
echo "build_s=$(( $(date +%s) - t0 ))" >> $O/env.txt
/usr/bin/time -v timeout 200 ./build/kc_inflight_bench --k 16,8,16m,16a,16am > $O/bench.log 2> $O/bench.err
echo "bench rc=$?" >> $O/env.txt
grep -v "^  slowest" $O/bench.log
if command -v nsys >/dev/null; then
  timeout 110 nsys profile -t cuda,osrt -o $O/k16 --force-overwrite true ./build/kc_inflight_bench --k 16 > $O/nsys_bench.log 2>&1
  timeout 60 nsys stats -r cuda_api_sum,osrt_sum -f csv -o $O/k16 $O/k16.nsys-rep > /dev/null 2>&1
  rm -f $O/k16.sqlite; ls -la $O; head -25 $O/k16_cuda_api_sum.csv 2>/dev/null
fi
cd $O && tar czf logs.tgz *.log *.err *.txt *.csv 2>/dev/null; ls
