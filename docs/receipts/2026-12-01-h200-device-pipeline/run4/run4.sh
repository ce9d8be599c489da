# run 4 (issue 11 and 12 receipt): build, GPU suites, the benchmark (serial and --jobs 8,
# every item but the :sanitize ones), the :sanitize items (--jobs 16), seeds 2-5.
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
(time make -j16 all > $W/build.log 2>&1) 2> $W/build.time || { tail -30 $W/build.log; cd $OUT && tar czf run4.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; ./build/kcontract info > $W/info.txt 2>&1
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
./build/kcontract list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items.txt; wc -l < $W/items.txt
./build/kcontract run 'gpu.*' > $W/gpu-suites.log 2>&1; grep -E '^(PASS|FAIL)' $W/gpu-suites.log
NS=8 sh bench/gpu_suite.sh $W/bench $(cat $W/items.txt) $R > $W/bench.err 2>&1; tail -4 $W/bench.err | cut -c1-300; echo "bench done at $(el) s"
for f in serial jobs-8; do grep -E '^(\[w[0-9]+\] )?(FAIL|MISSED|CRASH|TIMEOUT|SKIP) ' $W/bench/$f.log | cut -c1-300 | head -12; done
timeout -k 5 150 ./build/kcontract run '*:sanitize' --jobs 16 --json $W/san.jsonl > $W/san.log 2>&1; echo "sanitize exit $? at $(el) s"; pkill -f compute-sanitizer
grep -E '^\[w[0-9]+\] (FAIL|CRASH|TIMEOUT|SKIP) ' $W/san.log | cut -c1-400 | head -12; grep -E '^(SUMMARY|workers)' $W/san.log
for s in 2 3 4 5; do [ $(el) -gt 440 ] && { echo "seed $s skipped at $(el) s"; continue; }
  timeout -k 5 80 ./build/kcontract run $(cat $W/items.txt) $R --jobs 8 --seed $s --json $W/s$s.jsonl > $W/s$s.log 2>&1; echo "seed $s exit $? at $(el) s"
  grep -E '^\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT) ' $W/s$s.log | cut -c1-300 | head -8; grep '^SUMMARY' $W/s$s.log; done
cd $OUT && tar czf run4.tgz w && rm -rf w; echo "all done at $(el) s"
