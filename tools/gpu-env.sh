#!/bin/bash
# gpu-env.sh — the preamble a receipt's device script sources (docs/receipts/
# */devN.sh), run from the tree copied to the lent GPU machine:
#   O, L      $OUT and its logs/ folder (what comes back is logs.tgz, env.txt);
#   el WHAT   appends "WHAT: rc=$? at N s" to $L/env.txt (call it right after
#             the command it reports);
#   env.txt   the date, CPUs, the host's name, the GPU (its UUID: which
#             machine served the call) and driver, the commit the copy is of
#             (COMMIT, written before the call: untracked, never committed)
#             and compute-sanitizer's version;
#   the build Random123 unpacked (gpu-deps.sh) and build/kcontract made, K its path;
#   R         the two launch-record files every suite run is given;
#   gpu_summ NAME appends run NAME's SUMMARY, workers, phases, slowest items
#             and time limits ($L/NAME.log) and its CPU, wall and peak RSS
#             ($L/NAME.time, from /usr/bin/time -v) to env.txt;
#   gpu_run NAME LIMIT CMD...  runs CMD under /usr/bin/time -v and timeout
#             LIMIT (seconds), its output in $L/NAME.log, then el and gpu_summ;
#   gpu_before    builds the tree compared against (before.tar, from `git
#             archive REV`, gzipped or not, written before the call: untracked,
#             never committed; gzipped when the tree and it pass the 64 MiB a
#             call carries) in /tmp/before, records REV in env.txt and sets KB
#             to its kcontract;
#   gpu_suite NAME LIMIT BIN [ARGS...]  the receipts' whole-suite run: every
#             item with R, --jobs 4 --inflight 4, a fresh copy of the reference
#             cost table ($L/costs-NAME.tsv, from KC_GPU_COSTS), --no-cache and
#             --json $L/NAME.json, under gpu_run;
#   gpu_smi NAME / gpu_smi_end NAME  samples the GPU's utilization and memory
#             every 200 ms into $L/NAME.smi from one to the other, then appends
#             the mean and its GPU-seconds (the utilization summed x 0.2 s) to env.txt,
#             and where the run left $L/NAME.json its timeline (bench/run_timeline.py);
#   gpu_lines LOG...  appends, for each log, its state lines per item (an
#             item on other than exactly one is named) and the count of lines a
#             healthy run never has to env.txt;
#   gpu_env_pack  packs $L into $O/logs.tgz, keeping env.txt beside it.
# Every run is uncached (KC_CACHE_DIR=off).
O=${OUT:-/tmp/out}; L=$O/logs; mkdir -p "$L"
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin" KC_CACHE_DIR=off
el() { echo "$1: rc=$? at $(( $(date +%s) - T0 )) s" >> "$L/env.txt"; }
{ echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; echo "host: $(hostname)"
  nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total --format=csv
  echo "commit: $(cat COMMIT 2>/dev/null || echo 'unknown: no COMMIT file')"; compute-sanitizer --version | tail -1; } > "$L/env.txt" 2>&1
sh tools/gpu-deps.sh unpack > "$L/build.log" 2>&1
make -j16 build/kcontract >> "$L/build.log" 2>&1; gpu_env_rc=$?
[ $gpu_env_rc = 0 ] || tail -n 40 "$L/build.log"
(exit $gpu_env_rc); el build
K=$PWD/build/kcontract
R="--records records/llama3-8b.txt --records records/mixtral-8x7b.txt"
gpu_summ() { grep -E "^SUMMARY|^workers|^time in items|^slowest|time limit" "$L/$1.log" | sed "s/^/$1: /" >> "$L/env.txt"
             echo "$1: CPU $(grep -E 'User time|System time|Maximum resident|Elapsed' "$L/$1.time" | awk -F': ' '{printf "%s ", $2}')" >> "$L/env.txt"; }
gpu_run() { local n=$1 lim=$2; shift 2
            /usr/bin/time -v -o "$L/$n.time" timeout "$lim" "$@" > "$L/$n.log" 2>&1; el "$n"; gpu_summ "$n"; }
gpu_before() { echo "before: $(zcat -f before.tar | git get-tar-commit-id 2>/dev/null || echo 'unknown: no before.tar commit id')" >> "$L/env.txt"
               rm -rf /tmp/before && mkdir -p /tmp/before && tar xf before.tar -C /tmp/before && cp -r .deps /tmp/before/ &&
               (cd /tmp/before && make -j16 build/kcontract > "$L/build-before.log" 2>&1); el "build before"
               KB=/tmp/before/build/kcontract; }
KC_GPU_COSTS=${KC_GPU_COSTS:-docs/receipts/2026-12-04-h200-stalls/costs-call6.tsv}
gpu_suite() { local n=$1 lim=$2 bin=$3; shift 3
              cp "$KC_GPU_COSTS" "$L/costs-$n.tsv"
              gpu_run "$n" "$lim" "$bin" run '*' $R --jobs 4 --inflight 4 --costs "$L/costs-$n.tsv" --no-cache \
                      --json "$L/$n.json" "$@"; }
gpu_smi() { nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 \
                > "$L/$1.smi" 2>&1 & GPU_SMI=$!; }
gpu_smi_end() { [ -n "${GPU_SMI:-}" ] || { echo "$1: gpu_smi_end without gpu_smi" >> "$L/env.txt"; return 1; }
                kill "$GPU_SMI"; wait "$GPU_SMI" 2>/dev/null; GPU_SMI=
                awk -F', ' -v n="$1" '$2 ~ /^[0-9]+$/ { s += $2; c++ } END { printf "%s: GPU utilization mean %.1f%% over %d samples of 200 ms (%.1f GPU-s)\n", n, c ? s / c : 0, c, s / 100 * 0.2 }' \
                    "$L/$1.smi" >> "$L/env.txt"
                [ ! -f "$L/$1.json" ] || python3 bench/run_timeline.py "$L/$1.json" "$L/$1.smi" --name "$1" >> "$L/env.txt" 2>&1; }
gpu_env_pack() { (cd "$O" && tar czf logs.tgz logs && cp logs/env.txt env.txt && rm -rf logs); }
gpu_lines() { local f n
    for f in "$@"; do
        awk '{ l = $0; sub(/^\[w[0-9]+\] /, "", l) }
             l ~ /^(PASS|FAIL|RED|MISSED|KNOWN|LIMIT|LEAK|CRASH|TIMEOUT|SKIP|NOTRUN) / { split(l, a, " "); n[a[2]]++; s[a[1]]++; t++ }
             END { bad = 0; for (k in n) if (n[k] != 1) { bad++; print "  more than one line: " k " (" n[k] ")" }
                   printf "state lines in %s: %d for %d items, %d items not on exactly one;", FILENAME, t, length(n), bad
                   for (k in s) printf " %s %d", k, s[k]; printf "\n" }' "$f" >> "$L/env.txt"
        n=$(grep -c -E "without its end line|did not end within|protocol violated|not trusted|on its own|each passed its run alone|does not work" "$f")
        echo "new lines in $(basename "$f"): $n" >> "$L/env.txt"
    done; }
