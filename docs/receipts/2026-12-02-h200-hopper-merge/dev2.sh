#!/bin/bash
# lead's device batch 2: the :limits items with setmaxnreg read from SASS; shards+merge of the Hopper families (logs kept)
set -u
export PATH=$PATH:/usr/local/cuda/bin
sh tools/gpu-deps.sh unpack > /dev/null 2>&1
make -j16 build/kcontract > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
set -f
mkdir -p $OUT/limits $OUT/merge
bash tools/gpu-run.sh $OUT/limits '*:limits' > /dev/null 2>&1; echo "limits rc=$?"
grep -E "setmaxnreg|SUMMARY" $OUT/limits/run.log
for f in build/fatbin/*.fatbin; do n=$(cuobjdump -sass $f 2>/dev/null | grep -c USETMAXREG); [ "$n" -gt 0 ] && echo "$f: $n USETMAXREG: $(cuobjdump -sass $f | grep -o 'USETMAXREG[.A-Z_]* [A-Z0-9]*,* *0x[0-9a-f]*' | sort | uniq -c | tr '\n' ';')"; done > $OUT/limits/usetmaxreg.txt
cat $OUT/limits/usetmaxreg.txt | head -40
P="gemm_hopper* attn_prefill_hopper* pdl* rmsnorm_cluster* quant_fp8*"
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
( time ./build/kcontract run $P $R > $OUT/merge/serial.log 2>&1 ) 2> $OUT/merge/serial.time
( time ./build/kcontract run $P $R --jobs 8 > $OUT/merge/jobs8.log 2>&1 ) 2> $OUT/merge/jobs8.time
for k in 0 1 2; do ./build/kcontract run $P $R --shard $k/3 --jobs 4 > $OUT/merge/shard$k.log 2>&1 & done; wait
./build/kcontract merge $P $R --log $OUT/merge/shard0.log --log $OUT/merge/shard1.log --log $OUT/merge/shard2.log > $OUT/merge/merge.txt 2>&1; echo "merge rc=$?"
grep -h SUMMARY $OUT/merge/serial.log $OUT/merge/jobs8.log $OUT/merge/merge.txt
cd $OUT && tar czf merge.tgz merge && rm -rf merge && tar czf limits.tgz limits && rm -rf limits
