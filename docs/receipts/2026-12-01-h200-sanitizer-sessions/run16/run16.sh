# run 16 (issue 12): the whole suite with the :sanitize items (both record files) on seeds 2-5,
# --jobs 8, commit 4094889, run 15's cost table: no false alarm of any gate, every control RED.
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt; cp .gpu-run16/costs-all.tsv $W/; cp .gpu-run16.sh $W/run16.sh
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
/usr/bin/time -f "%e s wall" -o $W/build.time make -j16 all > $W/build.log 2>&1 || { tail -30 $W/build.log; cd $OUT && tar czf run16.tgz w; exit 1; }
echo "build done at $(el) s"; K=./build/kcontract
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
$K list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt; wc -l $W/items-all.txt
for s in 2 3 4 5; do
  [ $(el) -lt 470 ] || break
  /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/seed$s.time timeout -k 5 120 $K run $(cat $W/items-all.txt) $R --jobs 8 --seed $s --costs $W/costs-all.tsv --json $W/seed$s.jsonl > $W/seed$s.log 2>&1
  echo "seed $s exit $? at $(el) s: $(cat $W/seed$s.time)"
  grep -E '^(\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) |kcontract: (worker .*:|the))' $W/seed$s.log | cut -c1-400 | head -8; grep -E '^(SUMMARY|workers)' $W/seed$s.log | cut -c1-330
done
cd $OUT && tar czf run16.tgz w && rm -rf w; echo "all done at $(el) s"
