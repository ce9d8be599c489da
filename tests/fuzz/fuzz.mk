# fuzz.mk — the fuzz targets of the parsers of outside input (issue 13,
# docs/fuzzing.md), for libFuzzer through Debian's clang, with
# AddressSanitizer and UndefinedBehaviorSanitizer, in build-fuzz/ (no GPU,
# no nvcc: the harness image is a stub). Used by tools/fuzz.sh:
#     make -f tests/fuzz/fuzz.mk -j2
FUZZ_CC ?= clang
CUDA_HOME ?= /usr/local/cuda
B := build-fuzz
# The layers as the Makefile lists them (one list: a layer added there is built here too).
SRC_LAYERS := $(shell sed -n 's/^SRC_LAYERS[[:space:]]*:*=[[:space:]]*//p' Makefile)
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS_FUZZ := -g -O1 $(SAN) -std=c11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
               -D_GNU_SOURCE -Iinclude $(SRC_LAYERS:%=-Isrc/%) -I$(CUDA_HOME)/include -MMD -MP
TARGETS := tally result costs records mergelog cli
# The harness and every contract (the records target looks contracts up by
# name and sizes their buffers); the fatbins are never loaded.
LIB_SRCS := $(filter-out src/app/kcontract_main.c,$(wildcard $(SRC_LAYERS:%=src/%/*.c))) $(wildcard kernels/*/*.c) tests/fuzz/fuzz_stubs.c
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)

.PHONY: all
all: $(TARGETS:%=$(B)/fuzz_%)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CFLAGS_FUZZ) -fsanitize=fuzzer-no-link -c -o $@ $<

$(B)/fuzz_%: $(B)/tests/fuzz/fuzz_%.o $(LIB_OBJS)
	$(FUZZ_CC) $(SAN) -fsanitize=fuzzer -o $@ $^ -ldl -lm -lpthread

-include $(shell find $(B) -name '*.d' 2>/dev/null)
