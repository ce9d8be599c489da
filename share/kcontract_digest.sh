#!/bin/sh
# kcontract_digest.sh FATBIN — prints the 16 hex digits of what FATBIN was
# built from, for the build identity (build_id.h; the image registers it:
# kcontract_embed.c's KC_EMBED_SOURCE): sha256 over its name
# (<module>[@<control>]) and the sha256 of each file of its dependency file
# FATBIN.d (nvcc -MD), in that file's order; an image without one (a fake
# image) is its own source. The image's bytes cannot serve: nvcc -lineinfo
# writes the absolute source path into them, so two checkouts of one commit
# would differ. Used by kcontract.mk for each embedded image.
set -eu
f=$1
{
  basename "$f" .fatbin
  if [ -f "$f.d" ]; then
    sed -e '1s/^[^ ]* :\( \|$\)//' -e 's/\\$//' "$f.d" | tr -s ' \t' '\n\n' | sed '/^$/d' | tr '\n' '\0' |
      xargs -0 -r sha256sum | cut -c1-64
  else
    cat "$f"
  fi
} | sha256sum | cut -c1-16
