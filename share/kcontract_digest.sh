#!/bin/sh
# kcontract_digest.sh FILE — prints the 16 hex digits of what FILE was built
# from, for the build identity (build_id.h). FILE is a kernel image
# (<module>[@<control>].fatbin; the image registers the digest:
# kcontract_embed.c's KC_EMBED_SOURCE) or a library kernel's shared object
# (lib<name>[@<control>].so; the digest goes beside it, FILE.source, which
# the run reads without loading the library). The digest is sha256 over
# FILE's name less .fatbin or .so (<module>[@<control>]) and the sha256 of
# each file of its dependency file FILE.d (nvcc -MD, or gcc -MD: the first
# rule's prerequisites, in that file's order; -MP's empty rules after it are
# not read); a FILE without one (a fake image) is its own source. The
# image's bytes cannot serve: nvcc -lineinfo writes the absolute source path
# into them, so two checkouts of one commit would differ. Used by
# kcontract.mk (and kcontractConfig.cmake) for each embedded image and each
# library kernel.
set -eu
f=$1
{
  n=${f##*/}; n=${n%.fatbin}; n=${n%.so}
  printf '%s\n' "$n"
  if [ -f "$f.d" ]; then
    awk '{ if (sub(/\\$/, "")) { printf "%s ", $0; next } print; exit }' "$f.d" | sed -e 's/^[^:]*:\([ \t]\|$\)//' |
      tr -s ' \t' '\n\n' | sed '/^$/d' | tr '\n' '\0' | xargs -0 -r sha256sum | cut -c1-64
  else
    cat "$f"
  fi
} | sha256sum | cut -c1-16
