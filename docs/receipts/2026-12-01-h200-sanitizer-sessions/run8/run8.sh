# run 8 (issue 12): the sanitizer sessions: the gate-5 controls and a few items serially, then the
# suite with and without the :sanitize items, --jobs 8, each with the cost table of run 7.
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; echo "$1" > $W/commit.txt; cp .gpu-run8/costs-*.tsv $W/
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
(time make -j16 all > $W/build.log 2>&1) 2> $W/build.time || { tail -30 $W/build.log; cd $OUT && tar czf run8.tgz w; exit 1; }
echo "build done at $(el) s"; nvidia-smi > $W/nvidia-smi.txt 2>&1; K=./build/kcontract
timeout -k 5 120 $K run 'residual_add.*:control.masked_tail_read_oob' 'scan.incl.*:control.smem_reuse_race' 'axpy.*:sanitize' 'scan.incl.*:sanitize' 'attn_prefill.d128.f16:sanitize' 'cublas_gemm.f16:sanitize' > $W/serial.log 2>&1
echo "serial exit $? at $(el) s"; grep -E '^(PASS|FAIL|RED|MISSED|CRASH|TIMEOUT|SKIP|LEAK|kcontract:) ' $W/serial.log | cut -c1-330; grep '^SUMMARY' $W/serial.log
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
$K list '*' $R | awk 'NF == 2 && $1 != "sanitize" { print $2 }' > $W/items-base.txt
$K list '*' $R | awk 'NF == 2 { print $2 }' > $W/items-all.txt; wc -l $W/items-*.txt
run() { # name items-file costs
  /usr/bin/time -f "%e s wall %U user %S sys %M KiB maxrss" -o $W/$1.time timeout -k 5 200 $K run $(cat $W/$2) $R --jobs 8 --costs $W/costs-$3.tsv --json $W/$1.jsonl > $W/$1.log 2>&1
  echo "$1 exit $? at $(el) s: $(cat $W/$1.time)"; grep -E '^(\[w[0-9]+\] (FAIL|MISSED|CRASH|TIMEOUT|SKIP|LEAK) |kcontract: (worker|the))' $W/$1.log | cut -c1-300 | head -8; grep -E '^(SUMMARY)' $W/$1.log | cut -c1-400; }
run base items-base.txt base; run all items-all.txt all
[ $(el) -lt 330 ] && run all2 items-all.txt all
grep -E ':control\.(masked_tail_read_oob|smem_reuse_race)' $W/all.log | cut -c1-200
cd $OUT && tar czf run8.tgz w && rm -rf w; echo "all done at $(el) s"
