#!/bin/bash
# lead's device batch 3: the whole suite on the session's merged main (--jobs 8, both record files)
set -u
export PATH=$PATH:/usr/local/cuda/bin
sh tools/gpu-deps.sh unpack > /dev/null 2>&1
set -f
mkdir -p $OUT/suite
KC_CACHE_DIR=off bash tools/gpu-run.sh $OUT/suite '*' --records records/llama3-8b.txt --records records/mixtral-8x7b.txt --jobs 8 > /dev/null 2>&1; echo "suite rc=$?"
grep -E "^SUMMARY|^TALLY" $OUT/suite/run.log | cut -c1-400
grep -E "^(\[w[0-9]+\] )?(FAIL|MISSED|LIMIT|CRASH|TIMEOUT|LEAK|NOTRUN) " $OUT/suite/run.log | cut -c1-300 | head -20
grep -E "Elapsed|Maximum resident" $OUT/suite/time.txt; grep "^build" $OUT/suite/env.txt
grep -E "rmsnorm.f32( |:)" $OUT/suite/run.log | cut -c1-250 | head -12
cd $OUT && gzip suite/run.log && tar czf suite.tgz suite && rm -rf suite
