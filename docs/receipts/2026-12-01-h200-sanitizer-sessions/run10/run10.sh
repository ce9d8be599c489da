# run 10 (issue 12): sanitizer items to the workers holding sessions (queue affinity), sessions ended together, first-window
# errors decide, racecheck on every CPU. The suite with and
# without the :sanitize items at --jobs 8, twice each, with run 8's cost tables.
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt; cp .gpu-run8/costs-*.tsv $W/; cp .gpu-run10.sh $W/run10.sh
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
/usr/bin/time -f "%e s wall" -o $W/build.time make -j16 all > $W/build.log 2>&1 || { tail -30 $W/build.log; cd $OUT && tar czf run10.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; K=./build/kcontract
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
$K list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items-base.txt
$K list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt; wc -l $W/items-*.txt
run() { # name items-file costs jobs limit
  /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/$1.time timeout -k 5 $5 $K run $(cat $W/$2) $R --jobs $4 --costs $W/costs-$3.tsv --json $W/$1.jsonl > $W/$1.log 2>&1
  echo "$1 exit $? at $(el) s: $(cat $W/$1.time)"; grep -E '^(\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) |kcontract: (worker .*:|the))' $W/$1.log | cut -c1-300 | head -6; grep -E '^(SUMMARY|workers)' $W/$1.log | cut -c1-330; }
run base8 items-base.txt base 8 100; run all8 items-all.txt all 8 150
[ $(el) -lt 330 ] && run all8b items-all.txt all 8 130
[ $(el) -lt 420 ] && run base8b items-base.txt base 8 90
for f in all8 all8b; do [ -f $W/$f.log ] && grep -E '^slowest' $W/$f.log | cut -c1-400; done
cd $OUT && tar czf run10.tgz w && rm -rf w; echo "all done at $(el) s"
