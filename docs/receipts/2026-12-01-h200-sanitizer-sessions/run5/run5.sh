# run 5 (probe, issue 12): where a :sanitize item's time goes, unloaded.
set -o pipefail; export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W; git log --oneline -1 > $W/commit.txt 2>&1
sh tools/gpu-deps.sh unpack > $W/deps.log 2>&1
(time make -j16 all > $W/build.log 2>&1) 2> $W/build.time || { tail -30 $W/build.log; cd $OUT && tar czf run5.tgz w; exit 1; }
echo "build done at $(el) s"
CS=$(command -v compute-sanitizer); echo "cs=$CS"; $CS --version > $W/cs-version.txt 2>&1; $CS --help > $W/cs-help.txt 2>&1
for t in memcheck racecheck initcheck synccheck; do $CS --tool $t --help > $W/cs-help-$t.txt 2>&1; done
K=./build/kcontract
tm() { /usr/bin/time -f "%e s wall %U user %S sys %M KiB" "$@"; }
for it in axpy.f32:sanitize attn_prefill.d128.f16:sanitize residual_add.f16:control.masked_tail_read_oob; do
  echo "== $it"
  tm $K run $it --sanitize-target > $W/plain-$it.out 2>&1; tail -1 $W/plain-$it.out | cut -c1-200
  for t in memcheck racecheck initcheck synccheck; do
    X=""; [ $t = memcheck ] && X="--leak-check no"; [ $t = racecheck ] && X="--racecheck-report analysis"
    echo "-- $t"; tm $CS --tool $t --error-exitcode 86 --print-limit 10 --launch-timeout 60 --target-processes application-only --report-api-errors no $X $K run $it --sanitize-target > $W/$t-$it.out 2>&1; echo "rc=$?"; tail -1 $W/$t-$it.out
  done
done
echo "== noop target (cuInit + context, no launches)"; tm $CS --tool memcheck $K run 'gpu.harness.streams' > $W/memcheck-streams.out 2>&1; tail -2 $W/memcheck-streams.out
tm $K run 'gpu.harness.streams' > /dev/null 2>&1
echo "== kcontract run axpy.f32:sanitize (the item, 4 tools, unloaded)"; tm $K run axpy.f32:sanitize 2>&1 | tail -2
echo "all done at $(el) s"; cd $OUT && tar czf run5.tgz w && rm -rf w
