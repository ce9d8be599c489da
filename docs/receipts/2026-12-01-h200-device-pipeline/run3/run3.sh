set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; sh tools/gpu-deps.sh unpack >/dev/null 2>&1
(time make -j16 build/kcontract > $OUT/build.log 2>&1) 2> $OUT/build.time || { tail -30 $OUT/build.log; exit 1; }
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"; W=$OUT/w; mkdir -p $W
./build/kcontract run 'gpu.*' > $W/gpu-suites.log 2>&1; grep -E '^(PASS|FAIL)' $W/gpu-suites.log
./build/kcontract run '*' $R --jobs 8 --reference both --json $W/both.jsonl > $W/both.log 2>&1; echo "both exit $?"
grep -E '^\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT)' $W/both.log | cut -c1-400 | head -30; grep -E '^SUMMARY' $W/both.log
NS="8 16" MPS=1 sh bench/gpu_suite.sh $W/bench > $W/bench.err 2>&1; tail -12 $W/bench.err
for s in 3 4 5; do ./build/kcontract run '*' $R --jobs 8 --seed $s --json $W/s$s.jsonl > $W/s$s.log 2>&1; echo "seed $s exit $?"; grep -E '^\[w[0-9]+\] (FAIL|MISSED|CRASH)' $W/s$s.log | cut -c1-300 | head -10; grep '^SUMMARY' $W/s$s.log; done
cd $OUT && tar czf run3.tgz w && rm -rf w
