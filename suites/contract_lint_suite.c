/* contract_lint_suite.c — the host-only suite host.contracts.lint: every
 * registered contract through the lint's rules (src/gates/contract_lint.h);
 * and gpu.device.arch, the device the embedded fatbins are built for. */
#include <stdio.h>
#include <string.h>

#include "contract_lint.h"
#include "kcontract.h"
#include "registry.h"
#include "suite.h"

KC_SUITE(suite_contract_lint, "host.contracts.lint", 0)
{
    const kc_contract *const *cs;
    size_t n = kc_registry_contracts(&cs);
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += kc_contract_lint(ctx, cs[i]);   /* every contract: the message says how many failed */
    if (bad > 1) {
        size_t used = strlen(ctx->msg);
        snprintf(ctx->msg + used, sizeof ctx->msg - used, " (and %d more of the %zu contracts have problems)", bad - 1, n);
    }
    return bad > 0;
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
