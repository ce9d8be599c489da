#!/bin/sh
# gpu-deps.sh fetch|unpack — Random123's headers for a machine without a
# package registry (the lent GPU machine), where building needs them (the
# input streams, src/core/gen_stream.h) and nothing can be installed.
#   fetch   (here, with Debian's registry) downloads librandom123-dev's .deb
#           into .deps/debs/ (ignored by git; carry .deps to the GPU machine);
#   unpack  (there) extracts it into .deps/, where the Makefile finds
#           .deps/usr/include/Random123 when /usr/include has none.
set -eu
cd "$(dirname "$0")/.."
case "${1:-}" in
fetch)
  mkdir -p .deps/debs
  (cd .deps/debs && apt-get download librandom123-dev >/dev/null)
  ls .deps/debs/librandom123-dev_*.deb ;;
unpack)
  [ -f /usr/include/Random123/philox.h ] && { echo "gpu-deps: /usr/include/Random123 present"; exit 0; }
  deb=$(ls .deps/debs/librandom123-dev_*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || { echo "gpu-deps: no .deps/debs/librandom123-dev_*.deb: run 'sh tools/gpu-deps.sh fetch' where apt works and carry .deps" >&2; exit 1; }
  dpkg -x "$deb" .deps
  [ -f .deps/usr/include/Random123/philox.h ] || { echo "gpu-deps: $deb holds no Random123/philox.h" >&2; exit 1; }
  echo "gpu-deps: Random123 headers in .deps/usr/include" ;;
*) echo "usage: sh tools/gpu-deps.sh fetch|unpack" >&2; exit 2 ;;
esac
