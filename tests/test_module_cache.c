/* test_module_cache.c — module copies kept for a per-thread session's lanes
 * (src/cuda/module_cache.h) and what decides that an image may be kept
 * (kc_elf_global_bytes, machine_code.h): an image's device variables are
 * read from its ELF (none in any bundled module); a kept copy is handed to
 * one item at a time and, handed out again, its functions have the
 * attributes of a fresh load; a legacy session loads and unloads per item;
 * an image with variables is never kept. Through the fake driver in this
 * process. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "gpu.h"
#include "gpu_open.h"
#include "machine_code.h"
#include "module_cache.h"

static void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xffff), put16(p + 2, v >> 16); }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v), put32(p + 4, (uint32_t)(v >> 32)); }

/* An ELF64 image of sections .shstrtab, .text.k and, with `globals`,
 * .nv.global (NOBITS, 16 bytes) and .nv.global.init (8 bytes) into buf. */
static size_t tiny_elf(unsigned char *buf, size_t cap, int globals)
{
    static const char names[] = "\0.shstrtab\0.text.k\0.nv.global\0.nv.global.init";
    const uint32_t name_of[] = { 0, 1, 11, 19, 30 };
    const uint64_t size_of[] = { 0, sizeof names, 32, 16, 8 };
    const size_t nsec = globals ? 5 : 3, shoff = 64 + 64;
    cr_assert(cap >= shoff + nsec * 64);
    memset(buf, 0, cap);
    memcpy(buf, "\177ELF", 4);
    buf[4] = 2, buf[5] = 1;
    put64(buf + 0x28, shoff);
    put16(buf + 0x3a, 64);
    put16(buf + 0x3c, (unsigned)nsec);
    put16(buf + 0x3e, 1);
    memcpy(buf + 64, names, sizeof names);
    for (size_t i = 1; i < nsec; i++) {
        unsigned char *sh = buf + shoff + i * 64;
        put32(sh, name_of[i]);
        put64(sh + 0x18, i == 1 ? 64 : i == 2 ? 64 : 0);   /* .text.k's bytes: any inside the image */
        put64(sh + 0x20, size_of[i]);
    }
    return shoff + nsec * 64;
}

Test(module_cache, device_variables_are_read_from_the_elf_and_no_bundled_module_has_any)
{
    unsigned char elf[512];
    char why[200] = "";
    size_t bytes = 99, n = tiny_elf(elf, sizeof elf, 1);
    cr_assert_eq(kc_elf_global_bytes(elf, n, &bytes, why, sizeof why), 0, "%s", why);
    cr_expect_eq(bytes, 24, ".nv.global 16 + .nv.global.init 8 bytes, read %zu", bytes);
    n = tiny_elf(elf, sizeof elf, 0);
    cr_assert_eq(kc_elf_global_bytes(elf, n, &bytes, why, sizeof why), 0, "%s", why);
    cr_expect_eq(bytes, 0);
    cr_expect_eq(kc_elf_global_bytes((const unsigned char *)"junk", 4, &bytes, why, sizeof why), -1);
    cr_expect(strstr(why, "no little-endian ELF64"), "%s", why);
    int modules = 0;
    for (int i = 0; i < kc_fatbin_count(); i++) {
        const kc_fatbin *fb = kc_fatbin_at(i);
        const unsigned char *e;
        size_t en;
        if (kc_fatbin_elf(fb->start, (size_t)(fb->end - fb->start), 90, &e, &en, why, sizeof why)) continue;
        cr_assert_eq(kc_elf_global_bytes(e, en, &bytes, why, sizeof why), 0, "%s: %s", fb->module, why);
        cr_expect_eq(bytes, 0, "module %s%s%s has %zu bytes of device variables: kernels/ declares none", fb->module,
                     fb->control ? "@" : "", fb->control ? fb->control : "", bytes);
        cr_expect(kc_module_shareable(fb, 90), "module %s may be kept", fb->module);
        cr_expect(!kc_module_shareable(fb, 75), "module %s has no sm_75 ELF: its PTX is not read, so not kept", fb->module);
        modules++;
    }
    cr_expect_gt(modules, 20, "only %d bundled images read", modules);
}

static kc_fatbin text_image(const char *text)
{
    return (kc_fatbin){ "t", NULL, (const unsigned char *)text, (const unsigned char *)text + strlen(text), "0" };
}

Test(module_cache, a_text_image_is_kept_unless_it_declares_a_global_variable)
{
    kc_fatbin fake = text_image("KCFAKE fake_axpy -\n");
    kc_fatbin ptx = text_image(".visible .entry k(\n.param .u64 p)\n{\nld.global.f32 %f1, [%rd1];\nst.global.f32 [%rd1], %f1;\n}\n");
    kc_fatbin var = text_image(".visible .global .align 4 .u32 counter;\n.visible .entry k()\n{\n}\n");
    cr_expect(kc_module_shareable(&fake, 90));
    cr_expect(kc_module_shareable(&ptx, 90), "ld.global/st.global are no variable");
    cr_expect(!kc_module_shareable(&var, 90), "a .global variable keeps state between items");
}

static kc_gpu g;

static void open_fake(int per_thread)
{
    const char *lib = getenv("KC_FAKE_CUDA");
    cr_assert_eq(setenv("KC_LIBCUDA", lib && *lib ? lib : "build/libfake_cuda.so", 1), 0);
    cr_assert_eq(kc_gpu_open_streams(&g, 0, per_thread), 0, "%s", g.why);
    cr_assert_eq(g.share_modules, per_thread);
}

static void close_fake(void) { kc_gpu_close(&g); }

Test(module_cache, a_kept_copy_goes_to_one_item_at_a_time_with_fresh_attributes, .fini = close_fake)
{
    open_fake(1);
    kc_fatbin fb = text_image("KCFAKE fake_axpy -\n");
    CUmodule a, b, c;
    CUfunction f;
    int held, v;
    cr_assert_eq(kc_module_take(&g, &fb, &a), CUDA_SUCCESS);
    cr_assert_eq(kc_module_take(&g, &fb, &b), CUDA_SUCCESS);
    cr_expect_neq(a, b, "two items at once must not share one copy");
    cr_expect_eq(kc_module_cache_count(&g, &held), 2);
    cr_expect_eq(held, 2);
    cr_assert_eq(kc_module_function(&g, a, "fake_axpy_f32", &f), CUDA_SUCCESS);
    cr_assert_eq(g.cu.FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000), CUDA_SUCCESS);
    cr_assert_eq(g.cu.FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), CUDA_SUCCESS);
    kc_module_give(&g, a);
    kc_module_give(&g, b);
    cr_expect_eq(kc_module_cache_count(&g, &held), 2, "given back copies stay loaded");
    cr_expect_eq(held, 0);
    cr_assert_eq(kc_module_take(&g, &fb, &c), CUDA_SUCCESS);
    cr_expect(c == a || c == b, "a free kept copy must be reused, not loaded again");
    if (c == a) {
        cr_assert_eq(kc_module_function(&g, c, "fake_axpy_f32", &f), CUDA_SUCCESS);
        cr_assert_eq(g.cu.FuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f), CUDA_SUCCESS);
        cr_expect_eq(v, 0, "the dynamic shared memory limit an earlier item raised is back at %d, expected 0", v);
        cr_assert_eq(g.cu.FuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, f), CUDA_SUCCESS);
        cr_expect_eq(v, 0, "the non-portable cluster permission an earlier item set must be withdrawn");
    }
    kc_module_give(&g, c);
    kc_module_cache_close(&g);
    cr_expect_eq(kc_module_cache_count(&g, NULL), 0);
}

Test(module_cache, a_legacy_session_or_an_image_with_variables_loads_and_unloads_per_item, .fini = close_fake)
{
    open_fake(0);
    kc_fatbin fb = text_image("KCFAKE fake_axpy -\n");
    CUmodule a;
    cr_assert_eq(kc_module_take(&g, &fb, &a), CUDA_SUCCESS);
    cr_expect_eq(kc_module_cache_count(&g, NULL), 0, "a legacy session keeps no copy");
    cr_expect(!kc_module_kept(a));
    kc_module_give(&g, a);
    kc_gpu_close(&g);

    open_fake(1);
    kc_fatbin var = text_image("KCFAKE fake_axpy -\n.global .u32 x;\n");
    cr_assert_eq(kc_module_take(&g, &var, &a), CUDA_SUCCESS);
    cr_expect_eq(kc_module_cache_count(&g, NULL), 0, "an image with a variable must not be kept");
    kc_module_give(&g, a);
}
