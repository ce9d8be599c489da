# run 6 (issue 12): the suite with and without the sanitizer gate's items, --jobs 8, twice each
# (the second with the cost table the first wrote).
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
(time make -j16 all > $W/build.log 2>&1) 2> $W/build.time || { tail -30 $W/build.log; cd $OUT && tar czf run6.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; nproc > $W/nproc.txt
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
./build/kcontract list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items-base.txt
./build/kcontract list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt; wc -l $W/items-*.txt
run() { # name items-file
  /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/$1.time timeout -k 5 280 ./build/kcontract run $(cat $W/$2) $R --jobs 8 --costs $W/costs-$3.tsv --json $W/$1.jsonl > $W/$1.log 2>&1
  echo "$1 exit $? at $(el) s: $(cat $W/$1.time)"; grep -E '^\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) ' $W/$1.log | cut -c1-400 | head -10; grep -E '^(SUMMARY|TALLY)' $W/$1.log | cut -c1-600; }
run base1 items-base.txt base; run base2 items-base.txt base
run all1 items-all.txt all; run all2 items-all.txt all
grep -h ':sanitize' $W/all2.log | grep -o '\[memcheck[^]]*\]' | sort | uniq -c | sort -rn | head -5
grep -E ':control\.(masked_tail_read_oob|smem_reuse_race)' $W/all2.log | cut -c1-300
cd $OUT && tar czf run6.tgz w && rm -rf w; echo "all done at $(el) s"
