#!/bin/sh
# install-deps.sh [test] — installs from Debian's packages what building the
# suite needs: gcc, make, patch (GNU patch, for patch controls), libssl3 (libcrypto, dlopened: sha256.h) and Random123 (librandom123-dev: the Philox
# generator of the input streams, headers for C and CUDA); with `test`, also
# what the tests need: Criterion, procps (ps and pgrep, for the benchmark
# scripts, whose runs the tests also make), and clang with its runtime
# libraries (libclang-rt-N-dev: libFuzzer and the sanitizers) for the fuzz
# targets (tools/fuzz.sh), and cmake and pkg-config, with which CI builds
# examples/external/ against an installed kcontract (tools/external-example.sh). nvcc and the CUDA headers come with the CUDA
# toolkit (expected under /usr/local/cuda).
# On a machine without a package registry (the lent GPU machine), Random123
# comes from a .deb carried in .deps/debs (tools/gpu-deps.sh fetch, run where
# apt works), unpacked into .deps/ where the Makefile finds it.
set -eu
cd "$(dirname "$0")/.."
need=""
command -v gcc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v patch >/dev/null 2>&1 || need="$need patch"   # patch controls (kcontract_patch.sh)
# libcrypto (OpenSSL), loaded at run time: the sha256 that checks a library
# kernel's .so.source (src/util/sha256.h); without it the build identity
# counts library kernels by their bytes
ls /usr/lib/*/libcrypto.so.3 /lib/*/libcrypto.so.3 >/dev/null 2>&1 || need="$need libssl3"
if [ ! -f /usr/include/Random123/philox.h ] && [ ! -f .deps/usr/include/Random123/philox.h ]; then
  if ls .deps/debs/librandom123-dev_*.deb >/dev/null 2>&1; then sh tools/gpu-deps.sh unpack
  else need="$need librandom123-dev"; fi
fi
testing=""
case "${1:-}" in
test) testing=1 ;;
"") ;;
*) echo "usage: sh tools/install-deps.sh [test]" >&2; exit 2 ;;
esac
if [ -n "$testing" ]; then
  dpkg -s libcriterion-dev >/dev/null 2>&1 || need="$need libcriterion-dev"
  command -v pgrep >/dev/null 2>&1 || need="$need procps"
  command -v clang >/dev/null 2>&1 || need="$need clang"
  command -v cmake >/dev/null 2>&1 || need="$need cmake"
  command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
updated=""
install() {
  [ -n "$updated" ] || $SUDO apt-get update -qq
  updated=1
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
[ -n "$need" ] && echo "install-deps: installing$need from Debian's packages"
if [ -n "$need" ] && ! install $need; then
  echo "install-deps: could not install$need from Debian's packages (no registry? Random123 can be carried: tools/gpu-deps.sh)" >&2
  exit 1
fi
# libFuzzer comes with clang's runtime libraries, packaged per clang version.
if [ -n "$testing" ] && [ ! -f "$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]; then
  major=$(clang -dumpversion | cut -d. -f1)
  echo "install-deps: installing libclang-rt-$major-dev from Debian's packages (libFuzzer)"
  install "libclang-rt-$major-dev"
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: nvcc not found on PATH or in /usr/local/cuda/bin: install the CUDA toolkit 13.0" >&2
  exit 1
fi
