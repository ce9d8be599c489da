# run 9 (issue 12): sessions started early (--sanitize-warm), ended together, first-window
# errors decide, racecheck on every CPU. Two gate-5 controls serially, then the suite with and
# without the :sanitize items at --jobs 8 (all twice) and --jobs 16, each with run 8's cost tables.
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt; cp .gpu-run8/costs-*.tsv $W/; cp .gpu-run9.sh $W/run9.sh
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
/usr/bin/time -f "%e s wall" -o $W/build.time make -j16 all > $W/build.log 2>&1 || { tail -30 $W/build.log; cd $OUT && tar czf run9.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; K=./build/kcontract
/usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/serial.time timeout -k 5 120 $K run 'residual_add.f16:control.masked_tail_read_oob' 'scan.incl.f32:control.smem_reuse_race' 'axpy.f32:sanitize' > $W/serial.log 2>&1
echo "serial exit $? at $(el) s: $(cat $W/serial.time)"; grep -E '^(PASS|FAIL|RED|MISSED|CRASH|TIMEOUT|SKIP|LEAK|kcontract:) ' $W/serial.log | cut -c1-260; grep '^SUMMARY' $W/serial.log
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
$K list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items-base.txt
$K list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt; wc -l $W/items-*.txt
run() { # name items-file costs jobs limit
  /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/$1.time timeout -k 5 $5 $K run $(cat $W/$2) $R --jobs $4 --costs $W/costs-$3.tsv --json $W/$1.jsonl > $W/$1.log 2>&1
  echo "$1 exit $? at $(el) s: $(cat $W/$1.time)"; grep -E '^(\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) |kcontract: (worker .*:|the))' $W/$1.log | cut -c1-300 | head -6; grep -E '^(SUMMARY|workers)' $W/$1.log | cut -c1-330; }
run base8 items-base.txt base 8 100; run all8 items-all.txt all 8 180
[ $(el) -lt 330 ] && run all8b items-all.txt all 8 150
[ $(el) -lt 420 ] && run base16 items-base.txt base 16 80
[ $(el) -lt 470 ] && run all16 items-all.txt all 16 110
for f in all8 all16; do [ -f $W/$f.log ] && grep -E '^slowest' $W/$f.log | cut -c1-400; done
cd $OUT && tar czf run9.tgz w && rm -rf w; echo "all done at $(el) s"
