/* test_contract_lint.c — the contract lint's rules (src/gates/contract_lint.h,
 * kcontract.h's kc_lint_contracts): a contract that holds them passes, and
 * one that breaks a single rule fails, the message naming the contract, the
 * shape or argument and the rule. The bundled registry holds them all. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "contract_lint.h"
#include "kcontract.h"
#include "suite.h"

static size_t count_n(const kc_shape *s) { return (size_t)s->d[0]; }
static void reference(const kc_ref *r) { (void)r; }

/* The launch each test sets: one thread a element in blocks of `block`,
 * grid y `grid_y`, `smem` bytes of dynamic shared memory. */
static unsigned block = 256, grid_y = 1, smem = 0;
static void launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    (void)dev;
    l->block[0] = block;
    l->grid[0] = (unsigned)((s->d[0] + 255) / 256);
    l->grid[1] = grid_y;
    l->smem = smem;
}

static const kc_shape shapes[] = {
    { "model.4096", KC_SHAPE_MODEL, { 4096 } },
    { "edge.1", KC_SHAPE_EDGE, { 1 } },
    { "large.1e6", KC_SHAPE_LARGE, { 1000000 } },
    { 0 }
};
static const kc_shape empty_shapes[] = {
    { "model.4096", KC_SHAPE_MODEL, { 4096 } },
    { "edge.0", KC_SHAPE_EDGE, { 0 } },
    { "large.1e6", KC_SHAPE_LARGE, { 1000000 } },
    { 0 }
};

/* A contract that holds every rule: two controls, every shape class, the
 * boundary distributions of its floating input. */
static kc_contract good(void)
{
    block = 256, grid_y = 1, smem = 0;
    return (kc_contract){
        .name = "lint.good.f32", .module = "lint", .symbol = "scale",
        .dims = { "n" },
        .args = { KC_BUFFER("out", KC_F32, KC_OUT, count_n), KC_BUFFER("in", KC_F32, KC_IN, count_n) },
        .launch = launch, .shapes = shapes, .reference = reference,
        .dists = { KC_UNIFORM, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
        .controls = { { "off_by_one", 2, "the tail's last element is not written" },
                      { "wrong_scale", 3, "multiplies by 2.5 instead of 2" } },
    };
}

/* kc_contract_lint on c: 0, or 1 with the message in msg. */
static int lint(const kc_contract *c, char *msg, size_t cap)
{
    kc_suite_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    int r = kc_contract_lint(&ctx, c);
    snprintf(msg, cap, "%s", ctx.msg);
    return r;
}

static void expect_fails(const kc_contract *c, const char *words)
{
    char msg[2048];
    cr_expect_eq(lint(c, msg, sizeof msg), 1, "%s: the lint passed it (expected a failure saying '%s')", c->name, words);
    cr_expect(strstr(msg, words), "%s: the message does not say '%s':\n%s", c->name, words, msg);
}

Test(contract_lint, a_contract_that_holds_every_rule_passes)
{
    kc_contract c = good();
    char msg[2048];
    cr_expect_eq(lint(&c, msg, sizeof msg), 0, "the good contract failed: %s", msg);
}

Test(contract_lint, each_broken_rule_fails_naming_it)
{
    kc_contract c = good();
    c.controls[1] = (kc_control){ 0 };
    expect_fails(&c, "contract lint.good.f32 has 1 control(s); each needs at least 2");

    c = good();
    c.shapes = empty_shapes;
    expect_fails(&c, "contract lint.good.f32 shape edge.0: buffer out is empty");

    c = good();
    block = 2048;
    expect_fails(&c, "shape model.4096: block 2048x1x1 is outside CUDA's limits");

    c = good();
    grid_y = 70000;
    expect_fails(&c, "shape model.4096: grid 16x70000x1 is outside CUDA's limits");

    c = good();
    smem = 300000;
    expect_fails(&c, "shape model.4096: 300000 bytes of dynamic shared memory > 232448 on an H200");

    c = good();
    c.tol = (kc_tol){ 0.6, 0, "a guess" };
    expect_fails(&c, "contract lint.good.f32: tolerance rtol 0.6 atol 0 is too loose to catch anything");

    c = good();
    c.dists[3] = 0;     /* KC_DENORMAL dropped */
    expect_fails(&c, "its floating inputs can take the boundary distribution denormal");

    c = good();
    c.no_sanitize = "slow";
    expect_fails(&c, "no_sanitize \"slow\" does not say why");
}

/* Over the registry (every bundled contract is linked into the tests): all hold. */
Test(contract_lint, the_bundled_contracts_hold_every_rule)
{
    kc_suite_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    cr_expect_eq(kc_lint_contracts(&ctx), 0, "%s", ctx.msg);
}
