/* contract_lint_suite.c — the bundled suite's host.contracts.lint (every
 * registered contract through the lint, kc_lint_contracts) and
 * gpu.device.arch, the device the embedded fatbins are built for. */
#include "kcontract.h"

KC_CONTRACT_LINT_SUITE();

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
