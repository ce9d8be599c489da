#!/bin/sh
# install-deps.sh — installs what building and testing kcontract needs from
# Debian's packages: gcc, make, Random123 (librandom123-dev: the Philox
# generator of the input streams, headers for C and CUDA), Criterion (host
# tests) and procps (ps and pgrep, for the benchmark scripts, whose runs the
# tests also make). nvcc and the CUDA headers come with the CUDA toolkit
# (expected under /usr/local/cuda). A machine without a package registry
# (the GPU machine) gets Random123 from tools/gpu-deps.sh instead.
set -eu
need=""
command -v gcc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
dpkg -s libcriterion-dev >/dev/null 2>&1 || need="$need libcriterion-dev"
[ -f /usr/include/Random123/philox.h ] || need="$need librandom123-dev"
command -v pgrep >/dev/null 2>&1 || need="$need procps"
if [ -n "$need" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: nvcc not found on PATH or in /usr/local/cuda/bin: install the CUDA toolkit 13.0" >&2
  exit 1
fi
