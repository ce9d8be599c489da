# Makefile — builds build/kcontract (harness + contracts + embedded kernel
# fatbins), build/kcontract-fixture (harness + host-only fixture suites and
# fake kernels, for process tests), build/kc_tests (Criterion host tests) and
# the fake drivers build/libfake_{cuda,nvml}.so. Needs gcc and
# nvcc; no GPU. `make test` runs the host tests; `make install PREFIX=...
# [DESTDIR=...]` installs the library a project with its own kernels uses.
# Quiet by default (one line per file); V=1 prints every command.
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || echo $(CUDA_HOME)/bin/nvcc)
CUDA_ARCH ?= -gencode arch=compute_90,code=[sm_90,compute_90]
CFLAGS ?= -O2 -g
# Random123's headers (Philox4x32-10, the input streams: src/core/gen_stream.h)
# come from Debian's librandom123-dev in /usr/include; on a machine without
# it (the GPU machine has no package registry) tools/gpu-deps.sh unpacks the
# carried .deb into .deps/, found here.
R123_INC ?= $(if $(wildcard /usr/include/Random123/philox.h),,-I$(CURDIR)/.deps/usr/include)
# -ffp-contract=off: host references and checks round every operation as
# written, as the device code built with -fmad=false does.
CFLAGS += -std=c11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -ffp-contract=off \
          -D_GNU_SOURCE -Iinclude $(SRC_INC) -I$(CUDA_HOME)/include $(R123_INC) -MMD -MP
NVFLAGS ?= -O3 -lineinfo
NVFLAGS += $(CUDA_ARCH) -std=c++17 -Iinclude -Ikernels
LDLIBS = -ldl -lm -lpthread
B = build

# src/ by layer, lowest first (docs/layout.md); each layer's headers are on
# the include path, and a file includes only its own layer's and lower ones'.
SRC_LAYERS := util proc core cuda gates report run mutate app
SRC_INC := $(SRC_LAYERS:%=-Isrc/%)
HARNESS_SRCS := $(filter-out src/app/kcontract_main.c,$(wildcard $(SRC_LAYERS:%=src/%/*.c)))
CONTRACT_SRCS := $(wildcard kernels/*/*.c suites/*.c)
# lib<name>.cu in a family: a library kernel's host launcher (kc_contract.library),
# built into build/lib/lib<name>.so, not into a fatbin.
LIB_CU_SRCS := $(wildcard kernels/*/lib*.cu staging/kernels/*/lib*.cu)
CU_SRCS := $(filter-out $(LIB_CU_SRCS),$(wildcard kernels/*/*.cu))
# staging/kernels/<family>/: families written but not yet run on a GPU. They
# build into build/kcontract-staging (every kernel, staged ones included) and
# move to kernels/ with their first H200 receipt.
STAGING_CONTRACT_SRCS := $(wildcard staging/kernels/*/*.c)
STAGING_CU_SRCS := $(filter-out $(LIB_CU_SRCS),$(wildcard staging/kernels/*/*.cu))
STAGING_CONTRACT_OBJS := $(STAGING_CONTRACT_SRCS:%.c=$(B)/%.o)
TEST_SRCS := $(wildcard tests/test_*.c tests/support/*.c)
# The fixture binary also links the harness's own GPU suites, so the fake
# driver runs them (tests/test_gates_fake.c).
FIXTURE_SRCS := $(wildcard tests/fixtures/*.c) suites/harness_suite.c

HARNESS_OBJS := $(HARNESS_SRCS:%.c=$(B)/%.o)
CONTRACT_OBJS := $(CONTRACT_SRCS:%.c=$(B)/%.o)
TEST_OBJS := $(TEST_SRCS:%.c=$(B)/%.o)
FIXTURE_OBJS := $(patsubst %.c,$(B)/%.o,$(FIXTURE_SRCS))

.DEFAULT_GOAL := all

# The kernels build through share/kcontract.mk, the rules any user's suite
# uses (installed as PREFIX/share/kcontract/kcontract.mk): one clean fatbin
# per module plus one per control switch in its source, each embedded in an
# object that registers it when loaded (build/fatbin/<module>[@<control>].o),
# and each library kernel lib<name>.cu into build/lib/lib<name>[@<control>].so
# (the harness looks in lib/ next to its binary, or $KC_LIBDIR). Modules whose
# float64 arithmetic must round as the host's does are built with
# -fmad=false: the harness's own (kernels/harness/harness.cu: the generator
# and gate 3's tolerance arithmetic, which also include src/'s
# host-and-device headers) and device references (*_ref.cu, by the rules).
KC_NVCC = $(NVCC)
KC_CUDA_ARCH = $(CUDA_ARCH)
KC_NVFLAGS = $(filter-out $(CUDA_ARCH),$(NVFLAGS))
KC_INCLUDE = include
KC_NVFLAGS_harness = -fmad=false -Isrc/core $(R123_INC)
# griddepcontrol (programmatic dependent launch) is sm_90's: that module has
# an sm_90 image whatever CUDA_ARCH says (its kernels trap on older images).
KC_NVFLAGS_token_quant_pdl = -gencode arch=compute_90,code=[sm_90,compute_90]
# The harness's image is pulled out of libkcontract.a by src/cuda/harness.c.
KC_EMBED_DEFS_harness = -DKC_EMBED_ANCHOR=kc_embedded_harness
KC_LIBS_libkc_cublas = -lcublas
# Kernels that use wgmma and setmaxnreg exist on sm_90a alone: their fatbins
# hold that machine code and no plain sm_90 image (nor PTX) for the driver to
# pick instead.
KC_CUDA_ARCH_attn_prefill_hopper = -gencode=arch=compute_90a,code=sm_90a
KC_CUDA_ARCH_gemm_wgmma = -gencode=arch=compute_90a,code=sm_90a
include share/kcontract.mk
HARNESS_CU := kernels/harness/harness.cu
$(eval $(call kc_suite,$(B),$(HARNESS_CU)))
HARNESS_EMBED_OBJS := $(KC_EMBED_OBJS)
KC_EMBED_OBJS :=
$(eval $(call kc_suite,$(B),$(filter-out $(HARNESS_CU),$(CU_SRCS)) $(filter kernels/%,$(LIB_CU_SRCS))))
FATBINS := $(KC_FATBINS)
MAIN_EMBED_OBJS := $(KC_EMBED_OBJS)
KC_EMBED_OBJS :=
$(eval $(call kc_suite,$(B),$(STAGING_CU_SRCS) $(filter staging/%,$(LIB_CU_SRCS))))
STAGING_EMBED_OBJS := $(KC_EMBED_OBJS)
HOSTLIBS := $(KC_HOSTLIBS)
# The fake library kernels (tests/fake/lib<name>.c, the fixture binary's:
# build/lib/lib<name>[@<control>].so), built by gcc as kcontract.mk builds a
# lib<name>.cu by nvcc: each with its dependency file (-MF .so.d) and its
# source digest beside it (kc_libsource: .so.source, the digest and the
# sha256 of the .so's bytes), which the fixture binary's build identity
# reads as the real binary's does.
FAKE_LIB_SRCS := $(wildcard tests/fake/lib*.c)
# fakelib_so(FILE, CONTROL or empty)
define fakelib_so
$(B)/lib/$(call kc_module_of,$(1))$(if $(2),@$(2)).so: $(1) include/kcontract.h $(if $(wildcard \
  $(B)/lib/$(call kc_module_of,$(1))$(if $(2),@$(2)).so.d),,.kc_force)
	@mkdir -p $$(@D)
	$$(KC_SAY) CC $$@
	$$(KC_Q)$$(CC) $$(CFLAGS) $(if $(2),-DKC_CONTROL_$(2)) -fPIC -shared -MF $$@.d -o $$@ $$<
FAKE_HOSTLIBS += $(B)/lib/$(call kc_module_of,$(1))$(if $(2),@$(2)).so
endef
FAKE_HOSTLIBS :=
$(call kc_controls_scan,$(FAKE_LIB_SRCS))
KC_HOSTLIBS :=
$(foreach f,$(FAKE_LIB_SRCS),$(foreach c,_ $(call kc_controls_of,$(f)),$(eval $(call \
  fakelib_so,$(f),$(filter-out _,$(c))))$(eval $(call kc_libsource,$(B)/lib/$(call \
  kc_module_of,$(f))$(if $(filter-out _,$(c)),@$(c)).so))))
FAKE_HOSTLIBS += $(KC_HOSTLIBS)
KC_HOSTLIBS :=

.PHONY: all kernels staging test bench bench-gemm-hopper bench-inflight bench-ctx-stall bench-kernel-time clean
# `make` builds what the suite needs and nothing of the test framework:
# build/kcontract with its library kernels (build/lib/*.so), the staging
# binary when staging/kernels/ holds a family (`make staging` builds it
# anyway: build/kcontract's items then), and the fixture binary with the
# fake drivers (no Criterion either).
# `make test` adds the Criterion tests (build/kc_tests) and runs them.
all: $(B)/kcontract $(B)/kcontract-fixture $(if $(STAGING_CONTRACT_SRCS),$(B)/kcontract-staging) \
     $(B)/libfake_nvml.so $(B)/libfake_cuda.so $(HOSTLIBS) $(FAKE_HOSTLIBS)
staging: $(B)/kcontract-staging $(HOSTLIBS)
kernels: $(FATBINS)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(KC_SAY) CC $@
	$(KC_Q)$(CC) $(CFLAGS) -c -o $@ $<

# The fixture binary's "fatbins": fake images "KCFAKE <module> <control or ->"
# for the fake driver (tests/fake/fake_cuda.c), one per module and control
# listed in tests/fixtures/fake_kernels.list, embedded like real ones.
FAKE_FATBINS := $(shell awk '/^[A-Za-z_]/ { for (i = 1; i <= NF; i++) print "$(B)/fakefatbin/" $$1 (i > 1 ? "@" $$i : "") ".fatbin" }' tests/fixtures/fake_kernels.list)
$(B)/fakefatbin/%.fatbin: tests/fixtures/fake_kernels.list
	@mkdir -p $(@D)
	@printf 'KCFAKE %s %s\n' $(word 1,$(subst @, ,$*)) $(or $(word 2,$(subst @, ,$*)),-) > $@
KC_EMBED_OBJS :=
$(foreach f,$(FAKE_FATBINS),$(eval $(call kc_embed,$(f),$(word 1,$(subst @, ,$(basename $(notdir $(f))))),$(word 2,$(subst @, ,$(basename $(notdir $(f))))))))
FAKE_EMBED_OBJS := $(KC_EMBED_OBJS)

# Every kernel, staged families included: for validating them on a GPU.
$(B)/kcontract-staging: $(B)/src/app/kcontract_main.o $(HARNESS_OBJS) $(CONTRACT_OBJS) $(STAGING_CONTRACT_OBJS) $(HARNESS_EMBED_OBJS) $(MAIN_EMBED_OBJS) $(STAGING_EMBED_OBJS)
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $^ $(LDLIBS)

# The library kernels are order-only prerequisites: `make build/kcontract`
# brings build/lib/*.so, which its cuBLAS and CUB contracts dlopen.
# The images go before the code (share/kcontract_images.ld): one changed
# kernel then leaves the host code's digest, and the cached results of the
# other modules' items, as they were (src/core/host_code.h).
KC_IMAGES_LD := $(KC_IMAGES_LDFLAGS)
# The library kernels (lib/lib*.so) are loaded by the binary's items at run
# time, so `make build/kcontract` builds them too (order-only, as a user's
# suite does with KC_HOSTLIBS): a GPU machine that built the binary alone
# reported every cub and cublas item "library not found" (2026-12-02).
$(B)/kcontract: $(B)/src/app/kcontract_main.o $(HARNESS_OBJS) $(CONTRACT_OBJS) $(HARNESS_EMBED_OBJS) $(MAIN_EMBED_OBJS) share/kcontract_images.ld | $(HOSTLIBS)
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $(filter %.o,$^) $(KC_IMAGES_LD) $(LDLIBS)

# The fixture binary: same harness, host-only fixture suites, and the fake
# kernels' contracts with their fake images (run through build/libfake_cuda.so).
$(B)/kcontract-fixture: $(B)/src/app/kcontract_main.o $(HARNESS_OBJS) $(FIXTURE_OBJS) $(FAKE_EMBED_OBJS) share/kcontract_images.ld
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $(filter %.o,$^) $(KC_IMAGES_LD) $(LDLIBS)

# The tests link every contract, staged ones included, so their references are tested too.
$(B)/kc_tests: $(TEST_OBJS) $(HARNESS_OBJS) $(CONTRACT_OBJS) $(STAGING_CONTRACT_OBJS) $(HARNESS_EMBED_OBJS) $(MAIN_EMBED_OBJS) $(STAGING_EMBED_OBJS)
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $^ $(LDLIBS) -lcriterion -lutil

# A stand-in for libnvidia-ml.so.1, so the NVML code is tested without a GPU.
$(B)/libfake_nvml.so: tests/fake/fake_nvml.c
	@mkdir -p $(@D)
	$(KC_SAY) CC $@
	$(KC_Q)$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

# A stand-in for libcuda.so.1, so the gates are tested without a GPU.
$(B)/libfake_cuda.so: tests/fake/fake_cuda.c tests/fake/fake_cuda_mem.c tests/fake/fake_cuda_module.c \
                      tests/fake/fake_cuda_launch.c tests/fake/fake_cuda_stream.c \
                      tests/fake/fake_kernels.c tests/fake/fake_args.c tests/fake/fake_acc.c tests/fake/fake_cuda.h tests/fake/fake_cuda_state.h
	@mkdir -p $(@D)
	$(KC_SAY) CC $@
	$(KC_Q)$(CC) $(CFLAGS) -fPIC -shared -o $@ $(filter %.c,$^) -lm

# A driver library whose constructor calls exit(0) (tests/test_trust.c).
$(B)/libfake_exit0.so: tests/fake/fake_exit0.c
	@mkdir -p $(@D)
	$(KC_SAY) CC $@
	$(KC_Q)$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

# A driver library whose constructor calls _exit(0), which no exit guard
# sees (tests/test_break.c).
$(B)/libfake_exit0_raw.so: tests/fake/fake_exit0_raw.c
	@mkdir -p $(@D)
	$(KC_SAY) CC $@
	$(KC_Q)$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

# An LD_PRELOAD library whose constructor forks a helper before main: a
# process no item started, which must never make an item LEAK (issue 21).
$(B)/libkc_preload_fork.so: tests/preload/fork_before_main.c
	@mkdir -p $(@D)
	$(KC_SAY) CC $@
	$(KC_Q)$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

# Criterion's worker processes for `make test` (TEST_JOBS=N; default twice the
# CPUs, at most 8). Many tests wait on a child process, a timeout or a grace
# period, so more workers than CPUs keep them busy: on a machine like CI's (2
# CPUs) the tests took 165 s with 2 workers (95 s of CPU) and 91-96 s with 4
# (4 runs, every one green), and CI's AddressSanitizer step
# (tools/sanitize-test.sh, its build included) 256 s against 311 s.
# Several tests measure time limits and grace periods, which
# a CPU shared by many more workers stretches: hence the cap.
# (getconf, not nproc: nproc follows OMP_NUM_THREADS.)
ifeq ($(origin TEST_JOBS),undefined)
TEST_JOBS := $(shell n=$$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); j=$$((2 * n)); [ $$j -gt 8 ] && j=8; echo $$j)
endif
# The nvcc the tests' own builds use (the mutation tests build mutants of a
# real module): NVCC unless set. tools/sanitize-test.sh sets NVCC=false, so
# that its make never rebuilds a kernel, and this to the real one.
KC_TEST_NVCC ?= $(NVCC)
# The mutants the mutation tests need built, built once per run and copied by
# each test (tests/support/mutant_seed.h); kept between runs (make keeps
# unchanged mutants). tools/sanitize-test.sh copies build/'s into its own.
KC_TEST_MUTANTS ?= $(abspath $(B))/test-mutants
test: $(B)/kc_tests $(B)/kcontract $(B)/kcontract-fixture $(B)/libfake_nvml.so $(B)/libfake_cuda.so $(HOSTLIBS) \
      $(FAKE_HOSTLIBS) $(B)/libfake_exit0.so $(B)/libfake_exit0_raw.so $(B)/libkc_preload_fork.so $(B)/kc_ctx_stall_probe
	sh tools/check-layers.sh
	@# The tests and every process they start get a TMPDIR of their own, which
	@# must be empty when they end (issue 21: runs left ~12 files in /tmp).
	@# The results cache is off (KC_CACHE_DIR=off): the tests repeat items and
	@# expect them to run; tests/test_result_cache.c gives its runs a cache.
	@# The sanitizer's sessions are not counted in the memory plan
	@# (KC_SANITIZER_HOST_MIB=0 KC_SANITIZER_GPU_MIB=0): the fake tool's take none, and a run's
	@# admission must not depend on this host's memory; tests/test_plan.c
	@# gives its runs figures. Each test's runs get a cost table of their own in
	@# that TMPDIR (KC_COSTS, tests/support/spawn.c), never build/kcontract.costs.tsv
	@# nor a KC_COSTS the caller's shell has (emptied here: unset).
	@case "$(TEST_JOBS)" in ''|*[!0-9]*|0*) echo "make test: TEST_JOBS='$(TEST_JOBS)': expected a number of test workers, 1 or more, without leading zeros" >&2; exit 2;; esac; \
	tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/kc-test.XXXXXX") || exit 2; \
	echo "TMPDIR=$$tmp KC_BIN=$(B)/kcontract ... $(B)/kc_tests --jobs $(TEST_JOBS)"; \
	NVCC="$(KC_TEST_NVCC)" KC_TEST_MUTANTS="$(KC_TEST_MUTANTS)" KC_CACHE_DIR=off KC_COSTS= KC_SANITIZER_HOST_MIB=0 KC_SANITIZER_GPU_MIB=0 TMPDIR=$$tmp KC_BIN=$(B)/kcontract KC_FIXTURE_BIN=$(B)/kcontract-fixture KC_FAKE_NVML=$(B)/libfake_nvml.so \
	KC_FAKE_CUDA=$(B)/libfake_cuda.so KC_FAKE_EXIT0=$(B)/libfake_exit0.so KC_FAKE_EXIT0_RAW=$(B)/libfake_exit0_raw.so KC_PRELOAD_FORK=$(B)/libkc_preload_fork.so $(B)/kc_tests --jobs $(TEST_JOBS); rc=$$?; \
	left=$$(find "$$tmp" -mindepth 1 -maxdepth 1 | sed "s|^$$tmp/||" | sort | tr '\n' ' '); rm -rf "$$tmp"; \
	if [ -n "$$left" ]; then \
	    echo "make test: the tests left files in their TMPDIR: $$left(each test removes what it makes)" >&2; \
	    [ $$rc -ne 0 ] || rc=1; \
	fi; \
	exit $$rc

# The library a user's suite links (docs/own-kernels.md): the harness (src/)
# with its own kernel image, static and shared (soname libkcontract.so.N, N
# the ABI version of include/kcontract.h, which registrations carry), and
# libkcontract_main.a with main(). Built position-independent with every
# symbol hidden but kcontract.h's (KC_API).
KC_ABI := $(shell sed -n 's/^\#define KC_ABI_VERSION \([0-9]*\).*/\1/p' include/kcontract.h)
KC_VERSION := $(KC_ABI).0.0
# `kcontract --version` says the package version (main.c; its fallback is the same rule).
$(B)/src/app/main.o: CFLAGS += -DKC_PACKAGE_VERSION='"$(KC_VERSION)"'
$(HARNESS_OBJS) $(B)/src/app/kcontract_main.o: CFLAGS += -fPIC -fvisibility=hidden
LIB_OBJS := $(HARNESS_OBJS) $(HARNESS_EMBED_OBJS)
.PHONY: lib install
lib: $(B)/libkcontract.a $(B)/libkcontract.so.$(KC_VERSION) $(B)/libkcontract_main.a
$(B)/libkcontract.a: $(LIB_OBJS)
	$(KC_SAY) AR $@
	$(KC_Q)rm -f $@ && $(AR) rcs $@ $^
$(B)/libkcontract_main.a: $(B)/src/app/kcontract_main.o
	$(KC_SAY) AR $@
	$(KC_Q)rm -f $@ && $(AR) rcs $@ $^
$(B)/libkcontract.so.$(KC_VERSION): $(LIB_OBJS)
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -shared -Wl,-soname,libkcontract.so.$(KC_ABI) -Wl,-z,defs -o $@ $^ $(LDLIBS)

# make install PREFIX=/usr/local [DESTDIR=staging]: the libraries, the public
# headers (include/ only, never src/), pkg-config's kcontract.pc, the CMake
# package (find_package(kcontract): kcontract_add_suite) and the make rules
# (share/kcontract.mk with kcontract_embed.c), and README.md and docs/*.md
# under share/doc/kcontract (the messages and --help point to them).
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
PUBLIC_HEADERS := include/kcontract.h include/kcontract_dtype.h include/kcontract_device.cuh include/kcontract_rowfold.h include/kcontract_dref_common.cuh include/kcontract_warp_check.cuh include/kcontract_watchdog.cuh
install: lib
	@test -n "$(PREFIX)" || { echo "install: PREFIX is empty" >&2; exit 2; }
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake/kcontract $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/share/kcontract
	install -m 644 $(B)/libkcontract.a $(B)/libkcontract_main.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(B)/libkcontract.so.$(KC_VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libkcontract.so.$(KC_VERSION) $(DESTDIR)$(LIBDIR)/libkcontract.so.$(KC_ABI)
	ln -sf libkcontract.so.$(KC_ABI) $(DESTDIR)$(LIBDIR)/libkcontract.so
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(PREFIX)/include/
	install -m 644 share/kcontract.mk share/kcontract_embed.c share/kcontract_images.ld $(DESTDIR)$(PREFIX)/share/kcontract/
	install -m 755 share/kcontract_digest.sh share/kcontract_patch.sh $(DESTDIR)$(PREFIX)/share/kcontract/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@VERSION@|$(KC_VERSION)|g' \
	  -e 's|@CUDA_HOME@|$(CUDA_HOME)|g' share/kcontract.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/kcontract.pc
	sed -e 's|@VERSION@|$(KC_VERSION)|g' share/kcontractConfigVersion.cmake.in \
	  > $(DESTDIR)$(LIBDIR)/cmake/kcontract/kcontractConfigVersion.cmake
	sed -e 's|@PREFIX@|$(PREFIX)|g' share/kcontractConfig.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/kcontract/kcontractConfig.cmake
	install -m 644 share/kcontract_embed_source.cmake $(DESTDIR)$(LIBDIR)/cmake/kcontract/
	install -d $(DESTDIR)$(PREFIX)/share/doc/kcontract
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/kcontract/

# The Hopper GEMM checked and timed against cuBLAS and gemm_tc on one GPU
# (bench/gemm_hopper_bench.cu: loads build/fatbin/gemm_wgmma*.fatbin and
# gemm_tc.fatbin; links libcuda through the toolkit's stub, the driver's at run time).
bench-gemm-hopper: $(B)/kc_gemm_hopper_bench $(filter $(B)/fatbin/gemm_wgmma%.fatbin $(B)/fatbin/gemm_tc.fatbin,$(KC_FATBINS) $(FATBINS))
$(B)/kc_gemm_hopper_bench: bench/gemm_hopper_bench.cu
	@mkdir -p $(@D)
	$(KC_SAY) NVCC $@
	$(KC_Q)$(NVCC) -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda -lcublas -lcublasLt

# Host-only benchmark of input generation and float64 references (every contract, staged ones too).
bench: $(B)/kc_ref_bench $(B)/kc_hostmem_bench
$(B)/kc_hostmem_bench: $(B)/bench/hostmem_bench.o $(B)/src/cuda/hostmem.o
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $^ $(LDLIBS)
$(B)/kc_ref_bench: $(B)/bench/reference_bench.o $(HARNESS_OBJS) $(CONTRACT_OBJS) $(STAGING_CONTRACT_OBJS) $(HARNESS_EMBED_OBJS) $(MAIN_EMBED_OBJS) $(STAGING_EMBED_OBJS)
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $^ $(LDLIBS)

# Items side by side on one GPU (issue 23, part 1): the bundled contracts'
# items serially and on K lanes of one context (bench/inflight_items.c);
# kc_inflight_bench_fixture runs the fixture contracts through the fake driver.
bench-inflight: $(B)/kc_inflight_bench
$(B)/kc_inflight_bench: $(B)/bench/inflight_items.o $(B)/bench/driver_trace.o $(HARNESS_OBJS) $(CONTRACT_OBJS) $(HARNESS_EMBED_OBJS) $(MAIN_EMBED_OBJS) share/kcontract_images.ld
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $(filter %.o,$^) $(KC_IMAGES_LD) $(LDLIBS)
$(B)/kc_inflight_bench_fixture: $(B)/bench/inflight_items.o $(B)/bench/driver_trace.o $(HARNESS_OBJS) $(FIXTURE_OBJS) $(FAKE_EMBED_OBJS) share/kcontract_images.ld
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $(filter %.o,$^) $(KC_IMAGES_LD) $(LDLIBS)

# How long another context waits for the GPU beside a sanitizer session or
# a run (bench/ctx_stall_probe.c; issue 23): the driver only, no contract.
bench-ctx-stall: $(B)/kc_ctx_stall_probe
$(B)/kc_ctx_stall_probe: $(B)/bench/ctx_stall_probe.o $(B)/src/cuda/cuda_driver.o $(B)/src/util/strict_num.o \
                         $(B)/src/util/clock.o
	$(KC_SAY) LD $@
	$(KC_Q)$(CC) -o $@ $^ $(LDLIBS)

# Where the GPU's own time goes in a run (issue 23): a CUDA injection library
# that traces every kernel, memset and copy with CUPTI (bench/kernel_time_inject.c;
# bench/kernel_time.sh runs a kcontract command under it, bench/kernel_time.py sums).
CUPTI_LIBDIR ?= $(patsubst %/,%,$(dir $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/lib64/libcupti.so \
                 $(CUDA_HOME)/lib64/libcupti.so $(CUDA_HOME)/lib/libcupti.so $(CUDA_HOME)/targets/*/lib/libcupti.so))))
CUPTI_INC ?= $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/include) $(CUDA_HOME)/include)
bench-kernel-time: $(B)/libkc_kernel_time.so
$(B)/libkc_kernel_time.so: bench/kernel_time_inject.c
	@mkdir -p $(@D)
	@[ -n "$(CUPTI_LIBDIR)" ] || { echo "bench-kernel-time: no libcupti.so under $(CUDA_HOME) (extras/CUPTI/lib64, lib64, lib, targets/*/lib); set CUPTI_LIBDIR" >&2; exit 2; }
	$(KC_SAY) CC $@
	$(KC_Q)$(CC) -O2 -Wall -Wextra -fPIC -shared -I$(CUPTI_INC) -I$(CUDA_HOME)/include -o $@ $< \
	  -L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -lcupti -lpthread

clean:
	rm -rf $(B)

# Issue 13: the host tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/, reusing this build's fatbins), and
# each fuzz target of the parsers briefly (build-fuzz/, clang's libFuzzer).
.PHONY: sanitize fuzz
sanitize: all
	sh tools/sanitize-test.sh
fuzz:
	sh tools/fuzz.sh ci 10

-include $(shell find $(B) -name '*.d' 2>/dev/null)
