#!/bin/sh
# kcontract_patch.sh PATCH BASE WORK SRC [-- COMMAND...] — a patch control:
# the control image built from a copy of the source with PATCH applied, for
# kernels one may not edit (no KC_CONTROL_ switch can go into their file).
# Used by kcontract.mk (KC_PATCHES_<module>) and kcontractConfig.cmake
# (PATCHES_<module>); docs/own-kernels.md, "Kernels you may not edit".
#
#   PATCH    a unified diff whose paths have one leading folder to strip
#            (git diff's a/ and b/; diff -ru a b), relative to BASE
#   BASE     the folder the patch's paths start from (the project's)
#   WORK     made afresh: WORK/tree/<path> holds a copy of each file the
#            patch names, patched; WORK/<name of SRC> a copy of SRC when the
#            patch leaves it alone
#   SRC      the module's source, as COMMAND names it
#   COMMAND  the compiler's command line (nvcc ... SRC): run with each
#            argument equal to SRC replaced by its copy, and, right after
#            the compiler, -I for each patched file's folder in WORK/tree,
#            then SRC's own folder and each patched file's original folder
#            (so that the copies find the files the patch left alone). Its
#            dependency file (-MF FILE) names the originals again, and PATCH.
#
# The patch is applied with GNU patch -p1 --fuzz=0 (context must match
# exactly; offsets are fine) after a dry run; one that does not apply is an
# error naming the patch, the file and each failed hunk (exit 1), nothing
# built. Without COMMAND it only checks and applies (the fake driver's images
# of kcontract's tests).
set -eu
say() { IFS=' '; echo "kcontract_patch: $*" >&2; }
[ $# -ge 4 ] || { say "usage: kcontract_patch.sh PATCH BASE WORK SRC [-- COMMAND...]"; exit 2; }
patch_file=$1 base=$2 work=$3 src=$4
shift 4
if [ $# -gt 0 ]; then
  [ "$1" = "--" ] || { say "expected -- before the command, got '$1'"; exit 2; }
  shift
fi
command -v patch >/dev/null 2>&1 ||
  { say "control patch $patch_file: no 'patch' program (GNU patch: apt-get install patch)"; exit 1; }
[ -f "$patch_file" ] || { say "control patch $patch_file: no such file"; exit 1; }
[ -d "$base" ] || { say "control patch $patch_file: the base folder $base does not exist"; exit 1; }
[ -f "$src" ] || { say "control patch $patch_file: the module source $src does not exist"; exit 1; }
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }
patch_abs=$(abs "$patch_file")
base_abs=$(cd "$base" && pwd -P)
src_abs=$(abs "$src")

# The files the patch changes: each "+++ " header's path less its first
# folder, with "--- /dev/null" before it for a file the patch creates.
files=$(awk '
  /^--- / { created = ($2 == "/dev/null") }
  /^\+\+\+ / {
    p = $0; sub(/^\+\+\+ /, "", p); sub(/\t.*$/, "", p)
    if (p == "/dev/null") next
    if (index(p, "/") == 0) { print "!" p; next }
    sub(/^[^\/]*\//, "", p)
    print (created ? "+" : "=") p
  }' "$patch_abs")
[ -n "$files" ] || { say "control patch $patch_file: no '+++ ' file header: not a unified diff"; exit 1; }

rm -rf "$work"
mkdir -p "$work/tree"
work_abs=$(cd "$work" && pwd -P)
compiled=""
incs=""
oldifs=$IFS
IFS='
'
for f in $files; do
  path=${f#?}
  case $f in
    !*) say "control patch $patch_file: file header '$path' has no leading folder to strip" \
            "(expected a/ and b/ paths, as git diff and diff -ru a b write)"; exit 1 ;;
    =*) [ -f "$base_abs/$path" ] ||
          { say "control patch $patch_file: changes $path, which is not in $base_abs"; exit 1; }
        mkdir -p "$work_abs/tree/$(dirname "$path")"
        cp "$base_abs/$path" "$work_abs/tree/$path"
        [ "$(abs "$base_abs/$path")" != "$src_abs" ] || compiled="$work_abs/tree/$path" ;;
    +*) mkdir -p "$work_abs/tree/$(dirname "$path")" ;;
  esac
  incs="$incs$work_abs/tree/$(dirname "$path")
"
done
IFS=$oldifs

# A dry run first: nothing changes when a hunk fails, and each failure is
# named with its file.
unset POSIXLY_CORRECT || true
opts="-p1 --force --fuzz=0 --no-backup-if-mismatch"
# shellcheck disable=SC2086
if ! out=$(cd "$work_abs/tree" && LC_ALL=C patch --dry-run $opts -i "$patch_abs" 2>&1); then
  failed=$(printf '%s\n' "$out" | awk '
    /^checking file / { f = $0; sub(/^checking file /, "", f) }
    /^Hunk #[0-9]+ FAILED/ { h = $0; sub(/\.$/, "", h); print "  " f ": " h }')
  if [ -n "$failed" ]; then
    say "control patch $patch_file does not apply (patch -p1 --fuzz=0 in $base_abs):"
    printf '%s\n' "$failed" >&2
  else
    say "control patch $patch_file does not apply (patch -p1 --fuzz=0 in $base_abs):"
    printf '%s\n' "$out" | sed 's/^/  /' >&2
  fi
  exit 1
fi
# shellcheck disable=SC2086
(cd "$work_abs/tree" && LC_ALL=C patch --quiet $opts -i "$patch_abs") >&2

if [ -z "$compiled" ]; then
  compiled="$work_abs/$(basename "$src")"
  cp "$src" "$compiled"
fi
[ $# -gt 0 ] || exit 0

# The command: -I flags after the compiler, SRC replaced by its copy.
cc=$1
shift
n=$#
depfile=""
prev=""
for a in "$@"; do
  [ "$prev" != "-MF" ] || depfile=$a
  prev=$a
  if [ "$a" = "$src" ]; then set -- "$@" "$compiled"; else set -- "$@" "$a"; fi
done
shift "$n"
for d in $(printf '%s' "$incs" | awk '!seen[$0]++'); do set -- "-I$d" "$@"; done
set -- "$@" "-I$(dirname "$src_abs")"
for f in $files; do set -- "$@" "-I$base_abs/$(dirname "${f#?}")"; done
"$cc" "$@"
if [ -n "$depfile" ] && [ -f "$depfile" ]; then
  # The originals (and the patch) are what the image depends on; the copies
  # are remade from them.
  sed -e "s#$work_abs/tree/#$base_abs/#g" -e "s#$compiled#$src_abs#g" -e '$ s/$/ \\/' "$depfile" > "$depfile.tmp"
  printf ' %s\n' "$patch_abs" >> "$depfile.tmp"
  mv "$depfile.tmp" "$depfile"
fi
