# run 11 (issue 12): run 10's code plus gate-5 controls first on the session holders. The suite
# without and with the :sanitize items at --jobs 8, three times each, alternating, each list with
# its own cost table (run 10's to start with).
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt; cp .gpu-run10/costs-*.tsv $W/; cp .gpu-run11.sh $W/run11.sh
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
/usr/bin/time -f "%e s wall" -o $W/build.time make -j16 all > $W/build.log 2>&1 || { tail -30 $W/build.log; cd $OUT && tar czf run11.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; K=./build/kcontract
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
$K list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items-base.txt
$K list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt; wc -l $W/items-*.txt
run() { # name items-file costs jobs limit
  /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/$1.time timeout -k 5 $5 $K run $(cat $W/$2) $R --jobs $4 --costs $W/costs-$3.tsv --json $W/$1.jsonl > $W/$1.log 2>&1
  echo "$1 exit $? at $(el) s: $(cat $W/$1.time)"; grep -E '^(\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) |kcontract: (worker .*:|the))' $W/$1.log | cut -c1-300 | head -6; grep -E '^(SUMMARY|workers)' $W/$1.log | cut -c1-330; }
for i in 1 2 3; do
  [ $(el) -lt 420 ] && run base8-$i items-base.txt base 8 80
  [ $(el) -lt 450 ] && run all8-$i items-all.txt all 8 120
done
for f in all8-1 all8-2 all8-3; do [ -f $W/$f.log ] && grep -E '^slowest' $W/$f.log | cut -c1-400; done
cd $OUT && tar czf run11.tgz w && rm -rf w; echo "all done at $(el) s"
