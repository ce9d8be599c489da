// delta_rule.cu — one decode step of the gated delta rule (Gated DeltaNet,
// Yang, Kautz and Hatamizadeh 2024) for every (sequence, head):
//   S' = alpha * S (I - beta k k^T) + beta v k^T        S: [d_v, d_k]
//   o  = S' q
// stored transposed as H = S^T: [d_k, d_v] row-major per head (the layout of
// flash-linear-attention's fused_recurrent_gated_delta_rule), which reads
//   u  = H^T k                      (u_j = sum_i H[i][j] k[i])
//   vn = beta * (v - alpha * u)
//   H' = alpha * H + k vn^T         (H'[i][j] = alpha H[i][j] + k[i] vn[j])
//   o  = H'^T q                     (o_j = sum_i H'[i][j] q[i])
// H (f32) is updated in place; q, k, v in f32 / bf16, alpha and beta f32 per
// head, o f32 [heads, d_v]. No q scaling or normalization inside (the caller's).
// Heads are laid out [seqs, H]. A block (32, 4, 2) handles 2 heads of one
// sequence and 32 columns j: threadIdx.x = column, threadIdx.y = row group
// (rows i = ty + 4r, d_k <= 128), threadIdx.z = head of the pair. Column
// partial sums meet in shared memory in a fixed order (deterministic).
#include <cuda_bf16.h>

#define DR_TV 32
#define DR_RG 4
#define DR_HB 2
#define DR_MAXR 32   // rows per thread: d_k <= DR_RG * DR_MAXR = 128

__device__ __forceinline__ float ld_f(const float* p) { return __ldg(p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }

template <class T>
__device__ __forceinline__ void delta_step(float* __restrict__ o, float* __restrict__ S, const T* __restrict__ q,
                                           const T* __restrict__ k, const T* __restrict__ v,
                                           const float* __restrict__ alpha, const float* __restrict__ beta,
                                           int H, int K, int V) {
    __shared__ float red[DR_HB][DR_RG][DR_TV];
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int hblocks = (H + DR_HB - 1) / DR_HB;
    const int seq = blockIdx.y / hblocks;
    const int h = (blockIdx.y % hblocks) * DR_HB + tz;
    const int j = blockIdx.x * DR_TV + tx;
#ifdef KC_CONTROL_head_tail_unguarded
    // BUG: no h < H guard for the second head of the pair: with H odd it updates head H of this
    // sequence, i.e. head 0 of the next one (and past the end of every buffer after the last one)
    const bool active = j < V;
#else
    const bool active = h < H && j < V;
#endif
    const size_t g = (size_t)seq * (size_t)H + (size_t)h;   // global head index
    float* Sh = S + g * (size_t)K * (size_t)V;
    const T* qh = q + g * (size_t)K;
    const T* kh = k + g * (size_t)K;
    float a = 0.f, b = 0.f, vj = 0.f;
    float hreg[DR_MAXR];
    float part = 0.f;
    if (active) {
        a = alpha[g];
        b = beta[g];
        vj = ld_f(v + g * (size_t)V + j);
#pragma unroll
        for (int r = 0; r < DR_MAXR; r++) {
            const int i = ty + DR_RG * r;
            if (i < K) {
                hreg[r] = Sh[(size_t)i * V + j];
                part = fmaf(hreg[r], ld_f(kh + i), part);
            }
        }
    }
    red[tz][ty][tx] = part;
#ifndef KC_CONTROL_missing_barrier
    // (the control drops this barrier: u reads other warps' partial sums of H^T k before they are written)
    __syncthreads();
#endif
    const float u = ((red[tz][0][tx] + red[tz][1][tx]) + red[tz][2][tx]) + red[tz][3][tx];
    __syncthreads();   // red is reused below
#ifdef KC_CONTROL_beta_twice
    // BUG: beta applied twice (once to vn, once more in the rank-1 update)
    const float vn = b * (b * (vj - a * u));
#else
    const float vn = b * (vj - a * u);
#endif
    part = 0.f;
    if (active) {
#pragma unroll
        for (int r = 0; r < DR_MAXR; r++) {
            const int i = ty + DR_RG * r;
            if (i < K) {
                const float hn = fmaf(a, hreg[r], ld_f(kh + i) * vn);
                Sh[(size_t)i * V + j] = hn;
                part = fmaf(hn, ld_f(qh + i), part);
            }
        }
    }
    red[tz][ty][tx] = part;
    __syncthreads();
    if (active && ty == 0) o[g * (size_t)V + j] = ((red[tz][0][tx] + red[tz][1][tx]) + red[tz][2][tx]) + red[tz][3][tx];
}

extern "C" __global__ void __launch_bounds__(DR_TV * DR_RG * DR_HB)
delta_rule_f32(float* __restrict__ o, float* __restrict__ S, const float* __restrict__ q, const float* __restrict__ k,
               const float* __restrict__ v, const float* __restrict__ alpha, const float* __restrict__ beta, int H, int K, int V)
{ delta_step(o, S, q, k, v, alpha, beta, H, K, V); }
extern "C" __global__ void __launch_bounds__(DR_TV * DR_RG * DR_HB)
delta_rule_bf16(float* __restrict__ o, float* __restrict__ S, const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                const __nv_bfloat16* __restrict__ v, const float* __restrict__ alpha, const float* __restrict__ beta, int H, int K, int V)
{ delta_step(o, S, q, k, v, alpha, beta, H, K, V); }
