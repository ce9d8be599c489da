#!/bin/bash
# lead's device batch 1: SASS of setmaxnreg; shards+merge of the Hopper families; gemm_hopper controls under --jobs 8
set -u
export PATH=$PATH:/usr/local/cuda/bin
sh tools/gpu-deps.sh unpack > $OUT/deps.log 2>&1
t0=$(date +%s.%N)
make -j16 build/kcontract > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build $(echo "$(date +%s.%N) - $t0" | bc) s"
for f in attn_prefill_hopper gemm_hopper rmsnorm_cluster; do
  cuobjdump -sass build/fatbin/$f.fatbin > $OUT/sass-$f.txt 2>&1
  echo "== $f"; grep -n -A1 "SETMAXREG" $OUT/sass-$f.txt | head -12
  cuobjdump -elf build/fatbin/$f.fatbin 2>/dev/null | grep -i -B1 -A3 "EIATTR_.*\(MAXREG\|REG\|SETMAX\)" | head -30
done
P="gemm_hopper* attn_prefill_hopper* pdl* rmsnorm_cluster* quant_fp8*"
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
set -f
mkdir -p $OUT/merge
( time ./build/kcontract run $P $R > $OUT/merge/serial.log 2>&1 ) 2>&1 | grep real
for k in 0 1 2; do ./build/kcontract run $P $R --shard $k/3 --jobs 4 > $OUT/merge/shard$k.log 2>&1 & done; wait
./build/kcontract merge $P $R --log $OUT/merge/shard0.log --log $OUT/merge/shard1.log --log $OUT/merge/shard2.log > $OUT/merge/merge.txt 2>&1; echo "merge rc=$?"
grep SUMMARY $OUT/merge/serial.log $OUT/merge/merge.txt
for i in 1 2 3; do ./build/kcontract run 'gemm_hopper*' --jobs 8 > $OUT/merge/gemm-j8-$i.log 2>&1; grep -E "TIMEOUT|SUMMARY" $OUT/merge/gemm-j8-$i.log; done
cd $OUT && tar czf sass.tgz sass-*.txt && rm sass-*.txt
