# kcontract.mk — make rules that build a kcontract suite's kernels: every
# <module>.cu into an embedded fatbin (once clean, once per KC_CONTROL_<name>
# switch in its source), every lib<name>.cu library kernel into shared
# libraries (one per control too). The same rules build kcontract's own
# kernels (its Makefile includes this file); installed as
# PREFIX/share/kcontract/kcontract.mk (`pkg-config --variable=makefile kcontract`).
#
#   include $(shell pkg-config --variable=makefile kcontract)
#   $(eval $(call kc_suite,build,$(wildcard kernels/*.cu)))
#   build/my_suite: my_contracts.o $(KC_EMBED_OBJS) | $(KC_HOSTLIBS)
#   	$(CC) -o $@ $^ $(shell pkg-config --libs kcontract)
#
# (pkg-config's --libs carries the images linker script, KC_IMAGES_LDFLAGS
# below: give it once, ld refuses a script named twice.)
#
# kc_suite(DIR, FILES): modules and library kernels (lib*.cu) of FILES.
#   DIR/fatbin/<module>[@<control>].fatbin   nvcc -fatbin of <module>.cu
#   DIR/fatbin/<module>[@<control>].o        the image embedded: link it in;
#                                            it registers itself when loaded
#   DIR/lib/lib<name>[@<control>].so         a library kernel, found by the
#                                            suite binary in lib/ next to it
#   DIR/lib/lib<name>[@<control>].so.source  its source digest and the
#                                            sha256 of its bytes
#                                            (kc_libsource): the build
#                                            identity's, read without
#                                            loading the library
# Appends to KC_FATBINS, KC_EMBED_OBJS (link these) and KC_HOSTLIBS (build
# these: each .so and its .so.source). kc_module(DIR, FILE), kc_library(DIR,
# FILE), kc_embed(FATBIN, MODULE, CONTROL) and kc_libsource(SO) are its parts.
#
# What the build identity (the TALLY's build=, `<suite> version`'s build,
# which `kcontract merge` requires equal in every shard) covers of these:
# each image's and each library kernel's source digest (kcontract_digest.sh:
# its name and the files nvcc read, not the bytes, which hold the checkout's
# absolute paths). A library's .so.source is one line, `<digest> <sha256>`:
# the 16 hex digits, a space, and the 64 of sha256sum of the .so as it was
# built (kcontract_digest.sh --record); the run trusts the digest only for
# a .so whose bytes still hash so, whatever the files' times. A library
# kernel without a .so.source that vouches for it (none, a malformed one,
# one of the earlier digest-alone format, or one written for other bytes:
# a .so rebuilt, or replaced by cp -p, rsync -a, tar x) counts by the bytes
# of its .so instead: two checkouts of one commit then may differ and refuse
# to merge, but libraries built from other sources never pass for one. Copy
# the .so.source with a .so you install (PREFIX/lib/kcontract/).
#
# Settings (defaults in brackets): KC_NVCC [nvcc on PATH, else
# $(CUDA_HOME)/bin/nvcc], KC_CUDA_ARCH [sm_90 SASS + compute_90 PTX],
# KC_NVFLAGS [-O3 -lineinfo -std=c++17], KC_NVFLAGS_<module> (extra nvcc flags
# of one module or library kernel, after KC_NVFLAGS: an include directory of
# a third-party source, a -D it needs; CMake's NVCC_FLAGS_<module>),
# KC_CUDA_ARCH_<module> (one module's -gencode flags instead of KC_CUDA_ARCH:
# a kernel of arch-specific instructions, e.g. wgmma and setmaxnreg, built
# for sm_90a alone with -gencode=arch=compute_90a,code=sm_90a, so that no
# plain sm_90 image of it exists for the driver to pick; CMake's
# CUDA_ARCH_<module>),
# KC_LIBS_lib<name> (libraries a library kernel links, e.g. -lcublas),
# KC_PATCHES_<module> (patch controls of a module or library kernel: each
# <control>.patch, a unified diff with a/ and b/ paths from KC_PATCH_BASE
# [.], is applied to a copy of the source by kcontract_patch.sh, and that copy
# built as the control's image; for kernels one may not edit. Set it before
# the kc_suite line: its targets are made there. CMake's PATCHES_<module>),
# KC_INCLUDE [kcontract's headers], KC_WARP_CHECK [-include
# kcontract_warp_check.cuh: the warp-mask check build, every kernel's
# __shfl*_sync, __ballot_sync, __syncwarp ... traps when its mask is
# undefined behaviour; empty to build without]. Modules named
# *_ref.cu (device references) are built with -fmad=false, as the host
# reference rounds. Quiet by default; V=1 prints every command.
KC_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
CUDA_HOME ?= /usr/local/cuda
KC_NVCC ?= $(shell command -v nvcc 2>/dev/null || echo $(CUDA_HOME)/bin/nvcc)
KC_CUDA_ARCH ?= -gencode arch=compute_90,code=[sm_90,compute_90]
KC_NVFLAGS ?= -O3 -lineinfo -std=c++17
KC_WARP_CHECK ?= -include $(KC_INCLUDE)/kcontract_warp_check.cuh
# Installed: PREFIX/share/kcontract/ beside PREFIX/include/; in kcontract's
# own tree: share/ beside include/.
KC_INCLUDE ?= $(firstword $(wildcard $(KC_MK_DIR)/../../include/kcontract.h $(KC_MK_DIR)/../include/kcontract.h))
override KC_INCLUDE := $(patsubst %/kcontract.h,%,$(KC_INCLUDE))
KC_EMBED_SRC ?= $(KC_MK_DIR)/kcontract_embed.c
# Link a suite's binary with these: its kernel images then lie before its
# code (kcontract_images.ld), and a changed kernel leaves the cached results
# of the other modules' items valid (the results cache, docs/results-cache.md).
# `pkg-config --libs kcontract` already has them (kcontract.pc's Libs), as
# CMake's kcontract_add_suite does: only a link without pkg-config's Libs
# adds them (kcontract's own Makefile).
KC_IMAGES_LDFLAGS ?= -Wl,-T,$(KC_MK_DIR)/kcontract_images.ld
KC_DIGEST ?= $(KC_MK_DIR)/kcontract_digest.sh
KC_PATCH ?= $(KC_MK_DIR)/kcontract_patch.sh
KC_PATCH_BASE ?= .
KC_EMBED_CC ?= $(CC)
KC_LIB_NVFLAGS = -Xcompiler -fPIC,-Wall -shared -cudart shared -L$(CUDA_HOME)/lib64 -Xlinker -rpath=$(CUDA_HOME)/lib64

ifeq ($(V),1)
KC_Q :=
KC_SAY := @:
else
KC_Q := @
KC_SAY := @printf '  %-6s %s\n'
endif

KC_FATBINS ?=
KC_EMBED_OBJS ?=
KC_HOSTLIBS ?=

kc_module_of = $(basename $(notdir $(1)))
# kc_controls_of(FILE): the names of FILE's KC_CONTROL_ switches, sorted.
# kc_controls_scan(FILES) reads them for many files with one grep and keeps
# each file's (kc_ctl_<FILE>), which kc_controls_of then answers without a
# shell; kc_suite scans its files first. Starting a pipeline per file cost
# every make run (each mutant build's too) about 2.5 s on a 2-core VM.
kc_controls_scan = $(foreach f,$(1),$(eval kc_ctl_scanned_$(f) := 1)$(eval kc_ctl_$(f) :=))$(foreach w,$(shell \
  grep -oHE 'KC_CONTROL_[A-Za-z0-9_]+' $(1) /dev/null | sort -u),$(eval kc_ctl_$(firstword $(subst :KC_CONTROL_, ,$(w))) \
  += $(lastword $(subst :KC_CONTROL_, ,$(w)))))
kc_controls_of = $(if $(kc_ctl_scanned_$(1)),$(strip $(kc_ctl_$(1))),$(shell grep -ohE 'KC_CONTROL_[A-Za-z0-9_]+' $(1) \
  | sed 's/^KC_CONTROL_//' | sort -u))
# Patch controls (KC_PATCHES_<module>): their names, and the patch of one.
kc_patches_of = $(KC_PATCHES_$(call kc_module_of,$(1)))
kc_patch_controls_of = $(patsubst %.patch,%,$(notdir $(call kc_patches_of,$(1))))
kc_patch_for = $(if $(2),$(firstword $(filter %/$(2).patch $(2).patch,$(call kc_patches_of,$(1)))))
kc_check_patches = $(strip \
  $(if $(filter-out %.patch,$(call kc_patches_of,$(1))),$(error KC_PATCHES_$(call kc_module_of,$(1)): \
    $(filter-out %.patch,$(call kc_patches_of,$(1))) is not a <control>.patch file)) \
  $(if $(filter-out $(words $(call kc_patch_controls_of,$(1))),$(words $(sort $(call kc_patch_controls_of,$(1))))), \
    $(error KC_PATCHES_$(call kc_module_of,$(1)): two patches of one control name: $(call kc_patches_of,$(1)))) \
  $(if $(filter $(call kc_patch_controls_of,$(1)),$(call kc_controls_of,$(1))),$(error KC_PATCHES_$(call \
    kc_module_of,$(1)): control $(filter $(call kc_patch_controls_of,$(1)),$(call kc_controls_of,$(1))) is \
    both a patch and a KC_CONTROL_ switch in $(1))))
# The command that builds a patch control's image (FILE, CONTROL, PATCH):
# kcontract_patch.sh runs the compiler on a patched copy of the source.
kc_patch_run = sh $$(KC_PATCH) $(3) $$(KC_PATCH_BASE) $$(@D)/patched/$(call kc_module_of,$(1))@$(2) $$< --
# KC_NVFLAGS_<module> is read when the recipe runs, so it may be set before
# or after the kc_suite line (as KC_LIBS_lib<name> may).
kc_module_flags = $(if $(filter %_ref,$(call kc_module_of,$(1))),-fmad=false) $$(KC_NVFLAGS_$(call kc_module_of,$(1)))
# KC_CUDA_ARCH_<module> likewise; empty or unset: KC_CUDA_ARCH.
kc_module_arch = $$(or $$(KC_CUDA_ARCH_$(call kc_module_of,$(1))),$$(KC_CUDA_ARCH))

# kc_embed(FATBIN, MODULE, CONTROL or empty): FATBIN's .o, registering it.
# It carries KC_ABI_VERSION from kcontract.h: a bumped ABI rebuilds it (else
# the library refuses the stale image at start).
define kc_embed
$(1:.fatbin=.o): $(1) $(KC_EMBED_SRC) $(KC_DIGEST) $(KC_INCLUDE)/kcontract.h
	$$(KC_SAY) EMBED $$@
	$$(KC_Q)src=$$$$(sh $$(KC_DIGEST) $$< 2>/dev/null) && \
	$$(KC_EMBED_CC) -fPIC -c -I$$(KC_INCLUDE) -DKC_EMBED_FILE='"$$<"' -DKC_EMBED_MODULE='"$(2)"' \
	  $(if $(3),-DKC_EMBED_CONTROL='"$(3)"') -DKC_EMBED_SOURCE="\"$$$$src\"" $$(KC_EMBED_DEFS_$(2)) -o $$@ $$(KC_EMBED_SRC)
KC_EMBED_OBJS += $(1:.fatbin=.o)
endef

# kc_fatbin(DIR, FILE.cu, CONTROL or empty). With KC_FAKE_IMAGES=1 the
# image is the fake driver's text "KCFAKE <module> <control or ->" instead
# of nvcc's fatbin (kcontract's tests/fake/fake_cuda.c: the build and the
# registration tested without nvcc or a GPU).
ifeq ($(KC_FAKE_IMAGES),1)
define kc_fatbin_recipe
	$$(KC_SAY) FAKE $$@
	$(if $(4),$$(KC_Q)$(call kc_patch_run,$(2),$(3),$(4)) true)
	$$(KC_Q)printf 'KCFAKE %s %s\n' $(call kc_module_of,$(2)) $(or $(3),-) > $$@
endef
else
define kc_fatbin_recipe
	$$(KC_SAY) NVCC $$@
	$$(KC_Q)$(if $(4),$(call kc_patch_run,$(2),$(3),$(4)) )$$(KC_NVCC) $$(KC_NVFLAGS) $(call kc_module_arch,$(2)) \
	  -I$$(KC_INCLUDE) $$(KC_WARP_CHECK) $(call kc_module_flags,$(2)) $(if $(3),$(if $(4),,-DKC_CONTROL_$(3))) -fatbin -MD -MF $$@.d -o $$@ $$<
endef
endif
define kc_fatbin
$(1)/fatbin/$(call kc_module_of,$(2))$(if $(3),@$(3)).fatbin: $(2) $(if $(call kc_patch_for,$(2),$(3)),$(call kc_patch_for,$(2),$(3)) $(KC_PATCH))
	@mkdir -p $$(@D)
$(call kc_fatbin_recipe,$(1),$(2),$(3),$(call kc_patch_for,$(2),$(3)))
KC_FATBINS += $(1)/fatbin/$(call kc_module_of,$(2))$(if $(3),@$(3)).fatbin
$(call kc_embed,$(1)/fatbin/$(call kc_module_of,$(2))$(if $(3),@$(3)).fatbin,$(call kc_module_of,$(2)),$(3))
-include $(1)/fatbin/$(call kc_module_of,$(2))$(if $(3),@$(3)).fatbin.d
endef

# kc_module(DIR, FILE.cu): the clean fatbin and one per control, switch or patch.
kc_module = $(call kc_check_patches,$(2))$(foreach c,_ $(call kc_controls_of,$(2)) $(call kc_patch_controls_of,$(2)),$(call \
  kc_fatbin,$(1),$(2),$(filter-out _,$(c)))$(newline))

# kc_libsource(SO): SO.source, the library kernel's source digest
# (kcontract_digest.sh over SO's name and the files of SO.d) and the sha256
# of SO's bytes, one line (kcontract_digest.sh --record): the build identity
# reads it instead of loading the library (build_id.h), so that two
# checkouts of one commit have one identity and a library built from other
# sources another, and trusts it only while SO's bytes hash to it. Also for
# a library built by rules of one's own: write SO.d with the compiler's -MD
# -MF SO.d, and $(eval $(call kc_libsource,SO)).
define kc_libsource
$(1).source: $(1) $(KC_DIGEST)
	$$(KC_SAY) DIGEST $$@
	$$(KC_Q)sh $$(KC_DIGEST) --record $$< > $$@.tmp && mv $$@.tmp $$@
KC_HOSTLIBS += $(1).source
endef

# kc_shlib(DIR, lib<name>.cu, CONTROL or empty): the library, its dependency
# file (nvcc -MD: a changed header rebuilds it; a library without one, built
# by rules before the digests, is built again) and its source digest.
define kc_shlib
$(1)/lib/$(call kc_module_of,$(2))$(if $(3),@$(3)).so: $(2) $(KC_INCLUDE)/kcontract.h $(if $(call \
  kc_patch_for,$(2),$(3)),$(call kc_patch_for,$(2),$(3)) $(KC_PATCH)) $(if $(wildcard \
  $(1)/lib/$(call kc_module_of,$(2))$(if $(3),@$(3)).so.d),,.kc_force)
	@mkdir -p $$(@D)
	$$(KC_SAY) NVCC $$@
	$$(KC_Q)$(if $(call kc_patch_for,$(2),$(3)),$(call kc_patch_run,$(2),$(3),$(call kc_patch_for,$(2),$(3))) )$$(KC_NVCC) \
	  $$(KC_NVFLAGS) $(call kc_module_arch,$(2)) -I$$(KC_INCLUDE) $$(KC_WARP_CHECK) $$(KC_LIB_NVFLAGS) $$(KC_NVFLAGS_$(call kc_module_of,$(2))) \
	  $(if $(3),$(if $(call kc_patch_for,$(2),$(3)),,-DKC_CONTROL_$(3))) -MD -MF $$@.d -o $$@ $$< $$(KC_LIBS_$(call kc_module_of,$(2)))
KC_HOSTLIBS += $(1)/lib/$(call kc_module_of,$(2))$(if $(3),@$(3)).so
$(call kc_libsource,$(1)/lib/$(call kc_module_of,$(2))$(if $(3),@$(3)).so)
-include $(1)/lib/$(call kc_module_of,$(2))$(if $(3),@$(3)).so.d
endef
.PHONY: .kc_force
.kc_force:

# kc_library(DIR, lib<name>.cu): the clean library and one per control.
kc_library = $(call kc_check_patches,$(2))$(foreach c,_ $(call kc_controls_of,$(2)) $(call kc_patch_controls_of,$(2)),$(call \
  kc_shlib,$(1),$(2),$(filter-out _,$(c)))$(newline))

# kc_suite(DIR, FILES): lib*.cu as library kernels, every other .cu a module.
kc_suite = $(call kc_controls_scan,$(2))$(foreach f,$(filter lib%.cu,$(notdir $(2))),$(call kc_library,$(1),$(filter %/$(f) $(f),$(2)))) \
           $(foreach f,$(filter-out lib%.cu,$(notdir $(2))),$(call kc_module,$(1),$(filter %/$(f) $(f),$(2))))

define newline


endef

# Mutants (kcontract mutate, docs/mutation.md): KC_MUTANT_DIR/<module>@<id>.cu,
# a module's source with one change, built as the module is (its
# KC_NVFLAGS_<module>, its KC_CUDA_ARCH_<module>, -fmad=false for *_ref),
# with -I KC_MUTANT_INC_<module> (the original's folder, for its quoted
# includes). .cubin: one sm_90 (or sm_90a) image without line information,
# compared byte for byte for trivial compiler equivalence; nvcc's errors in
# .log (a mutant that does not compile is unviable). .fatbin: the image a
# run loads, as a control's.
KC_MUTANT_DIR ?= build/mutants
kc_mutant_module = $(firstword $(subst @, ,$(notdir $(1))))
$(KC_MUTANT_DIR)/%.cubin: $(KC_MUTANT_DIR)/%.cu
	$(KC_SAY) NVCC $@
	$(KC_Q)m=$(call kc_mutant_module,$*); $(KC_NVCC) $(filter-out -lineinfo,$(KC_NVFLAGS)) \
	  $(if $(findstring sm_90a,$(KC_CUDA_ARCH_$(call kc_mutant_module,$*))),-arch=sm_90a,-arch=sm_90) -I$(KC_INCLUDE) $(KC_WARP_CHECK) \
	  $(if $(filter %_ref,$(call kc_mutant_module,$*)),-fmad=false) \
	  $(filter-out -gencode arch=%,$(KC_NVFLAGS_$(call kc_mutant_module,$*))) \
	  -I$(KC_MUTANT_INC_$(call kc_mutant_module,$*)) -cubin -o $@ $< 2> $(KC_MUTANT_DIR)/$*.log || { rm -f $@; exit 1; }
$(KC_MUTANT_DIR)/%.fatbin: $(KC_MUTANT_DIR)/%.cu
	$(KC_SAY) NVCC $@
	$(KC_Q)$(KC_NVCC) $(KC_NVFLAGS) $(or $(KC_CUDA_ARCH_$(call kc_mutant_module,$*)),$(KC_CUDA_ARCH)) -I$(KC_INCLUDE) $(KC_WARP_CHECK) \
	  $(if $(filter %_ref,$(call kc_mutant_module,$*)),-fmad=false) $(KC_NVFLAGS_$(call kc_mutant_module,$*)) \
	  -I$(KC_MUTANT_INC_$(call kc_mutant_module,$*)) -fatbin -o $@ $< 2> $(KC_MUTANT_DIR)/$*.fatbin.log || { rm -f $@; exit 1; }
