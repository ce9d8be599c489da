/* contract_lint_suite.c — a host-only suite over every registered contract,
 * checked against an H200's launch limits without a GPU: every shape gives
 * non-empty buffers and a launch within CUDA's grid and block limits, every
 * tolerance override is sane, every family has at least two controls. */
#include <stdio.h>
#include <string.h>

#include "kcontract.h"
#include "registry.h"

/* The H200 as measured by `kcontract info` (docs/receipts). */
static const kc_device h200 = {
    .name = "NVIDIA H200", .cc_major = 9, .cc_minor = 0, .sm_count = 132, .max_threads_per_block = 1024,
    .warp_size = 32, .smem_per_block = 49152, .smem_per_block_optin = 232448, .smem_per_sm = 233472,
    .regs_per_sm = 65536, .max_blocks_per_sm = 32, .total_mem = 150754820096ull,
};

static int lint(kc_suite_ctx *ctx, const kc_contract *c)
{
    int controls = 0;
    while (controls < KC_MAX_CONTROLS && c->controls[controls].name) controls++;
    if (controls < 2) return kc_suite_fail(ctx, "contract %s has %d control(s); each needs at least 2", c->name, controls);
    if (c->tol.reason && (c->tol.rtol >= 0.5 || c->tol.atol >= 1.0))
        return kc_suite_fail(ctx, "contract %s: tolerance rtol %g atol %g is too loose to catch anything", c->name,
                             c->tol.rtol, c->tol.atol);
    for (const kc_shape *s = c->shapes; s->name; s++) {
        for (int a = 0; a < KC_MAX_ARGS && c->args[a].kind; a++)
            if (c->args[a].kind == KC_ARG_BUFFER && c->args[a].count(s) == 0)
                return kc_suite_fail(ctx, "contract %s shape %s: buffer %s is empty", c->name, s->name, c->args[a].name);
        if (!c->launch) continue;   /* a library kernel: the library picks its launches */
        kc_launch l = { { 1, 1, 1 }, { 1, 1, 1 }, 0 };
        c->launch(s, &h200, &l);
        unsigned long long threads = (unsigned long long)l.block[0] * l.block[1] * l.block[2];
        if (!threads || threads > 1024 || l.block[2] > 64)
            return kc_suite_fail(ctx, "contract %s shape %s: block %ux%ux%u is outside CUDA's limits", c->name, s->name,
                                 l.block[0], l.block[1], l.block[2]);
        if (!l.grid[0] || !l.grid[1] || !l.grid[2] || l.grid[0] > 2147483647u || l.grid[1] > 65535 || l.grid[2] > 65535)
            return kc_suite_fail(ctx, "contract %s shape %s: grid %ux%ux%u is outside CUDA's limits", c->name, s->name,
                                 l.grid[0], l.grid[1], l.grid[2]);
        if (l.smem > h200.smem_per_block_optin)
            return kc_suite_fail(ctx, "contract %s shape %s: %u bytes of dynamic shared memory > %zu on an H200",
                                 c->name, s->name, l.smem, h200.smem_per_block_optin);
    }
    return 0;
}

KC_SUITE(suite_contract_lint, "host.contracts.lint", 0)
{
    const kc_contract *const *cs;
    size_t n = kc_registry_contracts(&cs);
    for (size_t i = 0; i < n; i++)
        if (lint(ctx, cs[i])) return 1;
    return 0;
}

KC_SUITE(suite_gpu_arch, "gpu.device.arch", 1)
{
    const kc_device *d = kc_suite_device(ctx);
    if (!d) return kc_suite_fail(ctx, "no device");
    if (d->cc_major < 9)
        return kc_suite_fail(ctx, "the embedded fatbins are built for sm_90 (SASS + compute_90 PTX); device %s is compute capability %d.%d",
                             d->name, d->cc_major, d->cc_minor);
    if (d->sm_count <= 0 || d->warp_size != 32)
        return kc_suite_fail(ctx, "device %s reports %d SMs and warp size %d", d->name, d->sm_count, d->warp_size);
    return 0;
}
