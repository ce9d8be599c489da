#!/bin/bash
# vouch_rerun_probe.sh — what a run does on a real GPU when the worker whose
# compute-sanitizer sessions gave a clean :sanitize verdict is killed under a
# later item before its end line vouched for them (src/run/queue_vouch.c).
# The fake driver's tests cover the path (tests/test_sanitize_session_faults.c:
# a_worker_that_ends_under_an_item_runs_its_clean_sanitizer_verdicts_again);
# this runs it with real sessions. The later item hangs (KC_FAULT_HANG_ITEM,
# src/run/item_run.h) until --timeout 10 kills its worker. Expected, serially
# and with --jobs 1: that item TIMEOUT; the line "... ended under an item
# before it said its compute-sanitizer sessions vouch ..."; the held verdict
# run again alone, its PASS line printed once; exit 1 (the TIMEOUT alone).
#
#   bash tools/probes/vouch_rerun_probe.sh [KCONTRACT [SANITIZE_ITEM HANG_ITEM]]
#
# Defaults: build/kcontract, rmsnorm.bf16:sanitize, rmsnorm.f16 (a GPU and
# compute-sanitizer needed; with the fixture binary and the fake driver it
# runs anywhere: KC_LIBCUDA=build/libfake_cuda.so
# KC_COMPUTE_SANITIZER=tests/fake/compute-sanitizer bash $0
# build/kcontract-fixture fakesan.copy.f16:sanitize fixture.pass.00). Each
# mode's output goes to ${PROBE_DIR:-/tmp}/vouch-MODE.log, and one line:
#   PROBE mode=serial exit=1 timeout=1 sent_back=1 pass_lines=1 ok=yes
set -u
K=${1:-build/kcontract}
SAN=${2:-rmsnorm.bf16:sanitize}
HANG=${3:-rmsnorm.f16}
D=${PROBE_DIR:-/tmp}
bad=0
for mode in serial jobs1; do
    args=()
    [ "$mode" = jobs1 ] && args=(--jobs 1)
    log="$D/vouch-$mode.log" costs="$D/vouch-costs.tsv"
    # a cost table of its own: the :sanitize item first (longest first), whatever an earlier run left
    printf '# kcontract costs v1\n# item\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tfailed\n%s\t3\t-1\t-1\t0\n%s\t1\t-1\t-1\t0\n' \
        "$SAN" "$HANG" > "$costs"
    KC_CACHE_DIR=off KC_FAULT_HANG_ITEM="$HANG" "$K" run "$SAN" "$HANG" --timeout 10 --no-cache --costs "$costs" \
        "${args[@]}" > "$log" 2>&1
    rc=$?
    timeout=$(grep -c -E "^(\[w[0-9]+\] )?TIMEOUT +$HANG " "$log")
    sent=$(grep -c "before it said its compute-sanitizer sessions vouch" "$log")
    pass=$(grep -c -E "^(\[w[0-9]+\] )?PASS +$SAN " "$log")
    ok=no
    [ "$rc" = 1 ] && [ "$timeout" = 1 ] && [ "$sent" = 1 ] && [ "$pass" = 1 ] && ok=yes
    [ $ok = yes ] || bad=1
    echo "PROBE mode=$mode exit=$rc timeout=$timeout sent_back=$sent pass_lines=$pass ok=$ok"
done
exit $bad
