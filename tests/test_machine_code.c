/* test_machine_code.c — reading a kernel's sm_90 code out of the embedded
 * fatbins (machine_code.h): every bundled contract's kernels are found in
 * their module's sm_90 image, and the setmaxnreg counts read from the code
 * are exactly those the module's source asks for (its `setmaxnreg.inc/dec
 * .sync.aligned.u32 N` lines, or calls of a `setmaxnreg_inc/dec<N>` helper),
 * and none where the source has none; the
 * pool check of the limits item; and refusals of malformed images, each
 * naming what it found. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "machine_code.h"
#include "registry.h"
#include "steps.h"

/* The lowest setmaxnreg.dec and highest setmaxnreg.inc count written in the
 * source file of module (found under kernels/<folder>/<module>.cu), into
 * *dec, *inc (0 when none). 0; -1 when no such file. */
static int source_counts(const char *module, int *dec, int *inc)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls kernels/*/%s.cu 2>/dev/null", module);
    FILE *ls = popen(cmd, "r");
    char path[300] = "";
    if (!ls || !fgets(path, sizeof path, ls)) {
        if (ls) pclose(ls);
        return -1;
    }
    pclose(ls);
    path[strcspn(path, "\n")] = 0;
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "open %s", path);
    *dec = *inc = 0;
    char line[1024];
    /* the PTX line itself, or the gemm's form: a template helper
     * setmaxnreg_dec<N>() of its own header */
    static const char *const dec_forms[] = { "setmaxnreg.dec.sync.aligned.u32 %d", "setmaxnreg_dec<%d>" };
    static const char *const inc_forms[] = { "setmaxnreg.inc.sync.aligned.u32 %d", "setmaxnreg_inc<%d>" };
    while (fgets(line, sizeof line, f))
        for (int form = 0; form < 2; form++) {
            const char *p = strstr(line, form ? "setmaxnreg_" : "setmaxnreg.");
            int n;
            if (!p) continue;
            if (sscanf(p, dec_forms[form], &n) == 1 && (!*dec || n < *dec)) *dec = n;
            if (sscanf(p, inc_forms[form], &n) == 1 && n > *inc) *inc = n;
        }
    fclose(f);
    return 0;
}

Test(machine_code, every_bundled_kernel_is_read_and_its_setmaxnreg_matches_its_source)
{
    const kc_contract *const *cs;
    const size_t n = kc_registry_contracts(&cs);
    int kernels = 0, with_setmaxnreg = 0;
    for (size_t i = 0; i < n; i++) {
        const kc_contract *c = cs[i];
        if (!c->module || c->library) continue;
        const kc_fatbin *fb = kc_fatbin_find(c->module, NULL);
        if (!fb) continue;   /* staging or a module this binary does not embed */
        int dec, inc;
        if (source_counts(c->module, &dec, &inc)) continue;   /* a test fixture's module */
        const unsigned char *elf, *code;
        size_t elf_n, code_n;
        char why[300] = "";
        cr_assert_eq(kc_fatbin_elf(fb->start, (size_t)(fb->end - fb->start), 90, &elf, &elf_n, why, sizeof why), 0,
                     "module %s: sm_90 image: %s", c->module, why);
        kc_step_plan st[KC_MAX_STEPS];
        const int steps = kc_contract_steps(c, st, why, sizeof why);
        cr_assert_gt(steps, 0, "contract %s: steps: %s", c->name, why);
        for (int s = 0; s < steps; s++) {
            cr_assert_eq(kc_elf_function_code(elf, elf_n, st[s].symbol, &code, &code_n, why, sizeof why), 0,
                         "contract %s: %s", c->name, why);
            kc_setmaxnreg r;
            cr_assert_eq(kc_sm90_setmaxnreg(code, code_n, &r, why, sizeof why), 0, "contract %s: %s", c->name, why);
            cr_expect_eq(r.dealloc_min, dec, "contract %s (%s): setmaxnreg.dec read %d, the source's lowest is %d",
                         c->name, st[s].symbol, r.dealloc_min, dec);
            cr_expect_eq(r.alloc_max, inc, "contract %s (%s): setmaxnreg.inc read %d, the source's highest is %d",
                         c->name, st[s].symbol, r.alloc_max, inc);
            kernels++;
            with_setmaxnreg += r.n > 0;
        }
    }
    cr_assert_gt(kernels, 50, "only %d bundled kernels were read", kernels);
    cr_assert_gt(with_setmaxnreg, 0, "no bundled kernel with setmaxnreg was read (attn_prefill_hopper has)");
}

Test(machine_code, pool_check_counts_the_warpgroups_that_can_hold_the_largest_ask)
{
    /* attn_prefill_hopper: 3 warpgroups of 168, the producer down to 24, two
     * consumers up to 240: 24 + 2 x 240 = 3 x 168 exactly */
    kc_setmaxnreg attn = { 2, 24, 240 };
    cr_expect_eq(kc_setmaxnreg_holders(&attn, 168, 384), 2);
    /* a consumer asking 8 more: only one of them is ever granted, the other waits */
    kc_setmaxnreg greedy = { 2, 24, 248 };
    cr_expect_eq(kc_setmaxnreg_holders(&greedy, 168, 384), 1);
    /* nothing released, the others keep their 168: none can reach 240 */
    kc_setmaxnreg no_release = { 1, 0, 240 };
    cr_expect_eq(kc_setmaxnreg_holders(&no_release, 168, 256), 0);
    /* a release to more than the entry count releases nothing */
    kc_setmaxnreg odd = { 2, 200, 240 };
    cr_expect_eq(kc_setmaxnreg_holders(&odd, 168, 256), 0);
    /* all of them at once */
    kc_setmaxnreg all = { 1, 0, 200 };
    cr_expect_eq(kc_setmaxnreg_holders(&all, 200, 512), 4);
    kc_setmaxnreg none = { 1, 24, 0 };
    cr_expect_eq(kc_setmaxnreg_holders(&none, 168, 384), -1);
    cr_expect_eq(kc_setmaxnreg_holders(&attn, 168, 64), -1);
}

Test(machine_code, malformed_images_are_refused_naming_what_was_found)
{
    char why[300] = "";
    const unsigned char *elf, *code;
    size_t elf_n, code_n;
    unsigned char junk[64] = { 1, 2, 3, 4 };
    cr_assert_eq(kc_fatbin_elf(junk, sizeof junk, 90, &elf, &elf_n, why, sizeof why), 1);
    cr_expect(strstr(why, "magic 0x04030201"), "%s", why);
    /* a header that claims more than there is */
    unsigned char hdr[48] = { 0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0xff, 0xff };
    cr_assert_eq(kc_fatbin_elf(hdr, sizeof hdr, 90, &elf, &elf_n, why, sizeof why), -1);
    cr_expect(strstr(why, "fatbin header of 48 bytes"), "%s", why);
    /* a real image asked for an architecture it does not hold */
    const kc_fatbin *fb = kc_fatbin_find("rmsnorm", NULL);
    cr_assert_not_null(fb);
    cr_assert_eq(kc_fatbin_elf(fb->start, (size_t)(fb->end - fb->start), 75, &elf, &elf_n, why, sizeof why), 1);
    cr_expect(strstr(why, "no sm_75 image"), "%s", why);
    cr_assert_eq(kc_fatbin_elf(fb->start, (size_t)(fb->end - fb->start), 90, &elf, &elf_n, why, sizeof why), 0, "%s",
                 why);
    cr_assert_eq(kc_elf_function_code(elf, elf_n, "no_such_kernel", &code, &code_n, why, sizeof why), -1);
    cr_expect(strstr(why, "no section .text.no_such_kernel"), "%s", why);
    cr_assert_eq(kc_elf_function_code(junk, sizeof junk, "k", &code, &code_n, why, sizeof why), -1);
    cr_expect(strstr(why, "no little-endian ELF64"), "%s", why);
    /* code that is no whole number of instructions; a USETMAXREG of a form not known */
    kc_setmaxnreg r;
    cr_assert_eq(kc_sm90_setmaxnreg(junk, 24, &r, why, sizeof why), -1);
    cr_expect(strstr(why, "24 bytes"), "%s", why);
    unsigned char odd[32] = { 0 };
    odd[0] = 0xc8, odd[1] = 0x79, odd[4] = 0xf0;   /* USETMAXREG 0xf0 ... */
    odd[16] = 0xc8, odd[17] = 0x79, odd[20] = 0xf0, odd[25] = 0x07;   /* ... and one of form 7 at 0x10 */
    odd[9] = 0x06;
    cr_assert_eq(kc_sm90_setmaxnreg(odd, sizeof odd, &r, why, sizeof why), -1);
    cr_expect(strstr(why, "at byte 0x10") && strstr(why, "of form 7"), "%s", why);
}
