/* test_args_fake.c — the argument kinds of Hopper kernels (issue 22) run
 * through the real binary and the fake driver (tests/fake/fake_args.c,
 * tests/fixtures/fake_args_contracts.c): a tensor map encoded over its
 * buffer and checked against it, a parameter struct, scalars of every
 * dtype with their exact bits, an in-place alias at an unaligned offset, a
 * pointer array, and the check of each argument's size against the
 * kernel's parameter; each with a control or a broken contract that the
 * gate meant for it must catch. The registry's refusals of malformed
 * argument lists are checked without a run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "support/run_output.h"
#include "support/spawn.h"

/* Expects a line of out that starts with `start` and contains `has` (NULL: anything). */
static void expect_line(const char *out, const char *start, const char *has)
{
    size_t sl = strlen(start);
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, start, sl) != 0) continue;
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[8192];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        cr_expect(!has || strstr(line, has), "'%s' not in:\n%s", has, line);
        return;
    }
    cr_expect(0, "no line starting '%s' in:\n%s", start, out);
}

Test(args_fake, every_argument_kind_passes_and_its_controls_are_red, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeargs.tmap.f32*", "fakeargs.struct.f32*", "fakeargs.scalars.f64*",
                                         "fakeargs.inplace.f32*", "fakeargs.grouped.f32*", "--exclude", "*:limits", NULL },
                            NULL, 30);
    expect_line(p.out, "PASS   fakeargs.tmap.f32  ", "gates 1-4 on 4 cases");
    expect_line(p.out, "PASS   fakeargs.struct.f32  ", "gates 1-4 on 4 cases");
    expect_line(p.out, "PASS   fakeargs.scalars.f64  ", "gates 1-4 on 2 cases");
    expect_line(p.out, "PASS   fakeargs.inplace.f32  ", "gates 1-4 on 4 cases");
    expect_line(p.out, "PASS   fakeargs.grouped.f32  ", "gates 1-4 on 4 cases");
    expect_line(p.out, "RED    fakeargs.tmap.f32:control.box_off_by_one  ", "caught by gate 3");
    expect_line(p.out, "RED    fakeargs.tmap.f32:control.store_whole_box  ",
                "caught by gate 2 (bounds and writes; planted for gate 2): shape edge.5x36 (rows=5, cols=36), dist uniform: out: written past its end");
    expect_line(p.out, "RED    fakeargs.struct.f32:control.x_field_is_y  ", "caught by gate 3");
    expect_line(p.out, "RED    fakeargs.inplace.f32:control.write_before  ",
                "caught by gate 2 (bounds and writes; planted for gate 2): shape model.hidden.4096 (n=4096), dist uniform: x: written before its start (offset byte 4 bytes before element 0, element -1)");
    expect_line(p.out, "RED    fakeargs.grouped.f32:control.next_group  ", "caught by gate 3");
    expect_line(p.out, "RED    fakeargs.grouped.f32:control.table_written  ",
                "caught by gate 2 (bounds and writes; planted for gate 2): shape model.8x512 (groups=8, per=512), dist uniform: pointer array srcs modified: 1 of 8 pointers changed, first srcs[7] was 0x");
    expect_line(p.out, "RED    fakeargs.grouped.f32:control.table_overrun  ",
                "caught by gate 2 (bounds and writes; planted for gate 2): shape model.8x512 (groups=8, per=512), dist uniform: pointer array srcs: written past its end (byte 0 after its 8 pointers)");
    expect_line(p.out, "SUMMARY 5 kernels: 5 pass gates 1-4, 0 fail", "7 controls: 7 red as planted, 0 missed");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
}

Test(args_fake, a_tensor_map_past_its_buffer_or_unaligned_and_a_scalar_of_the_wrong_size_fail_gate_1, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeargs.tmap_past_end.f32", "fakeargs.tmap_unaligned.f32",
                                         "fakeargs.badsize.f32", "fakeargs.alias_past.f32", NULL },
                            NULL, 30);
    expect_line(p.out, "FAIL   fakeargs.tmap_past_end.f32  ",
                "gate 1 (launch and fit): shape model.64x128 (rows=64, cols=128), dist uniform: tensor map x_map over x (rank 2, dims 128x65, strides 512 bytes, box 8x4, swizzle none, 8192 elements of f32): it reaches 33280 bytes from its address, past the 32768 bytes of its buffer");
    expect_line(p.out, "FAIL   fakeargs.tmap_unaligned.f32  ", "(element 0 of its buffer, after the offset) is not 16-byte aligned");
    expect_line(p.out, "FAIL   fakeargs.alias_past.f32  ",
                "internal error: shape model.hidden.4096 (n=4096), dist uniform: alias x_in: offset 30000 elements is not inside x's 4096 elements");
    expect_line(p.out, "FAIL   fakeargs.badsize.f32  ",
                "gate 1 (launch and fit): shape model.hidden.4096 (n=4096), dist uniform: argument n (parameter 3): the kernel's parameter is 8 bytes, the contract passes a scalar (i32) of 4 bytes (cuFuncGetParamInfo)");
    cr_expect_eq(p.status, 1, "exit %d", p.status);
    kc_proc_free(&p);
}

/* ---- the registry's refusals ---- */

static size_t n_elems(const kc_shape *s) { return (size_t)s->d[0]; }
static double one(const kc_shape *s) { (void)s; return 1; }
static void launch1(const kc_shape *s, const kc_device *d, kc_launch *l) { (void)s; (void)d; l->block[0] = 32; }
static void ref0(const kc_ref *r) { (void)r; }
static void map1(const kc_shape *s, kc_tensor_map *m) { (void)s; m->rank = 1; }
static const kc_shape shapes[] = { { "model.1", KC_SHAPE_MODEL, { 16 } }, { 0 } };

/* A contract whose args are out, then a[0..n): its check's problems in err. */
static int check_args(const kc_arg *a, int n, char *err, size_t cap)
{
    kc_contract c = { .name = "t.args", .module = "harness", .symbol = "kc_gen_fill", .launch = launch1, .shapes = shapes,
                      .reference = ref0 };
    c.args[0] = (kc_arg)KC_BUFFER("out", KC_F32, KC_OUT, n_elems);
    for (int i = 0; i < n; i++) c.args[i + 1] = a[i];
    return kc_contract_check(&c, err, cap);
}

Test(args_fake, the_registry_refuses_malformed_argument_kinds)
{
    char err[4096];
    static const kc_param_struct overlapping = {
        .size = 16, .align = 8,
        .fields = { { .name = "p", .offset = 0, .arg = "out" }, { .name = "q", .offset = 4, .dtype = KC_F32, .value = one } },
    };
    static const kc_param_struct wrapping = {    /* offset + size wraps to 0 near SIZE_MAX */
        .size = 16, .align = 8, .fields = { { .name = "w", .offset = (size_t)-8, .dtype = KC_I64, .ivalue = (int64_t (*)(const kc_shape *))n_elems } },
    };
    static const kc_param_struct too_small = { .size = 4, .align = 4, .fields = { { .name = "p", .offset = 0, .arg = "out" } } };
    struct { kc_arg a[2]; int n; const char *want; } cases[] = {
        { { KC_ALIAS("o2", "nope", 0) }, 1, "alias o2 names buffer \"nope\", which the contract does not have" },
        { { KC_TENSOR_MAP("m", "out", NULL) }, 1, "tensor map m has no layout function" },
        { { KC_TENSOR_MAP("m", "s", map1), KC_SCALAR("s", KC_F32, one) }, 2, "tensor map m names s, which is no buffer of its own" },
        { { { .kind = KC_ARG_BUFFER, .name = "c", .dtype = KC_F32, .role = KC_IN, .count = n_elems, .carried = 1 } }, 1,
          "buffer c is carried, but no tensor map, struct field or pointer array passes it" },
        { { KC_STRUCT("st", &overlapping) }, 1, "struct st, fields p and q overlap" },
        { { KC_STRUCT("st", &too_small) }, 1, "struct st, field p at offset 0 (8 bytes, aligned to 8) does not fit its 4 bytes" },
        { { KC_STRUCT("st", &wrapping) }, 1, "struct st, field w at offset 18446744073709551608 (8 bytes, aligned to 8) does not fit its 16 bytes" },
        { { KC_PTR_ARRAY("pa", "out", NULL) }, 1, "pointer array pa has no count function" },
        { { KC_SCALAR_INT("h", KC_F16, NULL) }, 1, "scalar h needs one value function" },
        { { KC_SCALAR("x", KC_F32, one), KC_SCALAR("x", KC_F32, one) }, 2, "two arguments are called x" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_expect_neq(check_args(cases[i].a, cases[i].n, err, sizeof err), 0, "case %zu accepted", i);
        cr_expect(strstr(err, cases[i].want), "case %zu: '%s' not in: %s", i, cases[i].want, err);
    }
    kc_arg ok[] = { KC_SCALAR("h", KC_F16, one), KC_SCALAR_INT("u", KC_U64, NULL) };
    ok[1].ivalue = (int64_t (*)(const kc_shape *))n_elems;
    cr_expect_eq(check_args(ok, 2, err, sizeof err), 0, "f16 and u64 scalars refused: %s", err);
}
