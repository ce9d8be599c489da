# run 7 (issue 12): why racecheck missed smem_reuse_race with the kernel filter (variants), then
# the suite with and without the :sanitize items, --jobs 8, twice each.
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
(time make -j16 all > $W/build.log 2>&1) 2> $W/build.time || { tail -30 $W/build.log; cd $OUT && tar czf run7.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; nproc > $W/nproc.txt
CS=/usr/local/cuda/bin/compute-sanitizer; K=./build/kcontract; C=scan.incl.f32:control.smem_reuse_race
v() { n=$1; shift; $CS --tool racecheck --error-exitcode 86 --print-limit 10 --target-processes application-only --report-api-errors no --racecheck-report analysis "$@" $K run $C --sanitize-target > $W/race-$n.out 2>&1; echo "variant $n rc=$? ($*): $(grep -c 'Race reported' $W/race-$n.out) races; $(grep -E 'SUMMARY' $W/race-$n.out | tr '\n' ' ')"; }
v plain; v filter --kernel-name kne=scan_incl_f32; v filter-count --kernel-name kne=scan_incl_f32 --launch-count 7
v count --launch-count 7; v workers --racecheck-num-workers 2; v regex --kernel-name regex=scan_incl_f32
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
$K list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items-base.txt
$K list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt; wc -l $W/items-*.txt
run() { # name items-file costs
  /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/$1.time timeout -k 5 200 $K run $(cat $W/$2) $R --jobs 8 --costs $W/costs-$3.tsv --json $W/$1.jsonl > $W/$1.log 2>&1
  echo "$1 exit $? at $(el) s: $(cat $W/$1.time)"; grep -E '^\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) ' $W/$1.log | cut -c1-300 | head -8; grep -E '^(SUMMARY)' $W/$1.log | cut -c1-400; }
run base1 items-base.txt base; run base2 items-base.txt base
run all1 items-all.txt all; run all2 items-all.txt all
grep -E ':control\.(masked_tail_read_oob|smem_reuse_race)' $W/all2.log | cut -c1-260
cd $OUT && tar czf run7.tgz w && rm -rf w; echo "all done at $(el) s"
