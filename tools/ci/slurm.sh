#!/bin/sh
# tools/ci/slurm.sh — kcontract's shards on a real Slurm: a single-node
# cluster from Debian's slurm-wlm and munge, started here and stopped by PID
# at the end, runs the fixture binary (build/kcontract-fixture, on the fake
# CUDA driver build/libfake_cuda.so) as job arrays, exactly as
# docs/multi-host.md's Slurm recipe does:
#   1. `sbatch --array=0-3 --wait` of `kcontract run PATTERNS --shard auto`,
#      the merge of the four logs: its SUMMARY equals the serial run's, exit 0;
#   2. the same with a failing item and --jobs 2 in each task: sbatch --wait
#      exits 1 (the largest task exit code), the merge exits 1 and prints the
#      failing line with its rerun command, its SUMMARY equals the serial run's;
#   3. `--array=0-2:2` (ids 0 and 2, a count of 2): each task refuses, naming
#      SLURM_ARRAY_TASK_STEP.
# Facts of this kind of machine (a container, no systemd): /run/munge made by
# hand and munged run as the munge user; ProctrackType=proctrack/linuxproc,
# TaskPlugin=task/none, no accounting; MinJobAge=5 (else `sbatch --wait`
# polls at 2, 8, 32 s).
# Needs root (it installs packages and starts daemons) and a built tree
# (make all). Measured on the 2-core development VM, from no Slurm or munge
# installed and an empty apt cache: 28 s in all (apt-get update and install
# 15 s, the cluster up 2 s, the three arrays and merges 11 s); 16 s when
# installed.
# Usage: sh tools/ci/slurm.sh        (from anywhere; exits 0 when every check holds)
set -euf   # -f: the patterns below are kcontract globs, not the shell's
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BIN=$ROOT/build/kcontract-fixture
FAKE=$ROOT/build/libfake_cuda.so
[ -x "$BIN" ] && [ -f "$FAKE" ] || { echo "slurm.sh: build first (make all): $BIN or $FAKE missing" >&2; exit 2; }
t0=$(date +%s)
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
echo "slurm.sh: packages ready in $(( $(date +%s) - t0 )) s"

W=$(mktemp -d /tmp/kc-slurm.XXXXXX)
chmod 755 "$W"
PIDS=""
stop() {
  for p in $PIDS; do kill "$p" 2>/dev/null || true; done
  for p in $PIDS; do
    i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null || true
  done
}
fail() {
  echo "slurm.sh: FAILED: $*" >&2
  for f in "$W"/slurmctld.log "$W"/slurmd.log; do [ -f "$f" ] && { echo "--- $f (tail)" >&2; tail -n 20 "$f" >&2; }; done
  exit 1
}
trap 'stop; rm -rf "$W"' EXIT INT TERM

# munge: its key comes with the package; the socket directory does not (no systemd).
[ -f /etc/munge/munge.key ] || { mungekey --create >/dev/null 2>&1 || /usr/sbin/create-munge-key -f >/dev/null; }
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge/munge.key
chmod 0755 /run/munge
mkdir "$W/munge"
chown munge:munge "$W/munge"
MSOCK=$W/munge/munge.socket
runuser -u munge -- /usr/sbin/munged -F --socket="$MSOCK" --pid-file="$W/munge/munged.pid" --log-file="$W/munge/munged.log" \
  --seed-file="$W/munge/munge.seed" 2>> "$W/munge/munged.log" &
PIDS="$PIDS $!"
i=0; while [ ! -S "$MSOCK" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$MSOCK" ] || fail "munged did not start: $(tail -n 5 "$W/munge/munged.log")"

HOST=$(hostname -s)
CPUS=$(nproc)
cat > "$W/slurm.conf" <<CONF
ClusterName=kcci
SlurmctldHost=$HOST
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$MSOCK
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MinJobAge=5
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MpiDefault=none
NodeName=$HOST CPUs=$CPUS State=UNKNOWN
PartitionName=ci Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
mkdir -p "$W/state" "$W/spool"
export SLURM_CONF="$W/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" -L "$W/slurmctld.log" &
PIDS="$PIDS $!"
slurmd -D -f "$SLURM_CONF" -L "$W/slurmd.log" &
PIDS="$PIDS $!"
i=0
until sinfo -h -o '%T' 2>/dev/null | grep -q '^idle'; do
  i=$((i + 1)); [ $i -lt 150 ] || fail "the node did not become idle in 15 s: $(sinfo 2>&1 | tr '\n' ' ')"
  sleep 0.1
done
echo "slurm.sh: cluster up in $(( $(date +%s) - t0 )) s"

PASSING="fake.axpy.f32 fake.axpy.f32:limits fake.axpy.f32:control.wrong_value fake.copy.f16 fake.copy.f16:limits fake.copy.f16:control.tail_skip fixture.pass.*"
FAILING="$PASSING fixture.fail fake.wrong.f32"
export KC_LIBCUDA="$FAKE"
# Every run here runs its items: the shards are compared with a serial run item by item,
# and with the results cache the later runs would reuse what the earlier ones earned.
export KC_CACHE_DIR=off
summary() { grep '^SUMMARY ' "$1" | sed 's/  ([0-9.]* s)$//'; }

# One array: $1 its name, $2 the --array spec, $3 extra run options, $4 the patterns.
# Sets rc to sbatch's exit status; the logs are $W/$1-<task>.log.
array() {
  set +e
  pats=$(for p in $4; do printf "'%s' " "$p"; done)
  ( cd "$W" && sbatch --array="$2" --wait --quiet --export=ALL --output="$W/$1-%a.log" \
      --wrap "'$BIN' run $pats--shard auto $3" )
  rc=$?
  set -e
}

# 1. Passing: the merged SUMMARY equals the serial one; exit 0.
set +e
"$BIN" run $PASSING > "$W/serial-pass.log" 2>&1; serial_rc=$?
set -e
[ "$serial_rc" -eq 0 ] || fail "the serial run of the passing set exited $serial_rc"
array pass 0-3 "" "$PASSING"
[ "$rc" -eq 0 ] || fail "sbatch --array=0-3 --wait exited $rc (logs: $(cat "$W"/pass-*.log | head -40))"
grep -q "^kcontract-fixture: shard 2/4 from the variables of Slurm (SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4), --shard auto" "$W/pass-2.log" ||
  fail "task 2 did not say its shard: $(head -3 "$W/pass-2.log")"
set +e
"$BIN" merge $PASSING --log "$W"/pass-0.log --log "$W"/pass-1.log --log "$W"/pass-2.log --log "$W"/pass-3.log > "$W/merge-pass.log" 2>&1
mrc=$?
set -e
[ "$mrc" -eq 0 ] || fail "merge of the passing array exited $mrc: $(cat "$W/merge-pass.log")"
[ "$(summary "$W/merge-pass.log")" = "$(summary "$W/serial-pass.log")" ] ||
  fail "merged SUMMARY differs: '$(summary "$W/merge-pass.log")' vs serial '$(summary "$W/serial-pass.log")'"
echo "slurm.sh: 4-task array merged into the serial SUMMARY: $(summary "$W/merge-pass.log")"

# 2. A failing item, --jobs 2 in each task: sbatch --wait and the merge exit 1.
set +e
"$BIN" run $FAILING > "$W/serial-fail.log" 2>&1; serial_rc=$?
set -e
[ "$serial_rc" -eq 1 ] || fail "the serial run of the failing set exited $serial_rc, expected 1"
array fail 0-3 "--jobs 2" "$FAILING"
[ "$rc" -eq 1 ] || fail "sbatch --wait of a failing array exited $rc, expected 1"
set +e
"$BIN" merge $FAILING --log "$W"/fail-0.log --log "$W"/fail-1.log --log "$W"/fail-2.log --log "$W"/fail-3.log > "$W/merge-fail.log" 2>&1
mrc=$?
set -e
[ "$mrc" -eq 1 ] || fail "merge of the failing array exited $mrc, expected 1: $(cat "$W/merge-fail.log")"
[ "$(summary "$W/merge-fail.log")" = "$(summary "$W/serial-fail.log")" ] ||
  fail "merged SUMMARY differs: '$(summary "$W/merge-fail.log")' vs serial '$(summary "$W/serial-fail.log")'"
grep -q "^FAIL   fixture.fail .*rerun: .*run fixture.fail --seed 1" "$W/merge-fail.log" ||
  fail "the merge did not print the failing line with its rerun command: $(cat "$W/merge-fail.log")"
echo "slurm.sh: failing array: sbatch --wait 1, merge 1, SUMMARY as serial: $(summary "$W/merge-fail.log")"

# 3. An array not numbered 0..N-1 is refused by every task.
array step 0-2:2 "" "fixture.pass.*"
[ "$rc" -eq 2 ] || fail "--array=0-2:2 exited $rc, expected 2 (refused)"
grep -q "SLURM_ARRAY_TASK_STEP=2: a shard array's task ids must be 0..1" "$W/step-2.log" ||
  fail "task 2 of --array=0-2:2 did not name SLURM_ARRAY_TASK_STEP: $(cat "$W/step-2.log")"
echo "slurm.sh: --array=0-2:2 refused: $(head -1 "$W/step-2.log")"
echo "slurm.sh: ok in $(( $(date +%s) - t0 )) s"
