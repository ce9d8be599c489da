#!/bin/sh
# external-example.sh — issue 15's outside user, in CI: install kcontract
# into a temporary prefix (and once more through DESTDIR), link a reference
# that calls libm with pkg-config's flags alone, copy examples/external/ out
# of the tree, and build it against the prefix twice:
#   1. CMake (find_package(kcontract), kcontract_add_suite), kernels by nvcc;
#   2. make with pkg-config and the installed kcontract.mk, with the fake
#      driver's images (KC_FAKE_IMAGES=1: no nvcc for the modules).
# In the CMake build a kernel's edit must change the suite's build id (each
# image's source digest, as the make rules give it) and not its host code
# digest (the images linker script); docs/own-kernels.md's CMake and make
# recipes, as written, build with nvcc and pass the same check, and make
# without kcontract.pc prints what the doc says.
# Each nvcc build's build id must change with a kernel's source
# (kcontract_digest.sh's digest of each image, KC_EMBED_SOURCE).
# Each suite binary must list its items (each module kernel, its limits, its
# two controls, its sanitizer item; the library kernel, its two controls and
# sanitizer item; the library's .so files must exist, each with its source
# digest and its sha256 beside it, which the build id follows, and not for a
# .so copied over with its time kept) and pass through the
# fake driver (build/libfake_cuda.so): the CMake build's real images (the
# installed library's harness image and the example's clean modules, which
# the fake driver recognizes by symbol) for ex.scale.f32,
# ex.vendor_softmax.f32 and their limits; the make build's for the controls
# too, which must be RED. ex.vendor_softmax.f32 is issue 25's kernel one may
# not edit: third_party/fastsoftmax/fastsoftmax.cu (C++ linkage, a template,
# a main()) included unchanged by a wrapper module that needs its own nvcc
# flags, named by its mangled symbol, with controls that are macros over CUDA
# builtins and one the harness plants (KC_HARNESS_BLOCK_SHORT: no source
# change, no image of its own); its images are also built with nvcc through
# the make rules.
# Before the examples: per-module nvcc flags of both builds (dry runs), a
# missing KERNELS file refused by CMake by name, and
# -ffp-contract=off in pkg-config's Cflags (gcc must not fuse a*b+c).
# Last, a suite of broken contracts must name all their problems, exit 2.
# The library kernel is built but not run here: it calls the CUDA runtime,
# which needs a real driver; nor are the :sanitize items (compute-sanitizer). Needs `make all` first (the fake driver).
#
#   sh tools/external-example.sh        (KEEP=1: leave its temporary directory)
set -eu
cd "$(dirname "$0")/.."
root=$PWD
fake=$root/build/libfake_cuda.so
[ -f "$fake" ] || { echo "external-example: $fake missing: run 'make all' first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'if [ -n "${KEEP:-}" ]; then echo "external-example: kept $tmp"; else rm -rf "$tmp"; fi' EXIT
fail() { echo "external-example: $*" >&2; exit 1; }

make -s lib
make -s install PREFIX="$tmp/prefix" >/dev/null
make -s install PREFIX=/opt/kcontract DESTDIR="$tmp/stage" >/dev/null
for f in lib/libkcontract.a lib/libkcontract_main.a lib/libkcontract.so lib/pkgconfig/kcontract.pc \
         lib/cmake/kcontract/kcontractConfig.cmake lib/cmake/kcontract/kcontract_embed_source.cmake include/kcontract.h \
         share/kcontract/kcontract.mk share/kcontract/kcontract_patch.sh share/kcontract/kcontract_digest.sh; do
  [ -e "$tmp/prefix/$f" ] || fail "make install PREFIX=$tmp/prefix did not install $f"
  [ -e "$tmp/stage/opt/kcontract/$f" ] || fail "make install DESTDIR=$tmp/stage did not install opt/kcontract/$f"
done
grep -q '^prefix=/opt/kcontract$' "$tmp/stage/opt/kcontract/lib/pkgconfig/kcontract.pc" ||
  fail "kcontract.pc under DESTDIR does not say prefix=/opt/kcontract"
if ls "$tmp/prefix/include" | grep -qv '^kcontract'; then
  fail "install put a private header in include/: $(ls "$tmp/prefix/include" | tr '\n' ' ')"
fi
soname=$(objdump -p "$tmp/prefix/lib/libkcontract.so" | awk '/SONAME/ { print $2 }')
case "$soname" in libkcontract.so.[0-9]*) ;; *) fail "libkcontract.so has soname '$soname', expected libkcontract.so.N" ;; esac
# A reference that calls libm links with pkg-config's flags alone (-lm is in
# Libs, not only Libs.private: the linker refuses exp from a libm it was not
# given, "DSO missing from command line").
mkdir -p "$tmp/libm"
cat > "$tmp/libm/ref.c" <<'C'
#include <math.h>
#include "kcontract.h"
void softmax_ref(const kc_ref *r);
void softmax_ref(const kc_ref *r) { r->out[0][0] = exp(kc_ref_in(r, 1, 0)); }
C
# shellcheck disable=SC2046
cc -c -o "$tmp/libm/ref.o" $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags kcontract) "$tmp/libm/ref.c"
# shellcheck disable=SC2046
cc -o "$tmp/libm/suite" "$tmp/libm/ref.o" $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --libs kcontract) \
  > "$tmp/libm/link.log" 2>&1 || { cat "$tmp/libm/link.log"; fail "a reference calling exp does not link with 'pkg-config --libs kcontract'"; }
# pkg-config's Cflags keep a reference's a*b+c two roundings, as on the device
# (-fmad=false): gcc fuses it where the target has FMA (aarch64, e.g. GH200
# hosts; x86-64 with -mfma) unless -ffp-contract=off.
printf 'double muladd(double a, double b, double c) { return a * b + c; }\n' > "$tmp/libm/muladd.c"
case $(uname -m) in
  x86_64) fma_flag=-mfma fma_insn=vfmadd ;;
  aarch64) fma_flag='' fma_insn=fmadd ;;
  *) fma_flag='' fma_insn='' ;;
esac
if [ -n "$fma_insn" ]; then
  # shellcheck disable=SC2086
  cc -O2 $fma_flag -S -o "$tmp/libm/fused.s" "$tmp/libm/muladd.c"
  # shellcheck disable=SC2046,SC2086
  cc -O2 $fma_flag $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags kcontract) -S \
     -o "$tmp/libm/unfused.s" "$tmp/libm/muladd.c"
  grep -q "$fma_insn" "$tmp/libm/fused.s" || fail "cc -O2 $fma_flag does not fuse a*b+c here: the check below would prove nothing"
  if grep -q "$fma_insn" "$tmp/libm/unfused.s"; then
    fail "with 'pkg-config --cflags kcontract' ($(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags kcontract)) cc still fuses a*b+c into $fma_insn"
  fi
fi
# Per-module nvcc flags, dry runs (no nvcc): CMake's NVCC_FLAGS_<module> and
# kcontract.mk's KC_NVFLAGS_<module> reach that module's commands (clean and
# control), after the suite's flags, and no other module's; CMake refuses
# one naming no module. CUDA_ARCH_<module> / KC_CUDA_ARCH_<module> replace
# that module's -gencode flags (sm_90a alone) and leave the others' default.
mkdir -p "$tmp/flags"
printf 'extern "C" __global__ void k(int *p)\n{\n#if defined(KC_CONTROL_c)\n    *p = 1;\n#endif\n}\n' > "$tmp/flags/a.cu"
cp "$tmp/flags/a.cu" "$tmp/flags/b.cu"
printf '#include "kcontract.h"\n' > "$tmp/flags/contracts.c"
cat > "$tmp/flags/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(flags C)
find_package(kcontract 7 REQUIRED)
kcontract_add_suite(s CONTRACTS contracts.c KERNELS a.cu b.cu NVCC_FLAGS -DKC_EX_ALL NVCC_FLAGS_a -DKC_EX_A -Ivendor/a
                    CUDA_ARCH_a -gencode=arch=compute_90a,code=sm_90a ${EXTRA})
CMAKE
cat > "$tmp/flags/Makefile" <<'MAKE'
include $(shell pkg-config --variable=makefile kcontract)
KC_NVFLAGS += -DKC_EX_ALL
$(eval $(call kc_suite,build,a.cu b.cu))
KC_NVFLAGS_a = -DKC_EX_A -Ivendor/a
KC_CUDA_ARCH_a = -gencode=arch=compute_90a,code=sm_90a
all: $(KC_FATBINS)
MAKE
cmake -S "$tmp/flags" -B "$tmp/flags/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/flags/cmake.log" 2>&1 ||
  { cat "$tmp/flags/cmake.log"; fail "per-module flags: cmake configure failed"; }
cmake --build "$tmp/flags/cmake" -- -n > "$tmp/flags/cmake.n" 2>&1 || { cat "$tmp/flags/cmake.n"; fail "per-module flags: cmake --build -- -n failed"; }
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" make -C "$tmp/flags" -n all > "$tmp/flags/make.n" 2>&1 ||
  { cat "$tmp/flags/make.n"; fail "per-module flags: make -n failed"; }
for how in cmake make; do
  grep -- '-fatbin .*/a\(@c\)\{0,1\}\.fatbin ' "$tmp/flags/$how.n" | sort -u > "$tmp/flags/$how.a" || true
  grep -- '-fatbin .*/b\(@c\)\{0,1\}\.fatbin ' "$tmp/flags/$how.n" | sort -u > "$tmp/flags/$how.b" || true
  [ "$(grep -c -- '-DKC_EX_ALL .*-DKC_EX_A -Ivendor/a' "$tmp/flags/$how.a")" -eq 2 ] ||
    { cat "$tmp/flags/$how.n"; fail "per-module flags ($how): module a's two nvcc commands (clean, control c) lack -DKC_EX_A -Ivendor/a after the suite's -DKC_EX_ALL"; }
  if [ "$(grep -c -- '-DKC_EX_ALL' "$tmp/flags/$how.b")" -ne 2 ] || grep -q -- '-DKC_EX_A ' "$tmp/flags/$how.b"; then
    cat "$tmp/flags/$how.n"
    fail "per-module flags ($how): module b's two nvcc commands should have the suite's flags and not module a's"
  fi
  if [ "$(grep -c -- 'arch=compute_90a,code=sm_90a' "$tmp/flags/$how.a")" -ne 2 ] ||
     grep -q -- 'code=\[sm_90,compute_90\]' "$tmp/flags/$how.a"; then
    cat "$tmp/flags/$how.n"
    fail "per-module arch ($how): module a's two nvcc commands should have its own -gencode (sm_90a) instead of the default"
  fi
  if [ "$(grep -c -- 'code=\[sm_90,compute_90\]' "$tmp/flags/$how.b")" -ne 2 ] || grep -q -- 'sm_90a' "$tmp/flags/$how.b"; then
    cat "$tmp/flags/$how.n"
    fail "per-module arch ($how): module b's two nvcc commands should have the default -gencode, not module a's"
  fi
done
cmake -S "$tmp/flags" -B "$tmp/flags/typo" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DEXTRA=NVCC_FLAGS_c > "$tmp/flags/typo.log" 2>&1 || true
grep -q 'NVCC_FLAGS_c: no module c among the KERNELS' "$tmp/flags/typo.log" ||
  { cat "$tmp/flags/typo.log"; fail "per-module flags: CMake did not refuse NVCC_FLAGS_c, which names no module"; }
# A KERNELS file that is not there is refused by name, not by CMake's
# 'file STRINGS file ... cannot be read' from inside kcontractConfig.cmake.
cmake -S "$tmp/flags" -B "$tmp/flags/missing" -DCMAKE_PREFIX_PATH="$tmp/prefix" "-DEXTRA=KERNELS;c.cu" > "$tmp/flags/missing.log" 2>&1 || true
# (CMake wraps a message's lines: read the log as one line)
tr -s ' \n' '  ' < "$tmp/flags/missing.log" | grep -q "kcontract_add_suite(s): KERNELS names c.cu, but $tmp/flags/c.cu does not exist" ||
  { cat "$tmp/flags/missing.log"; fail "CMake did not refuse the missing KERNELS file c.cu by name"; }
# The docs' example is the example's: own-kernels.md's and
# writing-a-contract.md's kernel and contract blocks (less the block's first
# comment line and the #include) are verbatim parts of its files.
# $1 doc, $2 the block's first line, $3 the file it must be part of.
doc_block_in() {
  awk -v first="$2" '
    on && /^```/ { exit }
    on && (body || ($0 != "" && $0 !~ /^#include "kcontract\.h"$/)) { body = 1; print }
    $0 == first { on = 1 }' "$1" > "$tmp/doc-block"
  [ -s "$tmp/doc-block" ] || fail "$1 has no code block starting '$2'"
  awk 'NR == FNR { b = b $0 "\n"; next } { f = f $0 "\n" } END { exit !index(f, b) }' "$tmp/doc-block" "$3" ||
    { cat "$tmp/doc-block"; fail "$1: the block '$2' above is not part of $3: the docs and the example disagree"; }
}
doc_block_in docs/own-kernels.md '// contracts.c' examples/external/contracts.c
doc_block_in docs/own-kernels.md '// kernels/scale.cu' examples/external/kernels/scale.cu
doc_block_in docs/writing-a-contract.md '// kernels/scale/scale_contract.c' examples/external/contracts.c
doc_block_in docs/writing-a-contract.md '// kernels/scale/scale.cu' examples/external/kernels/scale.cu
cp -r examples/external "$tmp/src"
rm -rf "$tmp/src/build"
# The third-party file is contracted as it is: nothing of kcontract's in it,
# and its main() still there.
third=examples/external/third_party/fastsoftmax/fastsoftmax.cu
! grep -n 'KC_\|kcontract\|extern "C"' "$third" || fail "$third must stay a third-party file: no kcontract names, no extern \"C\""
grep -q '^int main(' "$third" || fail "$third lost its main()"

# $1 suite binary, $2 what built it: the items, in order (host.contracts.lint
# the suite KC_CONTRACT_LINT_SUITE() registers).
check_list() {
  "$1" list > "$tmp/list" 2>&1 || fail "$2: '$1 list' failed: $(cat "$tmp/list")"
  want="kernel   ex.double.f32
control  ex.double.f32:control.short_grid
control  ex.double.f32:control.skip_last
sanitize ex.double.f32:sanitize
kernel   ex.scale.f32
control  ex.scale.f32:control.tail_skip
control  ex.scale.f32:control.wrong_scale
limit    ex.scale.f32:limits
sanitize ex.scale.f32:sanitize
kernel   ex.vendor_softmax.f32
control  ex.vendor_softmax.f32:control.no_barrier
control  ex.vendor_softmax.f32:control.no_shuffle
control  ex.vendor_softmax.f32:control.short_grid
control  ex.vendor_softmax.f32:control.sum_off_by_one
limit    ex.vendor_softmax.f32:limits
sanitize ex.vendor_softmax.f32:sanitize
suite    host.contracts.lint
17 items: 3 kernels, 8 controls, 2 limit checks, 1 suite, 3 sanitizer checks"
  [ "$(cat "$tmp/list")" = "$want" ] || fail "$2: '$1 list' printed
$(cat "$tmp/list")
expected
$want"
  # The vendor softmax's edge shapes derived from its model shape (KC_EDGE_SHAPES), after the hand-written ones.
  want='"shapes":["gpt2.attn.ctx1024","edge.1x1","edge.3x33","edge.2x257","large.1024x4096","edge.gpt2.attn.ctx1024.d1=1","edge.gpt2.attn.ctx1024.d1=255","edge.gpt2.attn.ctx1024.d1=257","edge.gpt2.attn.ctx1024.d1=1023","edge.gpt2.attn.ctx1024.d1=1025"]'
  "$1" list --format json 2>&1 | grep '"name":"ex.vendor_softmax.f32"' | grep -qF "$want" ||
    { "$1" list --format json; fail "$2: ex.vendor_softmax.f32's shapes are not $want"; }
  for so in libex_double.so libex_double@skip_last.so libex_double@short_grid.so; do
    [ -f "$(dirname "$1")/lib/$so" ] || fail "$2: library kernel $(dirname "$1")/lib/$so not built"
    d=$(dirname "$1")/lib
    grep -qxE '[0-9a-f]{16} [0-9a-f]{64}' "$d/$so.source" ||
      fail "$2: library kernel $so has no source digest ($d/$so.source: 16 hex digits, a space, the .so's sha256)"
    [ "$(cut -c18- "$d/$so.source")" = "$(sha256sum < "$d/$so" | cut -c1-64)" ] ||
      fail "$2: $d/$so.source does not hold the sha256 of $so's bytes"
  done
  check_library_digest "$1" "$2"
}
# $1 suite binary, $2 what built it: the build id (`version`'s build, the
# TALLY's build=) covers each library kernel by the source digest beside it
# (lib/<so>.source, '<digest> <sha256 of the .so>') while the .so's bytes
# hash so: another digest, or none (the .so's bytes count then), is another
# build; the digest alone (the earlier format) counts as none; another .so
# copied over it with its time kept (cp -p, older than the .so.source) is
# another build, the one of its bytes; all put back give the first build.
check_library_digest() {
  lib="$(dirname "$1")/lib"
  so="$lib/libex_double@skip_last.so" side="$lib/libex_double@skip_last.so.source"
  cp -p "$side" "$tmp/side.orig"
  cp -p "$so" "$tmp/so.orig"
  lib_build_id() { "$1" version | sed -n 's/.*, build \([0-9a-f]*\),.*/\1/p'; }
  b1=$(lib_build_id "$1")
  sed 's/^[0-9a-f]\{16\}/0123456789abcdef/' "$tmp/side.orig" > "$side"
  b2=$(lib_build_id "$1")
  rm "$side"
  b3=$(lib_build_id "$1")
  cut -c1-16 "$tmp/side.orig" > "$side"
  b4=$(lib_build_id "$1")
  cp -p "$tmp/side.orig" "$side"
  cp -p "$lib/libex_double@short_grid.so" "$so"
  touch -d '2001-09-09 01:46:40' "$so"
  b5=$(lib_build_id "$1")
  rm "$side"
  b6=$(lib_build_id "$1")
  cp -p "$tmp/so.orig" "$so"
  cp -p "$tmp/side.orig" "$side"
  b7=$(lib_build_id "$1")
  [ -n "$b1" ] && [ "$b1" != "$b2" ] && [ "$b1" != "$b3" ] && [ "$b2" != "$b3" ] && [ "$b4" = "$b3" ] &&
    [ "$b5" != "$b1" ] && [ "$b5" != "$b3" ] && [ "$b5" = "$b6" ] && [ "$b1" = "$b7" ] ||
    fail "$2: the build id does not follow libex_double@skip_last.so's source digest and bytes: $b1 with it," \
         "$b2 with another, $b3 with none, $b4 with the digest alone, $b5 with short_grid's .so copied over it" \
         "(cp -p), $b6 so without its .so.source, $b7 with both put back"
}
# $1 suite binary, $2 what built it, $3 the expected lines (state and item), $4... patterns.
check_run() {
  bin=$1 what=$2 want=$3
  shift 3
  rc=0
  KC_LIBCUDA=$fake "$bin" run --costs "$tmp/costs.tsv" "$@" > "$tmp/run.log" 2>&1 || rc=$?
  got=$(grep -E '^(PASS|FAIL|RED|MISSED|LIMIT|SKIP|KNOWN|CRASH|TIMEOUT|NOTRUN)' "$tmp/run.log" | awk '{ print $1, $2 }' | sort)
  if [ "$rc" -ne 0 ] || [ "$got" != "$want" ]; then
    cat "$tmp/run.log"
    fail "$what: KC_LIBCUDA=$fake $bin run $* exited $rc with
$got
expected exit 0 with
$want"
  fi
}

# $1 what built it, $2 the suite binary, $3 the folder to rebuild in and $4...
# the command that does: a kernel's source changed (code appended to
# kernels/scale.cu under $3, put back after) must change the suite's build
# id (`version`'s build: each image's source digest, KC_EMBED_SOURCE) and
# leave its host code digest (`version`'s host code: the images linker
# script, kcontract_images.ld, puts the images before the code) as it was.
check_kernel_edit() {
  what=$1 bin=$2 dir=$3
  shift 3
  v1=$("$bin" version) || fail "$what: '$bin version' failed"
  cp "$dir/kernels/scale.cu" "$tmp/scale.cu.orig"
  printf '\nextern "C" __global__ void ex_edit_check(float *y) { y[threadIdx.x] = 2.0f; }\n' >> "$dir/kernels/scale.cu"
  (cd "$dir" && "$@") > "$tmp/edit.log" 2>&1 || { cat "$tmp/edit.log"; fail "$what: the rebuild after a kernel edit failed"; }
  v2=$("$bin" version) || fail "$what: '$bin version' failed after the edit"
  cp "$tmp/scale.cu.orig" "$dir/kernels/scale.cu"
  b1=$(echo "$v1" | sed -n 's/.*, build \([0-9a-f]*\),.*/\1/p')
  b2=$(echo "$v2" | sed -n 's/.*, build \([0-9a-f]*\),.*/\1/p')
  [ -n "$b1" ] || fail "$what: no build id in '$v1'"
  [ "$b1" != "$b2" ] || fail "$what: the build id stayed $b1 after kernels/scale.cu changed: the images carry no source digest (KC_EMBED_SOURCE)
before: $v1
after:  $v2"
  h1=$(echo "$v1" | sed -n 's/.*, host code \([0-9a-f]*\)).*/\1/p')
  h2=$(echo "$v2" | sed -n 's/.*, host code \([0-9a-f]*\)).*/\1/p')
  [ -n "$h1" ] || fail "$what: no host code digest in '$v1'"
  [ "$h1" = "$h2" ] || fail "$what: the host code digest changed ($h1 -> $h2) when only kernels/scale.cu did: the suite is not linked with the images linker script (kcontract_images.ld), so every cached item would run again
before: $v1
after:  $v2"
  echo "external-example: $what: a kernel edit changed the build id ($b1 -> $b2), not the host code ($h1)"
}

# $1 doc, $2 a fence's language: the first such code block of the doc.
doc_fence() {
  awk -v fence="\`\`\`$2" 'on && /^```/ { exit } on { print } $0 == fence { on = 1 }' "$1"
}

echo "external-example: CMake build (nvcc) against $tmp/prefix"
cmake -S "$tmp/src" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  > "$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "cmake configure failed"; }
cmake --build "$tmp/cmake" -j2 > "$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake-build.log"; fail "cmake build failed"; }
# The contracts (host references) compiled with -ffp-contract=off: kcontract::kcontract's compile options.
cc_contracts=$(awk '/"command":/ { c = $0 } /"file":.*\/contracts\.c"/ { print c }' "$tmp/cmake/compile_commands.json")
case "$cc_contracts" in
  *-ffp-contract=off*) ;;
  *) fail "cmake: contracts.c compiled without -ffp-contract=off:
$cc_contracts" ;;
esac
check_list "$tmp/cmake/ex_suite" cmake
check_run "$tmp/cmake/ex_suite" cmake "PASS ex.scale.f32
PASS ex.scale.f32:limits
PASS ex.vendor_softmax.f32
PASS ex.vendor_softmax.f32:limits
PASS host.contracts.lint" 'ex.scale.f32' 'ex.scale.f32:limits' 'ex.vendor_softmax.f32' 'ex.vendor_softmax.f32:limits' \
  'host.contracts.lint'
# CTest: without a driver the suite skips its GPU items (exit 3): SKIPPED, not passed.
(cd "$tmp/cmake" && KC_LIBCUDA=none ctest --output-on-failure > "$tmp/ctest.log" 2>&1) || true
grep -q 'ex_suite .*Skipped' "$tmp/ctest.log" || { cat "$tmp/ctest.log"; fail "ctest did not report the driverless suite as skipped"; }
# The patch control's image (PATCHES_vendor_softmax): nvcc built a patched
# copy of the third-party file, which holds the contract's symbol; the file
# itself is as it was.
symbol=$(sed -n 's/^ *\.symbol = "\([^"]*\)".*/\1/p' "$tmp/src/contracts.c")
[ -n "$symbol" ] || fail "no .symbol = \"<mangled name>\" line in examples/external/contracts.c"
patched=$tmp/cmake/ex_suite.kcontract/patched/vendor_softmax@sum_off_by_one/tree/third_party/fastsoftmax/fastsoftmax.cu
grep -q 'c < cols - 1; c += BLOCK) s +=' "$patched" || fail "cmake: no patched copy $patched with the planted loop bound"
cmp -s "$tmp/src/third_party/fastsoftmax/fastsoftmax.cu" "$root/$third" || fail "cmake: the patch control changed the third-party file itself"
grep -qaF "$symbol" "$tmp/cmake/ex_suite.kcontract/vendor_softmax@sum_off_by_one.fatbin" ||
  fail "cmake: the patch control's image vendor_softmax@sum_off_by_one.fatbin has no $symbol"
check_kernel_edit cmake "$tmp/cmake/ex_suite" "$tmp/src" cmake --build "$tmp/cmake" -j2
# The same CMake build with the fake driver's images (no nvcc): every
# control RED, the patch control too.
cmake -S "$tmp/src" -B "$tmp/cmake-fake" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DKCONTRACT_FAKE_IMAGES=ON \
  > "$tmp/cmake-fake.log" 2>&1 || { cat "$tmp/cmake-fake.log"; fail "cmake configure (fake images) failed"; }
cmake --build "$tmp/cmake-fake" -j2 --target ex_suite > "$tmp/cmake-fake-build.log" 2>&1 ||
  { cat "$tmp/cmake-fake-build.log"; fail "cmake build (fake images) failed"; }
check_run "$tmp/cmake-fake/ex_suite" "cmake (fake images)" "RED ex.vendor_softmax.f32:control.no_barrier
RED ex.vendor_softmax.f32:control.no_shuffle
RED ex.vendor_softmax.f32:control.short_grid
RED ex.vendor_softmax.f32:control.sum_off_by_one" 'ex.vendor_softmax.f32:control.*'
# A patch that no longer applies (the file moved on) stops the build,
# naming the patch, the file and the hunk: CMake at configure time with fake
# images, make when it builds the image.
sed 's/^     float s = 0.0f;$/     float s = 1.0f;/' "$tmp/src/controls/sum_off_by_one.patch" > "$tmp/stale.patch"
cmp -s "$tmp/stale.patch" "$tmp/src/controls/sum_off_by_one.patch" && fail "could not make a stale copy of the patch"
cp -r "$tmp/src" "$tmp/stale"
rm -rf "$tmp/stale/build"
cp "$tmp/stale.patch" "$tmp/stale/controls/sum_off_by_one.patch"
stale_want="controls/sum_off_by_one.patch does not apply"
stale_hunk="third_party/fastsoftmax/fastsoftmax.cu: Hunk #1 FAILED at 42"
if cmake -S "$tmp/stale" -B "$tmp/stale/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DKCONTRACT_FAKE_IMAGES=ON \
     > "$tmp/stale-cmake.log" 2>&1; then
  cat "$tmp/stale-cmake.log"; fail "cmake: a patch that does not apply configured"
fi
grep -qF "$stale_want" "$tmp/stale-cmake.log" && grep -qF "$stale_hunk" "$tmp/stale-cmake.log" ||
  { cat "$tmp/stale-cmake.log"; fail "cmake: a patch that does not apply should stop the configure naming '$stale_want' and '$stale_hunk'"; }
if PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" make -C "$tmp/stale" KC_FAKE_IMAGES=1 \
     build/fatbin/vendor_softmax@sum_off_by_one.fatbin > "$tmp/stale-make.log" 2>&1; then
  cat "$tmp/stale-make.log"; fail "make: a patch that does not apply built its image"
fi
grep -qF "$stale_want" "$tmp/stale-make.log" && grep -qF "$stale_hunk" "$tmp/stale-make.log" ||
  { cat "$tmp/stale-make.log"; fail "make: a patch that does not apply should name '$stale_want' and '$stale_hunk'"; }

# The recipes of docs/own-kernels.md ("3. Build"), as written: its CMake and
# make blocks over its contracts.c and the example's kernels/scale.cu, with
# nvcc. Each must build, and link the images linker script.
echo "external-example: own-kernels.md's CMake and make recipes (nvcc) against $tmp/prefix"
mkdir -p "$tmp/doc/kernels"
cp examples/external/kernels/scale.cu "$tmp/doc/kernels/"
doc_fence docs/own-kernels.md c > "$tmp/doc/contracts.c"
doc_fence docs/own-kernels.md cmake > "$tmp/doc/CMakeLists.txt"
doc_fence docs/own-kernels.md make > "$tmp/doc/Makefile"
for f in contracts.c CMakeLists.txt Makefile; do
  [ -s "$tmp/doc/$f" ] || fail "docs/own-kernels.md: no code block for $f"
done
cmake -S "$tmp/doc" -B "$tmp/doc-cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/doc-cmake.log" 2>&1 &&
  cmake --build "$tmp/doc-cmake" -j2 >> "$tmp/doc-cmake.log" 2>&1 ||
  { cat "$tmp/doc-cmake.log"; fail "own-kernels.md's CMake recipe does not build"; }
check_kernel_edit "own-kernels.md's CMake recipe" "$tmp/doc-cmake/my_suite" "$tmp/doc" cmake --build "$tmp/doc-cmake" -j2
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" make -C "$tmp/doc" -j2 > "$tmp/doc-make.log" 2>&1 ||
  { cat "$tmp/doc-make.log"; fail "own-kernels.md's make recipe does not build"; }
check_kernel_edit "own-kernels.md's make recipe" "$tmp/doc/build/my_suite" "$tmp/doc" \
  env PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" make -j2
# Without the prefix on PKG_CONFIG_PATH: what own-kernels.md says make prints
# (unless this host has a kcontract.pc of its own where pkg-config looks).
if ! PKG_CONFIG_PATH= pkg-config --exists kcontract 2>/dev/null; then
  rm -rf "$tmp/doc/build"
  if PKG_CONFIG_PATH= make -C "$tmp/doc" > "$tmp/doc-nopc.log" 2>&1; then
    fail "own-kernels.md's make recipe built without kcontract.pc on PKG_CONFIG_PATH"
  fi
  for want in "Package kcontract was not found in the pkg-config search path." \
              "fatal error: kcontract.h: No such file or directory"; do
    grep -qF "$want" "$tmp/doc-nopc.log" || { cat "$tmp/doc-nopc.log"; fail "make without kcontract.pc: no '$want' (own-kernels.md quotes it)"; }
    grep -qF "$want" docs/own-kernels.md || fail "own-kernels.md does not quote '$want', which make prints without kcontract.pc"
  done
fi

echo "external-example: make + pkg-config build (fake images) against $tmp/prefix"
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" make -C "$tmp/src" -j2 KC_FAKE_IMAGES=1 > "$tmp/make.log" 2>&1 ||
  { cat "$tmp/make.log"; fail "make with pkg-config failed"; }
check_list "$tmp/src/build/ex_suite" make
grep -E '(^| )-c -o build/contracts\.o' "$tmp/make.log" | grep -q -- '-ffp-contract=off' ||
  { cat "$tmp/make.log"; fail "make: contracts.c compiled without -ffp-contract=off (pkg-config --cflags kcontract)"; }
check_run "$tmp/src/build/ex_suite" make "PASS ex.scale.f32
PASS ex.scale.f32:limits
PASS ex.vendor_softmax.f32
PASS ex.vendor_softmax.f32:limits
PASS host.contracts.lint
RED ex.scale.f32:control.tail_skip
RED ex.scale.f32:control.wrong_scale
RED ex.vendor_softmax.f32:control.no_barrier
RED ex.vendor_softmax.f32:control.no_shuffle
RED ex.vendor_softmax.f32:control.short_grid
RED ex.vendor_softmax.f32:control.sum_off_by_one" 'ex.scale.f32' 'ex.scale.f32:limits' 'ex.scale.f32:control.*' \
  'ex.vendor_softmax.f32' 'ex.vendor_softmax.f32:limits' 'ex.vendor_softmax.f32:control.*' 'host.contracts.lint'
# The library kernel calls the CUDA runtime, which finds no driver on a
# machine without one: its error 35 is named as the runtime names it, not
# as a CUresult nobody names.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  KC_LIBCUDA=$fake "$tmp/src/build/ex_suite" run --costs "$tmp/costs.tsv" ex.double.f32 > "$tmp/lib.log" 2>&1 || true
  grep -q 'library call ex_double_f32 (libex_double.so) returned cudaErrorInsufficientDriver (error 35, a cudaError_t of the CUDA runtime)' "$tmp/lib.log" ||
    { cat "$tmp/lib.log"; fail "make: the library kernel's error 35 without a driver is not named cudaErrorInsufficientDriver"; }
fi
# The third-party module through the make rules with nvcc too (the run above
# had the fake's images): KC_NVFLAGS_vendor_softmax finds the file, and each
# image, clean and control, holds the mangled symbol the contract names.
cp -r examples/external "$tmp/nvcc"
rm -rf "$tmp/nvcc/build"
vendor_images="build/fatbin/vendor_softmax.fatbin build/fatbin/vendor_softmax@no_barrier.fatbin build/fatbin/vendor_softmax@no_shuffle.fatbin
  build/fatbin/vendor_softmax@sum_off_by_one.fatbin"
# shellcheck disable=SC2086
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" make -C "$tmp/nvcc" -j2 $vendor_images > "$tmp/nvcc.log" 2>&1 ||
  { cat "$tmp/nvcc.log"; fail "make with nvcc: the third-party module vendor_softmax did not build"; }
for f in $vendor_images; do
  grep -qaF "$symbol" "$tmp/nvcc/$f" || fail "make with nvcc: $f has no $symbol (the contract's symbol)"
done
# A new user's mistakes: every problem of every contract named at once, a
# usage error (exit 2), nothing run.
cat > "$tmp/src/broken.c" <<'C'
#include "kcontract.h"
static const kc_shape shapes[] = { { "edge.1", KC_SHAPE_EDGE, { 1 } }, { 0 } };
static void launch(const kc_shape *s, const kc_device *d, kc_launch *l) { (void)s; (void)d; l->grid[0] = l->block[0] = 1; }
static void ref(const kc_ref *r) { (void)r; }
KC_CONTRACT(no_reference) { .name = "broken.no_reference", .module = "scale", .symbol = "ex_scale_f32", .launch = launch,
    .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes, .nondeterministic = "" };
KC_CONTRACT(unknown_control) { .name = "broken.control", .module = "scale", .symbol = "ex_scale_f32", .launch = launch,
    .reference = ref, .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes,
    .controls = { { "not_in_source", 2, "planted nowhere" } } };
KC_CONTRACT(tol_no_reason) { .name = "broken.tolerance", .module = "scale", .symbol = "ex_scale_f32", .launch = launch,
    .reference = ref, .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes, .tol = { 1e-3, 0, 0 } };
C
cc -c -o "$tmp/src/build/broken.o" -I"$tmp/prefix/include" "$tmp/src/broken.c"
# shellcheck disable=SC2046
cc -o "$tmp/src/build/broken_suite" "$tmp/src/build/broken.o" "$tmp/src/build/fatbin/scale.o" \
   $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --libs kcontract)
rc=0
"$tmp/src/build/broken_suite" list > "$tmp/broken.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$tmp/broken.log"; fail "a suite with broken contracts exited $rc, expected 2 (usage error)"; }
for want in "4 problems in the registered contracts" "contract broken.no_reference: no .reference function" \
            "contract broken.no_reference: nondeterministic needs a reason" \
            "control not_in_source has no fatbin: is KC_CONTROL_not_in_source used in scale.cu?" \
            "broken.tolerance: tolerance override (rtol 0.001, atol 0) without a reason"; do
  grep -qF "$want" "$tmp/broken.log" || { cat "$tmp/broken.log"; fail "broken contracts: no '$want' in the report"; }
done
echo "external-example: ok (CMake and pkg-config builds against an installed prefix, run through the fake driver)"
