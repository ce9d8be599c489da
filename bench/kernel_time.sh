#!/bin/bash
# kernel_time.sh DIR CMD [ARGS...] — run CMD with every CUDA process it starts
# traced into DIR (ktime.<pid>.tsv, one per process; bench/kernel_time_inject.c),
# then sum the traces with bench/kernel_time.py (`--name` DIR's base name).
# Needs build/libkc_kernel_time.so (make bench-kernel-time), python3 and a GPU;
# DIR is new or empty. compute-sanitizer's targets are not traced (the tool
# sets its own injection library). CMD's exit status is this script's; the
# summary follows CMD's output. Example:
#   bench/kernel_time.sh /tmp/kt ./build/kcontract run '*' --exclude '*:sanitize' --no-cache
set -u
[ $# -ge 2 ] || { echo "usage: bench/kernel_time.sh DIR CMD [ARGS...]" >&2; exit 2; }
dir=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
lib=$here/build/libkc_kernel_time.so
[ -f "$lib" ] || { echo "kernel_time.sh: $lib is missing (make bench-kernel-time)" >&2; exit 2; }
mkdir -p "$dir" || exit 2
if ls "$dir"/ktime.*.tsv >/dev/null 2>&1; then
  echo "kernel_time.sh: $dir already holds traces; give an empty folder" >&2; exit 2
fi
KC_KERNEL_TIME_DIR=$(cd "$dir" && pwd) CUDA_INJECTION64_PATH=$lib LD_PRELOAD=$lib "$@"
rc=$?
if ! ls "$dir"/ktime.*.tsv >/dev/null 2>&1; then
  echo "kernel_time.sh: no process of the command initialized CUDA with the trace library, so nothing was traced (no GPU here, or the command ran no GPU item)" >&2
  exit $(( rc ? rc : 2 ))
fi
python3 "$here/bench/kernel_time.py" "$dir" --fatbins "$here/build/fatbin" --name "$(basename "$dir")"
exit $rc
