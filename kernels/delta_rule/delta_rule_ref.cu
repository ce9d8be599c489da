// delta_rule_ref.cu — delta_rule_ref, the float64 device reference of
// delta_rule.f32 and delta_rule.bf16 (kernels/delta_rule/delta_rule_contract.c):
// the CUDA twin of delta_rule_reference.
//
// For each state g (seqs x heads) and column j < d_v, with a = alpha[g],
// b = beta[g], H = S[g] (d_k x d_v, row-major) and k, q, v of state g:
//     u     = sum over i = 0, 1, ..., d_k-1 of H[i][j] * k[i]     (from +0)
//     vn    = b * (v[j] - a * u)
//     H'[i][j] = a * H[i][j] + k[i] * vn                        (into S's reference)
//     o[j]  = sum over i = 0, 1, ..., d_k-1 of H'[i][j] * q[i]   (from +0)
// One thread per (g, j) runs the host's two loops over i in its order, every
// product rounded to double before its sum (-fmad=false) and every input
// decoded exactly (kc_dref_in, the host's kc_ref_in): each of the host's
// per-column sums is one sequential chain, which this thread reproduces.
// Agreement: bitwise.
//
// Launch: the default reference grid, a grid-stride loop over (g, j), j the
// fastest (a warp reads a row of H contiguously). Large shape (8192 states
// of 128 x 128): S read twice (0.5 GB each, the second mostly from L2) and
// S' written (1.1 GB of doubles): ~0.5 ms.
#include "kcontract_device.cuh"

enum { DR_O = 0, DR_S = 1, DR_Q = 2, DR_K = 3, DR_V = 4, DR_ALPHA = 5, DR_BETA = 6 };

extern "C" __global__ void delta_rule_ref(kc_dref r)
{
    const long long K = r.shape.d[2], V = r.shape.d[3];
    KC_GRID_STRIDE(idx, r.count[DR_O]) {
        const long long g = (long long)idx / V, j = (long long)idx % V;
        const double a = kc_dref_in(r, DR_ALPHA, (size_t)g), b = kc_dref_in(r, DR_BETA, (size_t)g);
        const size_t s0 = (size_t)(g * K * V);
        double u = 0;
        for (long long i = 0; i < K; i++)
            u += kc_dref_in(r, DR_S, s0 + (size_t)(i * V + j)) * kc_dref_in(r, DR_K, (size_t)(g * K + i));
        const double vn = b * (kc_dref_in(r, DR_V, (size_t)(g * V + j)) - a * u);
        double o = 0;
        for (long long i = 0; i < K; i++) {
            const size_t e = s0 + (size_t)(i * V + j);
            const double h = a * kc_dref_in(r, DR_S, e) + kc_dref_in(r, DR_K, (size_t)(g * K + i)) * vn;
            r.out[DR_S][e] = h;
            o += h * kc_dref_in(r, DR_Q, (size_t)(g * K + i));
        }
        r.out[DR_O][idx] = o;
    }
}
