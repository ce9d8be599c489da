# probe (issue 12): concurrency of kernels on streams of one context under racecheck.
export PATH=$PATH:/usr/local/cuda/bin; cd .gpu-run14 && nvcc -O2 -arch=sm_90 -o rc race_conc.cu || exit 1
./rc 1 256; ./rc 8 256
for K in 1 4 8; do /usr/bin/time -f "%e s wall" compute-sanitizer --tool racecheck --racecheck-report analysis ./rc $K 256 2>&1 | grep -E "K=|wall|ERROR|rror"; done
for K in 1 8; do /usr/bin/time -f "%e s wall" compute-sanitizer --tool memcheck ./rc $K 256 2>&1 | grep -E "K=|wall|ERROR"; done
