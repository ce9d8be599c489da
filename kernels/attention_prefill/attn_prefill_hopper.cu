// attn_prefill_hopper.cu — causal attention for prefill on Hopper (sm_90a),
// in the FlashAttention-3 style: the tensor memory accelerator (TMA) brings Q,
// K and V tiles into shared memory, wgmma computes S = Q K^T and O += P V on
// the tensor cores (P from registers), the softmax is online in f32.
// Grouped-query heads, variable-length batches, head dims 64 and 128, f16 and
// bf16 in and out. The same operation and layout as attn_prefill.cu:
//
//   q   [tokens, q_heads, D]     k, v [tokens, kv_heads, D]     (contiguous)
//   out [tokens, q_heads, D]
//   cu_seqlens [num_seqs + 1] int32: sequence s is tokens [cu[s], cu[s+1]);
//   out[t, h] = softmax_{j <= i}(scale * q[t, h] . k[j, h / G]) @ v[j, h / G]
//   with i, j positions inside t's sequence, G = q_heads / kv_heads.
//
// q, k and v reach the kernel as tensor maps (CUtensorMap, by value), each of
// rank 3 over the whole packed buffer: dims {D, heads, tokens}, box
// {64, 1, 128} (64 elements = 128 bytes, the 128-byte swizzle's row), swizzle
// 128B. One box is 128 rows (tokens) x 64 head dims: a head dim of 128 takes
// two boxes, at d = 0 and d = 64. The attention_prefill contract family
// builds these maps (attention_prefill_contract.c, ah_map_*).
//
// Grid (query tiles of the longest sequence, q heads, sequences), the tiles
// with the most keys first; 384 threads = 3 warpgroups, one block per SM.
//   warpgroup 0, the producer: one thread issues the bulk tensor copies, Q
//     once, then K and V tiles of 128 keys into a 2-stage ring, each stage
//     with "full" barriers (K, V: the copy engine completes their
//     transaction bytes) and an "empty" barrier (the 8 consumer warps arrive
//     once they are done with the stage).
//   warpgroups 1 and 2, the consumers: each owns 64 of the block's 128 query
//     rows. Per key tile, from the diagonal tile down to tile 0: S = Q K^T
//     (wgmma m64n128k16, both from shared memory, K-major), the diagonal
//     tile masked (key > query), row max, P = 2^(S scale log2(e) - m) in f32,
//     O and l rescaled by 2^(m_old - m_new), P rounded to the input type in
//     registers, O += P V (wgmma m64nDk16, A = P from registers, B = V from
//     shared memory, N-major: the transposed operand). At the end O / l is
//     stored for the rows inside the sequence.
// Since a query tile and a key tile are both 128 long, the diagonal tile is
// the first one processed and every row sees at least its own key there: the
// running max is finite from the first tile on (the -inf guard stays, for
// rows that are not).
//
// Rows past a sequence's end inside its last query tile read the next
// sequence's queries (or the copy engine's zeros past the buffer) and are
// never stored. Keys past a sequence's end in its diagonal tile are masked
// for every stored row (key > L - 1 >= query); their V rows are multiplied by
// P = 0, which adds nothing as long as those values are finite (the next
// sequence's values, or zeros past the buffer).
//
// Shared memory (dynamic, aligned to 1024 bytes in the kernel: the 128-byte
// swizzle's pattern repeats every 1024 bytes, and the wgmma descriptors below
// assume it starts on such a boundary): Q [D/64][128 rows][128 B], K and V
// [2 stages][D/64][128 keys][128 B], then the mbarriers. D = 128: 160 KiB +
// barriers; D = 64: 80 KiB + barriers. Deterministic: fixed orders, no atomics.
//
// Built for sm_90a alone (wgmma, setmaxnreg; Makefile: KC_CUDA_ARCH_attn_prefill_hopper).
// On an H200, llama3-8b heads (32 q, 8 kv, d 128), bf16, 16384 tokens in
// sequences of 512 .. 4096: 245 .. 506 TFLOP/s, 26 .. 48 times attn_prefill.cu
// (docs/receipts/2026-12-02-h200-hopper-attention/).
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#define AH_BM 128            // query rows per block
#define AH_BN 128            // keys per tile
#define AH_STAGES 2
#define AH_THREADS 384       // 3 warpgroups
#define AH_BOX_BYTES (128 * 128)   // one box: 128 rows x 64 elements x 2 bytes

// Planted bugs (controls, attention_prefill_contract.c). The transposed-V bit
// of the P V product: 1 (V is N-major, d contiguous) unless v_not_transposed.
#ifdef KC_CONTROL_v_not_transposed
#define AH_TRANS_V 0
#else
#define AH_TRANS_V 1
#endif

// ---- mbarriers and the bulk tensor copy (PTX ISA 9.7.13.15, 9.7.9.25) ----

__device__ __forceinline__ uint32_t ah_smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void ah_bar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// One arrival that also expects `bytes` of transactions (the copies' bytes).
__device__ __forceinline__ void ah_bar_expect(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void ah_bar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Waits until the phase of parity `parity` has completed.
__device__ __forceinline__ void ah_bar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    } while (!done);
}
// One box of a rank-3 map at coordinates (c0, c1, c2), completing on `bar`.
__device__ __forceinline__ void ah_tma_load(uint32_t dst, const CUtensorMap *map, int c0, int c1, int c2, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                 ::"r"(dst), "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar) : "memory");
}

// ---- wgmma (PTX ISA 9.7.15) ----

// A shared-memory matrix descriptor (9.7.15.5.1.2.2): start address, leading
// and stride dimension byte offsets (each >> 4, 14 bits), swizzle mode in
// bits 62-63 (1 = 128B, as the tensor maps write it; 0 = none); base offset 0
// (every tile starts on 1024 bytes).
// K-major 128B-swizzled (Q, K): rows of 128 bytes, 8-row groups 1024 bytes
// apart (SBO); LBO unused (1). N-major (V): 8-key groups 1024 bytes apart
// (SBO), the next 64 head dims (the next box) 16 KiB away (LBO).
__device__ __forceinline__ uint64_t ah_desc(uint32_t addr, uint32_t lbo, uint32_t sbo, uint64_t swizzle = 1)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)((lbo & 0x3FFFF) >> 4) << 16 |
           (uint64_t)((sbo & 0x3FFFF) >> 4) << 32 | swizzle << 62;
}
#ifdef KC_CONTROL_desc_no_swizzle
#define AH_QK_SWIZZLE 0   // BUG: Q and K read unswizzled, though the copies wrote the 128B swizzle
#else
#define AH_QK_SWIZZLE 1
#endif

__device__ __forceinline__ void ah_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void ah_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void ah_wgmma_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
// Keeps the compiler from moving accesses of accumulator registers across
// the asynchronous wgmma (issued with them, completed at the wait).
template <int N>
__device__ __forceinline__ void ah_reg_fence(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
}

#define AH_WGMMA_SS_N128(TY) \
__device__ __forceinline__ void ah_wgmma_ss_n128_##TY(float (&d)[64], uint64_t da, uint64_t db, int acc) \
{ \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32." #TY "." #TY " {" \
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
                 "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
                 "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
                 "%56, %57, %58, %59, %60, %61, %62, %63" \
                 "}, %64, %65, p, 1, 1, 0, 0;\n}\n" \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), \
                   "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), \
                   "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
                   "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
                   "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
                   "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
                   "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
                   "+f"(d[63]) \
                 : "l"(da), "l"(db), "r"(acc)); \
}

#define AH_WGMMA_RS_N128(TY) \
__device__ __forceinline__ void ah_wgmma_rs_n128_##TY(float (&d)[64], const uint32_t (&a)[4], uint64_t db, int acc) \
{ \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n" \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32." #TY "." #TY " {" \
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
                 "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
                 "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
                 "%56, %57, %58, %59, %60, %61, %62, %63" \
                 "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n" \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), \
                   "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), \
                   "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
                   "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
                   "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
                   "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
                   "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
                   "+f"(d[63]) \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(acc), "n"(AH_TRANS_V)); \
}

#define AH_WGMMA_RS_N64(TY) \
__device__ __forceinline__ void ah_wgmma_rs_n64_##TY(float (&d)[32], const uint32_t (&a)[4], uint64_t db, int acc) \
{ \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n" \
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32." #TY "." #TY " {" \
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
                 "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
                 "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n" \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), \
                   "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), \
                   "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
                   "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
                   "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(acc), "n"(AH_TRANS_V)); \
}

AH_WGMMA_SS_N128(bf16)
AH_WGMMA_SS_N128(f16)
AH_WGMMA_RS_N128(bf16)
AH_WGMMA_RS_N128(f16)
AH_WGMMA_RS_N64(bf16)
AH_WGMMA_RS_N64(f16)

// The element type's wgmma calls and its f32 pair -> 32-bit register packing.
template <class T> struct ah_type;
template <> struct ah_type<__nv_bfloat16> {
    static __device__ __forceinline__ void qk(float (&d)[64], uint64_t a, uint64_t b, int acc) { ah_wgmma_ss_n128_bf16(d, a, b, acc); }
    static __device__ __forceinline__ void pv(float (&d)[64], const uint32_t (&a)[4], uint64_t b) { ah_wgmma_rs_n128_bf16(d, a, b, 1); }
    static __device__ __forceinline__ void pv(float (&d)[32], const uint32_t (&a)[4], uint64_t b) { ah_wgmma_rs_n64_bf16(d, a, b, 1); }
    static __device__ __forceinline__ uint32_t pack(float lo, float hi)
    {
        __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&v);
    }
};
template <> struct ah_type<__half> {
    static __device__ __forceinline__ void qk(float (&d)[64], uint64_t a, uint64_t b, int acc) { ah_wgmma_ss_n128_f16(d, a, b, acc); }
    static __device__ __forceinline__ void pv(float (&d)[64], const uint32_t (&a)[4], uint64_t b) { ah_wgmma_rs_n128_f16(d, a, b, 1); }
    static __device__ __forceinline__ void pv(float (&d)[32], const uint32_t (&a)[4], uint64_t b) { ah_wgmma_rs_n64_f16(d, a, b, 1); }
    static __device__ __forceinline__ uint32_t pack(float lo, float hi)
    {
        __half2 v = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&v);
    }
};

// ---- the kernel ----

// Shared memory offsets from the 1024-aligned base, for head dim D.
template <int D>
struct ah_layout {
    static constexpr int CH = D / 64;                                   // boxes per row of D
    static constexpr uint32_t Q = 0;
    static constexpr uint32_t K = Q + CH * AH_BOX_BYTES;                // [stage][chunk] boxes
    static constexpr uint32_t V = K + AH_STAGES * CH * AH_BOX_BYTES;
    static constexpr uint32_t BAR = V + AH_STAGES * CH * AH_BOX_BYTES;  // mbarriers, 8 bytes each
    // full_q, full_k[2], full_v[2], empty[2]
    static constexpr uint32_t BYTES = BAR + 8 * (1 + 3 * AH_STAGES);
};

// Bytes of dynamic shared memory a launch asks for: the layout plus the
// slack to align its base to 1024 bytes.
#define AH_SMEM_BYTES(D) (ah_layout<D>::BYTES + 1024)

template <class T, int D>
__device__ __forceinline__ void ah_attn(T *__restrict__ out, const int *__restrict__ cu_seqlens, int q_heads,
                                        int kv_heads, float scale, const CUtensorMap *tq, const CUtensorMap *tk,
                                        const CUtensorMap *tv)
{
    using Lay = ah_layout<D>;
    constexpr int CH = Lay::CH;
    extern __shared__ uint8_t ah_dyn[];
    const uint32_t base = (ah_smem(ah_dyn) + 1023u) & ~1023u;
    const uint32_t bar_q = base + Lay::BAR;
    const auto bar_k = [&](int s) { return base + Lay::BAR + 8u * (1 + s); };
    const auto bar_v = [&](int s) { return base + Lay::BAR + 8u * (1 + AH_STAGES + s); };
    const auto bar_e = [&](int s) { return base + Lay::BAR + 8u * (1 + 2 * AH_STAGES + s); };

    const int qt = (int)(gridDim.x - 1 - blockIdx.x), h = blockIdx.y, seq = blockIdx.z;
    const int start = cu_seqlens[seq], L = cu_seqlens[seq + 1] - start;
    const int q0 = qt * AH_BM;
    if (q0 >= L) return;                          // the whole block: beyond this sequence
#ifdef KC_CONTROL_gqa_head_modulo
    const int hk = h % kv_heads;                  // BUG: q heads spread over kv heads round-robin, not in groups
#else
    const int hk = h / (q_heads / kv_heads);
#endif
    const int ntiles = (min(q0 + AH_BM, L) - 1) / AH_BN + 1;   // key tiles 0 .. the diagonal one
    const int tid = threadIdx.x, wg = tid / 128;

    if (tid == 0) {
        ah_bar_init(bar_q, 1);
        for (int s = 0; s < AH_STAGES; s++) {
            ah_bar_init(bar_k(s), 1);
            ah_bar_init(bar_v(s), 1);
            ah_bar_init(bar_e(s), 8);             // the 8 consumer warps
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        // ---- producer ----
        asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        if (tid == 0) {
            ah_bar_expect(bar_q, CH * AH_BOX_BYTES);
            for (int c = 0; c < CH; c++) ah_tma_load(base + Lay::Q + c * AH_BOX_BYTES, tq, 64 * c, h, start + q0, bar_q);
            for (int it = 0; it < ntiles; it++) {
                const int s = it % AH_STAGES, kt = ntiles - 1 - it;
                ah_bar_wait(bar_e(s), ((it / AH_STAGES) & 1) ^ 1);   // the stage's previous tile consumed
#ifdef KC_CONTROL_kv_coord_off_by_one
                const int row = start + kt * AH_BN + 1;   // BUG: every K and V tile one token late
#else
                const int row = start + kt * AH_BN;
#endif
                ah_bar_expect(bar_k(s), CH * AH_BOX_BYTES);
                for (int c = 0; c < CH; c++)
                    ah_tma_load(base + Lay::K + (s * CH + c) * AH_BOX_BYTES, tk, 64 * c, hk, row, bar_k(s));
                ah_bar_expect(bar_v(s), CH * AH_BOX_BYTES);
                for (int c = 0; c < CH; c++)
                    ah_tma_load(base + Lay::V + (s * CH + c) * AH_BOX_BYTES, tv, 64 * c, hk, row, bar_v(s));
            }
        }
        return;
    }

    // ---- consumers ----
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
    const int wr = wg - 1;                        // this warpgroup's 64 rows: q0 + 64 wr ..
    const int t = tid % 128, warp = t / 32, lane = t % 32;
    const int row_lo = 64 * wr + 16 * warp + lane / 4;   // block rows of accumulator rows i%4 < 2; +8 for the others
    const float scale_log2 = scale * 1.4426950408889634f;

    float o[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; i++) o[i] = 0.f;
    float m[2] = { -INFINITY, -INFINITY }, l[2] = { 0.f, 0.f };   // running max (scaled, log2 units), partial sums

    ah_bar_wait(bar_q, 0);
    for (int it = 0; it < ntiles; it++) {
        const int s = it % AH_STAGES, kt = ntiles - 1 - it;
        const uint32_t ph = (it / AH_STAGES) & 1;

        // S = Q K^T over D in steps of 16: the step's 32 bytes inside a box row.
        float sc[64];
        ah_bar_wait(bar_k(s), ph);
        ah_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            const uint32_t qa = base + Lay::Q + (kk / 4) * AH_BOX_BYTES + wr * 64 * 128 + (kk % 4) * 32;
            const uint32_t ka = base + Lay::K + (s * CH + kk / 4) * AH_BOX_BYTES + (kk % 4) * 32;
            ah_type<T>::qk(sc, ah_desc(qa, 16, 1024, AH_QK_SWIZZLE), ah_desc(ka, 16, 1024, AH_QK_SWIZZLE), kk > 0);
        }
        ah_wgmma_commit();
        ah_wgmma_wait0();
        ah_reg_fence(sc);

        // Accumulator element i: row row_lo + 8 ((i >> 1) & 1), key column 8 (i >> 2) + 2 (lane % 4) + (i & 1).
        if (kt * AH_BN + AH_BN - 1 > q0 + 64 * wr) {   // the diagonal tile: mask keys after the query
#pragma unroll
            for (int i = 0; i < 64; i++) {
                const int qi = q0 + row_lo + 8 * ((i >> 1) & 1);
                const int kj = kt * AH_BN + 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
#ifdef KC_CONTROL_mask_off_by_one
                if (kj > qi + 1) sc[i] = -INFINITY;   // BUG: each row also sees the next key
#else
                if (kj > qi) sc[i] = -INFINITY;
#endif
            }
        }
        float mx[2] = { m[0], m[1] };
#pragma unroll
        for (int i = 0; i < 64; i++) mx[(i >> 1) & 1] = fmaxf(mx[(i >> 1) & 1], sc[i] * scale_log2);
        float alpha[2], mref[2];
#pragma unroll
        for (int r = 0; r < 2; r++) {
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));   // the 4 lanes of a row
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
            mref[r] = mx[r] == -INFINITY ? 0.f : mx[r];                     // a row with no key yet
#ifdef KC_CONTROL_no_rescale
            alpha[r] = 1.f;                       // BUG: O and l keep the old max's scale
#else
            alpha[r] = exp2f(m[r] - mref[r]);
#endif
            m[r] = mx[r];
        }
        uint32_t p[32];
        float ls[2] = { 0.f, 0.f };
#pragma unroll
        for (int i = 0; i < 64; i += 2) {
            const int r = (i >> 1) & 1;
            const float p0 = exp2f(fmaf(sc[i], scale_log2, -mref[r]));
            const float p1 = exp2f(fmaf(sc[i + 1], scale_log2, -mref[r]));
            ls[r] += p0 + p1;
            p[i / 2] = ah_type<T>::pack(p0, p1);
        }
#pragma unroll
        for (int r = 0; r < 2; r++) l[r] = l[r] * alpha[r] + ls[r];
#pragma unroll
        for (int i = 0; i < D / 2; i++) o[i] *= alpha[(i >> 1) & 1];

        // O += P V over the tile's keys in steps of 16: P's registers 4 kk ..
        // 4 kk + 3 are the A fragment of keys 16 kk .. 16 kk + 15.
        ah_bar_wait(bar_v(s), ph);
        ah_reg_fence(o);
        ah_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < AH_BN / 16; kk++) {
            const uint32_t va = base + Lay::V + s * CH * AH_BOX_BYTES + kk * 16 * 128;
            const uint32_t a[4] = { p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3] };
            ah_type<T>::pv(o, a, ah_desc(va, AH_BOX_BYTES, 1024));
        }
        ah_wgmma_commit();
        ah_wgmma_wait0();
        ah_reg_fence(o);
        __syncwarp();
        if (lane == 0) ah_bar_arrive(bar_e(s));   // this warp is done with the stage
    }

    // O / l for the rows inside the sequence; l summed over the row's 4 lanes.
#pragma unroll
    for (int r = 0; r < 2; r++) {
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int i = q0 + row_lo + 8 * r;
#ifndef KC_CONTROL_rows_past_end_stored
        if (i >= L) continue;
#endif
        // BUG (rows_past_end_stored): rows past the sequence's end are stored
        // too, over the next sequence or past the end of out.
        T *orow = out + ((size_t)(start + i) * q_heads + h) * D;
        const float inv = 1.f / l[r];
#pragma unroll
        for (int j = 0; j < D / 8; j++) {
            const int col = 8 * j + 2 * (lane % 4);
            const uint32_t v = ah_type<T>::pack(o[4 * j + 2 * r] * inv, o[4 * j + 2 * r + 1] * inv);
            *reinterpret_cast<uint32_t *>(orow + col) = v;
        }
    }
}

#define AH_KERNEL(name, T, D) \
extern "C" __global__ void __launch_bounds__(AH_THREADS, 1) \
name(T *__restrict__ out, const int *__restrict__ cu_seqlens, int q_heads, int kv_heads, float scale, \
     const __grid_constant__ CUtensorMap tmap_q, const __grid_constant__ CUtensorMap tmap_k, \
     const __grid_constant__ CUtensorMap tmap_v) \
{ ah_attn<T, D>(out, cu_seqlens, q_heads, kv_heads, scale, &tmap_q, &tmap_k, &tmap_v); }

AH_KERNEL(attn_prefill_hopper_d128_bf16, __nv_bfloat16, 128)
AH_KERNEL(attn_prefill_hopper_d128_f16, __half, 128)
AH_KERNEL(attn_prefill_hopper_d64_bf16, __nv_bfloat16, 64)
AH_KERNEL(attn_prefill_hopper_d64_f16, __half, 64)
