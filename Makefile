# Makefile — builds build/kcontract (harness + contracts + embedded kernel
# fatbins), build/kcontract-fixture (harness + host-only fixture suites and
# fake kernels, for process tests), build/kc_tests (Criterion host tests) and
# the fake drivers build/libfake_{cuda,nvml}.so. Needs gcc and
# nvcc; no GPU. `make test` runs the host tests.
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || echo $(CUDA_HOME)/bin/nvcc)
CUDA_ARCH ?= -gencode arch=compute_90,code=[sm_90,compute_90]
CFLAGS ?= -O2 -g
# Random123's headers (Philox4x32-10, the input streams: src/gen_stream.h)
# come from Debian's librandom123-dev in /usr/include; on a machine without
# it (the GPU machine has no package registry) tools/gpu-deps.sh unpacks the
# carried .deb into .deps/, found here.
R123_INC ?= $(if $(wildcard /usr/include/Random123/philox.h),,-I$(CURDIR)/.deps/usr/include)
# -ffp-contract=off: host references and checks round every operation as
# written, as the device code built with -fmad=false does.
CFLAGS += -std=c11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -ffp-contract=off \
          -D_GNU_SOURCE -Iinclude -Isrc -I$(CUDA_HOME)/include $(R123_INC) -MMD -MP
NVFLAGS ?= -O3 -lineinfo
NVFLAGS += $(CUDA_ARCH) -std=c++17 -Iinclude -Ikernels
LDLIBS = -ldl -lm -lpthread
B = build

HARNESS_SRCS := $(filter-out src/main.c,$(wildcard src/*.c))
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

# One clean fatbin per module plus one per control switch in its source.
# Modules whose float64 arithmetic must round as the host's does are built
# with -fmad=false: the harness's own (kernels/harness/harness.cu: the
# generator and gate 3's tolerance arithmetic, which also include src/'s
# host-and-device headers) and device references (kernels/*/*_ref.cu).
module_of = $(basename $(notdir $(1)))
controls_of = $(shell grep -ohE 'KC_CONTROL_[A-Za-z0-9_]+' $(1) | sed 's/^KC_CONTROL_//' | sort -u)
module_flags = $(if $(filter harness,$(call module_of,$(1))),-fmad=false -Isrc $(R123_INC)) \
               $(if $(filter %_ref,$(call module_of,$(1))),-fmad=false)
FATBINS :=
define fatbin_rules
$(B)/fatbin/$(call module_of,$(1)).fatbin: $(1)
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVFLAGS) $(call module_flags,$(1)) -fatbin -MD -MF $$@.d -o $$@ $$<
FATBINS += $(B)/fatbin/$(call module_of,$(1)).fatbin
$(foreach c,$(call controls_of,$(1)),
$(B)/fatbin/$(call module_of,$(1))@$(c).fatbin: $(1)
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVFLAGS) $(call module_flags,$(1)) -DKC_CONTROL_$(c) -fatbin -MD -MF $$@.d -o $$@ $$<
FATBINS += $(B)/fatbin/$(call module_of,$(1))@$(c).fatbin
)
endef
$(foreach f,$(CU_SRCS),$(eval $(call fatbin_rules,$(f))))
MAIN_FATBINS := $(FATBINS)
FATBINS :=
$(foreach f,$(STAGING_CU_SRCS),$(eval $(call fatbin_rules,$(f))))
STAGING_FATBINS := $(FATBINS)
FATBINS := $(MAIN_FATBINS)

# Library kernels: lib<name>.cu -> build/lib/lib<name>.so (clean) and
# build/lib/lib<name>@<control>.so per KC_CONTROL_<control> in the source, host
# code linked against the shared CUDA runtime (and LIB_LDLIBS_lib<name>) with
# an rpath to $(CUDA_HOME)/lib64. The harness dlopens them from lib/ next to
# its binary (or $KC_LIBDIR). tests/fake/lib*.c are the fake driver's, by gcc.
LIB_NVFLAGS = $(NVFLAGS) -Xcompiler -fPIC,-Wall -shared -cudart shared -L$(CUDA_HOME)/lib64 \
              -Xlinker -rpath=$(CUDA_HOME)/lib64
LIB_LDLIBS_libkc_cublas = -lcublas
HOSTLIBS :=
define hostlib_rules
$(B)/lib/$(call module_of,$(1)).so: $(1) include/kcontract.h
	@mkdir -p $$(@D)
	$$(NVCC) $$(LIB_NVFLAGS) -o $$@ $$< $$(LIB_LDLIBS_$(call module_of,$(1)))
HOSTLIBS += $(B)/lib/$(call module_of,$(1)).so
$(foreach c,$(call controls_of,$(1)),
$(B)/lib/$(call module_of,$(1))@$(c).so: $(1) include/kcontract.h
	@mkdir -p $$(@D)
	$$(NVCC) $$(LIB_NVFLAGS) -DKC_CONTROL_$(c) -o $$@ $$< $$(LIB_LDLIBS_$(call module_of,$(1)))
HOSTLIBS += $(B)/lib/$(call module_of,$(1))@$(c).so
)
endef
$(foreach f,$(LIB_CU_SRCS),$(eval $(call hostlib_rules,$(f))))
FAKE_LIB_SRCS := $(wildcard tests/fake/lib*.c)
define fakelib_rules
$(B)/lib/$(call module_of,$(1)).so: $(1) include/kcontract.h
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -fPIC -shared -o $$@ $$<
FAKE_HOSTLIBS += $(B)/lib/$(call module_of,$(1)).so
$(foreach c,$(call controls_of,$(1)),
$(B)/lib/$(call module_of,$(1))@$(c).so: $(1) include/kcontract.h
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -DKC_CONTROL_$(c) -fPIC -shared -o $$@ $$<
FAKE_HOSTLIBS += $(B)/lib/$(call module_of,$(1))@$(c).so
)
endef
FAKE_HOSTLIBS :=
$(foreach f,$(FAKE_LIB_SRCS),$(eval $(call fakelib_rules,$(f))))

.PHONY: all kernels staging test bench clean
# `make` builds what the suite needs and nothing of the test framework:
# build/kcontract with its library kernels (build/lib/*.so), the staging
# binary, and the fixture binary with the fake drivers (no Criterion either).
# `make test` adds the Criterion tests (build/kc_tests) and runs them.
all: $(B)/kcontract $(B)/kcontract-fixture $(B)/kcontract-staging $(B)/libfake_nvml.so \
     $(B)/libfake_cuda.so $(HOSTLIBS) $(FAKE_HOSTLIBS)
staging: $(B)/kcontract-staging $(HOSTLIBS)
kernels: $(FATBINS)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/gen/fatbins.S $(B)/gen/fatbin_table.c &: $(FATBINS) tools/gen_fatbin_table.sh
	@mkdir -p $(B)/gen
	sh tools/gen_fatbin_table.sh $(B)/gen/fatbins.S $(B)/gen/fatbin_table.c $(FATBINS)
$(B)/gen/fatbins.o: $(B)/gen/fatbins.S
	$(CC) -c -o $@ $<
$(B)/gen/fatbin_table.o: $(B)/gen/fatbin_table.c
	$(CC) $(CFLAGS) -c -o $@ $<

# The fixture binary's "fatbins": fake images "KCFAKE <module> <control or ->"
# for the fake driver (tests/fake/fake_cuda.c), one per module and control
# listed in tests/fixtures/fake_kernels.list, embedded like real ones.
FAKE_FATBINS := $(shell awk '/^[A-Za-z_]/ { for (i = 1; i <= NF; i++) print "$(B)/fakefatbin/" $$1 (i > 1 ? "@" $$i : "") ".fatbin" }' tests/fixtures/fake_kernels.list)
$(B)/fakefatbin/%.fatbin: tests/fixtures/fake_kernels.list
	@mkdir -p $(@D)
	printf 'KCFAKE %s %s\n' $(word 1,$(subst @, ,$*)) $(or $(word 2,$(subst @, ,$*)),-) > $@
$(B)/gen/fake_fatbins.S $(B)/gen/fake_fatbin_table.c &: $(FAKE_FATBINS) tools/gen_fatbin_table.sh
	@mkdir -p $(B)/gen
	sh tools/gen_fatbin_table.sh $(B)/gen/fake_fatbins.S $(B)/gen/fake_fatbin_table.c $(FAKE_FATBINS)
$(B)/gen/fake_fatbins.o: $(B)/gen/fake_fatbins.S
	$(CC) -c -o $@ $<
$(B)/gen/fake_fatbin_table.o: $(B)/gen/fake_fatbin_table.c
	$(CC) $(CFLAGS) -c -o $@ $<

EMBED_OBJS := $(B)/gen/fatbins.o $(B)/gen/fatbin_table.o

$(B)/gen/staging_fatbins.S $(B)/gen/staging_fatbin_table.c &: $(MAIN_FATBINS) $(STAGING_FATBINS) tools/gen_fatbin_table.sh
	@mkdir -p $(B)/gen
	sh tools/gen_fatbin_table.sh $(B)/gen/staging_fatbins.S $(B)/gen/staging_fatbin_table.c $(MAIN_FATBINS) $(STAGING_FATBINS)
$(B)/gen/staging_fatbins.o: $(B)/gen/staging_fatbins.S
	$(CC) -c -o $@ $<
$(B)/gen/staging_fatbin_table.o: $(B)/gen/staging_fatbin_table.c
	$(CC) $(CFLAGS) -c -o $@ $<

# Every kernel, staged families included: for validating them on a GPU.
$(B)/kcontract-staging: $(B)/src/main.o $(HARNESS_OBJS) $(CONTRACT_OBJS) $(STAGING_CONTRACT_OBJS) $(B)/gen/staging_fatbins.o $(B)/gen/staging_fatbin_table.o
	$(CC) -o $@ $^ $(LDLIBS)

# The library kernels are order-only prerequisites: `make build/kcontract`
# brings build/lib/*.so, which its cuBLAS and CUB contracts dlopen.
$(B)/kcontract: $(B)/src/main.o $(HARNESS_OBJS) $(CONTRACT_OBJS) $(EMBED_OBJS) | $(HOSTLIBS)
	$(CC) -o $@ $^ $(LDLIBS)

# The fixture binary: same harness, host-only fixture suites, and the fake
# kernels' contracts with their fake images (run through build/libfake_cuda.so).
$(B)/kcontract-fixture: $(B)/src/main.o $(HARNESS_OBJS) $(FIXTURE_OBJS) $(B)/gen/fake_fatbins.o $(B)/gen/fake_fatbin_table.o
	$(CC) -o $@ $^ $(LDLIBS)

# The tests link every contract, staged ones included, so their references are tested too.
$(B)/kc_tests: $(TEST_OBJS) $(HARNESS_OBJS) $(CONTRACT_OBJS) $(STAGING_CONTRACT_OBJS) $(B)/gen/staging_fatbins.o $(B)/gen/staging_fatbin_table.o
	$(CC) -o $@ $^ $(LDLIBS) -lcriterion -lutil

# A stand-in for libnvidia-ml.so.1, so the NVML code is tested without a GPU.
$(B)/libfake_nvml.so: tests/fake/fake_nvml.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

# A stand-in for libcuda.so.1, so the gates are tested without a GPU.
$(B)/libfake_cuda.so: tests/fake/fake_cuda.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -lm

test: $(B)/kc_tests $(B)/kcontract $(B)/kcontract-fixture $(B)/libfake_nvml.so $(B)/libfake_cuda.so $(HOSTLIBS) \
      $(FAKE_HOSTLIBS)
	KC_BIN=$(B)/kcontract KC_FIXTURE_BIN=$(B)/kcontract-fixture KC_FAKE_NVML=$(B)/libfake_nvml.so \
	KC_FAKE_CUDA=$(B)/libfake_cuda.so $(B)/kc_tests --jobs 2

# Host-only benchmark of input generation and float64 references (every contract, staged ones too).
bench: $(B)/kc_ref_bench $(B)/kc_hostmem_bench
$(B)/kc_hostmem_bench: $(B)/bench/hostmem_bench.o $(B)/src/hostmem.o
	$(CC) -o $@ $^ $(LDLIBS)
$(B)/kc_ref_bench: $(B)/bench/reference_bench.o $(HARNESS_OBJS) $(CONTRACT_OBJS) $(STAGING_CONTRACT_OBJS) $(B)/gen/staging_fatbins.o $(B)/gen/staging_fatbin_table.o
	$(CC) -o $@ $^ $(LDLIBS)

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
