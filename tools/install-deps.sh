#!/bin/sh
# install-deps.sh — installs what building and testing kcontract needs from
# Debian's packages: gcc, make, Criterion (host tests), procps (ps and
# pgrep, for the benchmark scripts, whose runs the tests also make), and
# clang with its runtime libraries (libclang-rt-N-dev: libFuzzer and the
# sanitizers) for the fuzz targets (tools/fuzz.sh). nvcc and the CUDA
# headers come with the CUDA toolkit (expected under /usr/local/cuda).
set -eu
need=""
command -v gcc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
dpkg -s libcriterion-dev >/dev/null 2>&1 || need="$need libcriterion-dev"
command -v pgrep >/dev/null 2>&1 || need="$need procps"
command -v clang >/dev/null 2>&1 || need="$need clang"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
updated=""
install() {
  [ -n "$updated" ] || $SUDO apt-get update -qq
  updated=1
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
[ -z "$need" ] || install $need
# libFuzzer comes with clang's runtime libraries, packaged per clang version.
if [ ! -f "$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]; then
  major=$(clang -dumpversion | cut -d. -f1)
  install "libclang-rt-$major-dev"
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: nvcc not found on PATH or in /usr/local/cuda/bin: install the CUDA toolkit 13.0" >&2
  exit 1
fi
