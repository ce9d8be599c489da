# run 13 (issue 12): where the "all" run's extra time goes. Temporary knobs (not committed):
# KC_X_HOLDERS caps the workers holding sessions, KC_X_RACE_WORKERS racecheck's threads.
# base, all, the :sanitize items alone, and all under each knob; every run from run 11's cost tables.
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt; cp .gpu-run13.sh $W/run13.sh
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
/usr/bin/time -f "%e s wall" -o $W/build.time make -j16 all > $W/build.log 2>&1 || { tail -30 $W/build.log; cd $OUT && tar czf run13.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; K=./build/kcontract
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
$K list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items-base.txt
$K list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt
$K list '*' $R | awk 'NF == 2 && $1 == "sanitize" { print $2 }' > $W/items-san.txt; wc -l $W/items-*.txt
run() { # name items-file costs jobs limit [env...]
  n=$1 i=$2 c=$3 j=$4 l=$5; shift 5; cp .gpu-run13/costs-$c.tsv $W/costs-$n.tsv
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 500 > $W/$n.util 2>/dev/null & U=$!
  env "$@" /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/$n.time timeout -k 5 $l $K run $(cat $W/$i) $R --jobs $j --costs $W/costs-$n.tsv --json $W/$n.jsonl > $W/$n.log 2>&1
  e=$?; kill $U; echo "$n exit $e at $(el) s: $(cat $W/$n.time) util $(awk '{s+=$1;n++} END {printf "%.2f", s/n/100}' $W/$n.util)"
  grep -E '^(\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) |kcontract: (worker .*:|the))' $W/$n.log | cut -c1-300 | head -6; grep -E '^(SUMMARY|workers)' $W/$n.log | cut -c1-330; }
run base items-base.txt base 8 80 X=1
run all items-all.txt all 8 120 X=1
run san items-san.txt all 8 120 X=1
[ $(el) -lt 380 ] && run all-h2 items-all.txt all 8 120 KC_X_HOLDERS=2
[ $(el) -lt 430 ] && run all-rw4 items-all.txt all 8 120 KC_X_RACE_WORKERS=4
[ $(el) -lt 480 ] && run san-h2 items-san.txt all 8 120 KC_X_HOLDERS=2
for f in all san all-h2; do [ -f $W/$f.log ] && grep -E '^slowest' $W/$f.log | cut -c1-400; done
cd $OUT && tar czf run13.tgz w && rm -rf w; echo "all done at $(el) s"
