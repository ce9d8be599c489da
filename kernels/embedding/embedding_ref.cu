// embedding_ref.cu — embedding_ref, the float64 device reference of
// embedding.f16 and embedding.bf16 (kernels/embedding/embedding_contract.c):
// the CUDA twin of embedding_reference.
//
//     out[t, j] = table[ids[t], j]   if 0 <= ids[t] < vocab,   else +0
//
// for every t < tokens (d[0]) and j < hidden (d[2]), vocab = d[1]: every
// element of out, as on the host. Nothing is computed: the table's element is
// decoded exactly (kc_dref_in, the host's kc_ref_in), NaN and inf included,
// and the id is the host's (int64_t) of the exact i32. Agreement: bitwise.
//
// Launch: the default reference grid, one output element per grid-stride step.
// Large shape (256 tokens x 8192): 2.1e6 elements, reading 4 MB of the 2.5 GB
// table: a few microseconds.
#include "kcontract_device.cuh"

enum { EM_OUT = 0, EM_TABLE = 1, EM_IDS = 2 };

extern "C" __global__ void embedding_ref(kc_dref r)
{
    const long long vocab = r.shape.d[1], hidden = r.shape.d[2];
    double *out = r.out[EM_OUT];
    KC_GRID_STRIDE(e, r.count[EM_OUT]) {
        const long long t = (long long)(e / (unsigned long long)hidden), j = (long long)(e % (unsigned long long)hidden);
        const long long id = (long long)kc_dref_in(r, EM_IDS, (size_t)t);
        out[e] = (id >= 0 && id < vocab) ? kc_dref_in(r, EM_TABLE, (size_t)(id * hidden + j)) : 0.0;
    }
}
