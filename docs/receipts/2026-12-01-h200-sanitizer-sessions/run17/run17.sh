# run 17 (issue 12): the final code (commit HEAD, after the review). The suite
# without and with the :sanitize items at --jobs 8, one pair, each list with its
# own cost table (run 15's).
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt; cp .gpu-run17/costs-*.tsv $W/; cp .gpu-run17.sh $W/run17.sh
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
/usr/bin/time -f "%e s wall" -o $W/build.time make -j16 all > $W/build.log 2>&1 || { tail -30 $W/build.log; cd $OUT && tar czf run17.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; K=./build/kcontract
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
$K list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items-base.txt
$K list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt
$K list '*' $R | awk 'NF == 2 && $1 == "sanitize" { print $2 }' > $W/items-san.txt; wc -l $W/items-*.txt
run() { # name items-file costs jobs limit
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 500 > $W/$1.util 2>/dev/null & U=$!
  /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/$1.time timeout -k 5 $5 $K run $(cat $W/$2) $R --jobs $4 --costs $W/costs-$3.tsv --json $W/$1.jsonl > $W/$1.log 2>&1
  e=$?; kill $U; echo "$1 exit $e at $(el) s: $(cat $W/$1.time) util $(awk '{s+=$1;n++} END {printf "%.2f", s/n/100}' $W/$1.util)"
  grep -E '^(\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) |kcontract: (worker .*:|the))' $W/$1.log | cut -c1-300 | head -6; grep -E '^(SUMMARY|workers)' $W/$1.log | cut -c1-330; }
for i in 1; do
  [ $(el) -lt 420 ] && run base8-$i items-base.txt base 8 80
  [ $(el) -lt 450 ] && run all8-$i items-all.txt all 8 120
done
for f in all8-1; do [ -f $W/$f.log ] && grep -E '^slowest' $W/$f.log | cut -c1-400; done
cd $OUT && tar czf run17.tgz w && rm -rf w; echo "all done at $(el) s"
