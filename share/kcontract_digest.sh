#!/bin/sh
# kcontract_digest.sh FILE — prints the 16 hex digits of what FILE was built
# from, for the build identity (build_id.h). FILE is a kernel image
# (<module>[@<control>].fatbin; the image registers the digest:
# kcontract_embed.c's KC_EMBED_SOURCE) or a library kernel's shared object
# (lib<name>[@<control>].so; the digest goes beside it, FILE.source, which
# the run reads without loading the library).
# kcontract_digest.sh --record FILE.so — prints the line of FILE.so.source:
# the digest, one space, the sha256 of FILE.so's bytes as it is now (64
# lowercase hex digits, sha256sum's), a newline. The run trusts the digest
# only for a .so whose bytes still hash so (src/core/hostlib_path.h): a .so
# replaced since (cp -p, rsync -a, tar x: its old time kept) counts by its
# own bytes. Run it after the .so is built, in the same rule.
# The digest is sha256 over
# FILE's name less .fatbin or .so (<module>[@<control>]) and the sha256 of
# each file of its dependency file FILE.d (nvcc -MD, or gcc -MD: the first
# rule's prerequisites, in that file's order; -MP's empty rules after it are
# not read); a FILE without one (a fake image) is its own source. The
# image's bytes cannot serve: nvcc -lineinfo writes the absolute source path
# into them, so two checkouts of one commit would differ. Used by
# kcontract.mk (and kcontractConfig.cmake) for each embedded image and each
# library kernel.
set -eu
if [ "$1" = --record ]; then
  d=$(sh "$0" "$2")
  b=$(sha256sum < "$2" | cut -c1-64)
  [ ${#d} = 16 ] && [ ${#b} = 64 ] || { echo "kcontract_digest.sh: cannot record $2 (digest '$d', sha256 '$b')" >&2; exit 1; }
  printf '%s %s\n' "$d" "$b"
  exit 0
fi
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
