#!/bin/sh
# tools/ci/bazel.sh — kcontract's shards on a real Bazel: Debian's
# bazel-bootstrap (4.2.3), offline, with local stand-ins for the repositories
# it fetches by default (rules_cc, rules_java, remote_coverage_tools:
# tools/ci/bazel/stub). The workspace tools/ci/bazel (copied to a temporary
# directory) has two sharded sh_tests of the fixture binary on the fake CUDA
# driver, as docs/multi-host.md's Bazel recipe: kc_pass (shard_count 4) and
# kc_fail (shard_count 3, with a failing item). kcontract takes its shard
# from Bazel's variables with no flag and touches TEST_SHARD_STATUS_FILE.
# Checked: `bazel test` exits 3 (kc_fail failed); `kcontract merge --log
# bazel-testlogs/kc_pass` gives the serial run's SUMMARY and exit 0, the same
# for kc_fail gives its serial SUMMARY, exit 1 and the failing line.
# Bazel runs in --batch mode (no server left behind) with its output root in
# the temporary directory, removed at the end.
# Needs root for the install and a built tree (make all). Measured on the
# 2-core development VM, from no bazel-bootstrap and an empty apt cache (a
# Java runtime was already installed): 48 s in all (apt-get update and
# install 33 s, bazel test of both targets 14 s, the merges 1 s); 34 s when
# installed (bazel test 26 to 34 s then: its first start extracts its install
# base).
# Usage: sh tools/ci/bazel.sh
set -euf
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BIN=$ROOT/build/kcontract-fixture
FAKE=$ROOT/build/libfake_cuda.so
[ -x "$BIN" ] && [ -f "$FAKE" ] || { echo "bazel.sh: build first (make all): $BIN or $FAKE missing" >&2; exit 2; }
t0=$(date +%s)
if ! command -v bazel >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bazel-bootstrap >/dev/null
fi
echo "bazel.sh: bazel ready in $(( $(date +%s) - t0 )) s"
W=$(mktemp -d /tmp/kc-bazel.XXXXXX)
trap 'chmod -R u+w "$W" 2>/dev/null; rm -rf "$W"' EXIT INT TERM
fail() { echo "bazel.sh: FAILED: $*" >&2; exit 1; }
cp -r tools/ci/bazel "$W/ws"
PASSING="fake.axpy.f32 fake.axpy.f32:limits fake.axpy.f32:control.wrong_value fake.copy.f16 fake.copy.f16:limits fake.copy.f16:control.tail_skip fixture.pass.*"
summary() { grep '^SUMMARY ' "$1" | sed 's/  ([0-9.]* s)$//'; }
set +e
( cd "$W/ws" && bazel --output_user_root="$W/root" --batch test //:kc_pass //:kc_fail \
    --spawn_strategy=local --test_output=errors \
    --test_env=KC_BIN="$BIN" --test_env=KC_LIBCUDA="$FAKE" --test_env=KC_PATTERNS="$PASSING" \
    --test_env=KC_CACHE_DIR=off ) > "$W/bazel.out" 2>&1
brc=$?
set -e
[ "$brc" -eq 3 ] || { tail -n 30 "$W/bazel.out" >&2; fail "bazel test exited $brc, expected 3 (kc_fail fails)"; }
echo "bazel.sh: bazel test ran both targets in $(( $(date +%s) - t0 )) s (exit 3: kc_fail failed, as planted)"
TL=$W/ws/bazel-testlogs
[ -f "$TL/kc_pass/shard_3_of_4/test.log" ] || fail "no $TL/kc_pass/shard_3_of_4/test.log: $(ls -R "$TL" 2>&1 | head)"
grep -q "^kcontract-fixture: shard 2/4 from the variables of Bazel and GoogleTest (TEST_SHARD_INDEX=2 TEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=2 GTEST_TOTAL_SHARDS=4); no --shard was given" \
  "$TL/kc_pass/shard_3_of_4/test.log" || fail "shard 3 of 4 did not say where its shard came from: $(sed -n 1,6p "$TL/kc_pass/shard_3_of_4/test.log")"
export KC_LIBCUDA="$FAKE"
# Every run here runs its items (the results cache would let the serial runs below reuse
# what the shards earned, and the SUMMARY lines then differ by their "; N cached").
export KC_CACHE_DIR=off
check() {   # $1 target, $2 expected exit, $3... the patterns
  t=$1; want=$2; shift 2
  set +e
  "$BIN" run "$@" > "$W/serial-$t.log" 2>&1; src=$?
  "$BIN" merge "$@" --log "$TL/$t" > "$W/merge-$t.log" 2>&1; mrc=$?
  set -e
  [ "$src" -eq "$want" ] || fail "the serial run for $t exited $src, expected $want"
  [ "$mrc" -eq "$want" ] || fail "merge of bazel-testlogs/$t exited $mrc, expected $want: $(cat "$W/merge-$t.log")"
  [ "$(summary "$W/merge-$t.log")" = "$(summary "$W/serial-$t.log")" ] ||
    fail "$t: merged SUMMARY '$(summary "$W/merge-$t.log")' differs from the serial '$(summary "$W/serial-$t.log")'"
  echo "bazel.sh: $t merged from bazel-testlogs, exit $mrc: $(summary "$W/merge-$t.log")"
}
check kc_pass 0 $PASSING
check kc_fail 1 $PASSING fixture.fail
grep -q "^FAIL   fixture.fail .*rerun: " "$W/merge-kc_fail.log" || fail "the merge did not print the failing line: $(cat "$W/merge-kc_fail.log")"
echo "bazel.sh: ok in $(( $(date +%s) - t0 )) s"
