// harness.cu — the harness's own kernels, embedded as module "harness" and
// launched by src/cuda/harness.c; every one runs on the stream of the checked
// kernel, between its launches:
//   kc_smem_poison    fills every word of the dynamic shared memory it is given
//                     with a pattern: 0xFF bytes (a NaN in f16, bf16 and f32)
//                     before a case's first launch, so a kernel launched next
//                     on the same SMs that reads shared memory no thread wrote
//                     sees NaN instead of a lucky zero; 0x7B bytes (large
//                     finite values: 1.3e36 in f32 and bf16, 60768 in f16)
//                     before gate 4's relaunch, since fmaxf and fminf drop a
//                     NaN: such a read then changes the result between the
//                     two launches (src/cuda/harness.h);
//   kc_gen_fill       the built-in input streams (src/core/gen_stream.h), element i
//                     from (key, i) alone: the same bits as the host generator;
//   kc_check_bytes    bytes that differ from an expected value (guard bands);
//   kc_check_unwritten elements still holding poison (in one or two launches);
//   kc_check_differs  elements that differ bitwise between two buffers;
//   kc_check_close    gate 3's tolerance scan against a float64 reference
//                     (and a magnitude per element, for a derived bound).
// The checks write one partial result per block (a contiguous range of the
// elements), folded by src/core/check_rules.h's commutative rules, here within the
// block and on the host across blocks: the count, the first index and the
// worst element equal those of one sequential scan. Built with -fmad=false
// (Makefile) so the tolerance arithmetic rounds as the host's does.
#include "check_rules.h"
#include "gen_stream.h"

#define KC_HARNESS_THREADS 256   // every check kernel runs blocks of this size (src/cuda/harness.h)

extern "C" __global__ void kc_smem_poison(unsigned words, unsigned pattern)
{
    extern __shared__ unsigned kc_smem[];
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) kc_smem[i] = pattern;
    __syncthreads();
    // Keep the stores: a never-true read the compiler cannot prove false.
    if (words == 0xFFFFFFFFu && kc_smem[threadIdx.x] == 0u) kc_smem[0] = 1u;
}

// ---- the built-in streams ----

template <kc_dtype T>
__device__ void gen_loop(void *dst, kc_dist dist, uint64_t key, uint64_t count, int ranged, double lo, double hi)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        if (ranged) kc_stream_put_range(T, key, dst, i, lo, hi);
        else kc_stream_put(T, dist, key, dst, i);
}

// The built-in stream, or with ranged != 0 the ranged stream of [lo, hi].
extern "C" __global__ void kc_gen_fill(void *dst, int dtype, int dist, unsigned long long key, unsigned long long count,
                                       int ranged, double lo, double hi)
{
    kc_dist d = (kc_dist)dist;
    switch ((kc_dtype)dtype) {
    case KC_F64: gen_loop<KC_F64>(dst, d, key, count, ranged, lo, hi); break;
    case KC_F32: gen_loop<KC_F32>(dst, d, key, count, ranged, lo, hi); break;
    case KC_F16: gen_loop<KC_F16>(dst, d, key, count, ranged, lo, hi); break;
    case KC_BF16: gen_loop<KC_BF16>(dst, d, key, count, ranged, lo, hi); break;
    case KC_E4M3: gen_loop<KC_E4M3>(dst, d, key, count, ranged, lo, hi); break;
    case KC_I64: gen_loop<KC_I64>(dst, d, key, count, ranged, lo, hi); break;
    case KC_I32: gen_loop<KC_I32>(dst, d, key, count, ranged, lo, hi); break;
    case KC_U32: gen_loop<KC_U32>(dst, d, key, count, ranged, lo, hi); break;
    case KC_I8: gen_loop<KC_I8>(dst, d, key, count, ranged, lo, hi); break;
    case KC_U8: gen_loop<KC_U8>(dst, d, key, count, ranged, lo, hi); break;
    case KC_I16: gen_loop<KC_I16>(dst, d, key, count, ranged, lo, hi); break;
    case KC_U16: gen_loop<KC_U16>(dst, d, key, count, ranged, lo, hi); break;
    case KC_U64: gen_loop<KC_U64>(dst, d, key, count, ranged, lo, hi); break;
    default: break;
    }
}

// ---- checks: each block scans [begin, end) of n ----

__device__ void block_range(uint64_t n, uint64_t *begin, uint64_t *end)
{
    uint64_t per = (n + gridDim.x - 1) / gridDim.x;
    *begin = per * blockIdx.x;
    *end = *begin + per < n ? *begin + per : n;
    if (*begin > n) *begin = n;
}

// Folds every thread's count into parts[blockIdx.x].
__device__ void count_reduce(kc_count_part mine, kc_count_part *parts)
{
    __shared__ kc_count_part sh[KC_HARNESS_THREADS];
    sh[threadIdx.x] = mine;
    __syncthreads();
    for (unsigned s = KC_HARNESS_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) kc_count_fold(&sh[threadIdx.x], &sh[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) parts[blockIdx.x] = sh[0];
}

__device__ void count_one(kc_count_part *p, uint64_t i)
{
    if (!p->n++) p->first = i;   // a thread's indices only grow
}

extern "C" __global__ void kc_check_bytes(const uint8_t *p, unsigned long long n, unsigned expect, kc_count_part *parts)
{
    uint64_t b, e;
    block_range(n, &b, &e);
    kc_count_part mine = { 0, KC_NO_INDEX };
    for (uint64_t i = b + threadIdx.x; i < e; i += blockDim.x)
        if (p[i] != (uint8_t)expect) count_one(&mine, i);
    count_reduce(mine, parts);
}

// Element i's bits as an unsigned integer of ES bytes.
template <int ES> struct elem_t;
template <> struct elem_t<1> { typedef uint8_t t; };
template <> struct elem_t<2> { typedef uint16_t t; };
template <> struct elem_t<4> { typedef uint32_t t; };
template <> struct elem_t<8> { typedef unsigned long long t; };

template <int ES>
__device__ void unwritten_loop(const uint8_t *a, const uint8_t *bb, uint64_t begin, uint64_t end, uint8_t pa, uint8_t pb,
                               kc_count_part *mine)
{
    typedef typename elem_t<ES>::t T;
    const T wa = (T)(0x0101010101010101ULL * pa), wb = (T)(0x0101010101010101ULL * pb);
    const T *x = (const T *)a, *y = (const T *)bb;
    for (uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
        if (x[i] == wa && (!y || y[i] == wb)) count_one(mine, i);
}

extern "C" __global__ void kc_check_unwritten(const uint8_t *a, const uint8_t *b, unsigned long long count,
                                              unsigned esize, unsigned pa, unsigned pb, kc_count_part *parts)
{
    uint64_t lo, hi;
    block_range(count, &lo, &hi);
    kc_count_part mine = { 0, KC_NO_INDEX };
    switch (esize) {
    case 1: unwritten_loop<1>(a, b, lo, hi, (uint8_t)pa, (uint8_t)pb, &mine); break;
    case 2: unwritten_loop<2>(a, b, lo, hi, (uint8_t)pa, (uint8_t)pb, &mine); break;
    case 4: unwritten_loop<4>(a, b, lo, hi, (uint8_t)pa, (uint8_t)pb, &mine); break;
    case 8: unwritten_loop<8>(a, b, lo, hi, (uint8_t)pa, (uint8_t)pb, &mine); break;
    default:
        for (uint64_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
            if (kc_rule_unwritten(a, b, i, esize, (uint8_t)pa, (uint8_t)pb)) count_one(&mine, i);
    }
    count_reduce(mine, parts);
}

template <int ES>
__device__ void differs_loop(const uint8_t *a, const uint8_t *b, uint64_t begin, uint64_t end, kc_count_part *mine)
{
    typedef typename elem_t<ES>::t T;
    const T *x = (const T *)a, *y = (const T *)b;
    for (uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
        if (x[i] != y[i]) count_one(mine, i);
}

extern "C" __global__ void kc_check_differs(const uint8_t *a, const uint8_t *b, unsigned long long count,
                                            unsigned esize, kc_count_part *parts)
{
    uint64_t lo, hi;
    block_range(count, &lo, &hi);
    kc_count_part mine = { 0, KC_NO_INDEX };
    switch (esize) {
    case 1: differs_loop<1>(a, b, lo, hi, &mine); break;
    case 2: differs_loop<2>(a, b, lo, hi, &mine); break;
    case 4: differs_loop<4>(a, b, lo, hi, &mine); break;
    case 8: differs_loop<8>(a, b, lo, hi, &mine); break;
    default:
        for (uint64_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
            if (kc_rule_differs(a, b, i, esize)) count_one(&mine, i);
    }
    count_reduce(mine, parts);
}

// ---- gate 3 ----

// mag NULL: allowed = atol + rtol |ref|; else + mtol mag[i] (kc_rule_allowed_mag).
template <kc_dtype T>
__device__ void close_loop(const void *out, const double *ref, const double *mag, uint64_t begin, uint64_t end,
                           double rtol, double atol, double mtol, kc_cmp_part *mine)
{
    int mb, em;
    kc_rule_ulp_params(T, &mb, &em);
    for (uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
        if (mag)
            kc_cmp_element_allowed(mine, i, kc_cvt_load(T, out, i), ref[i], kc_rule_allowed_mag(ref[i], mag[i], rtol, atol, mtol),
                                   rtol, atol, mb, em);
        else
            kc_cmp_element(mine, i, kc_cvt_load(T, out, i), ref[i], rtol, atol, mb, em);
}

extern "C" __global__ void kc_check_close(const void *out, int dtype, const double *ref, unsigned long long n,
                                          double rtol, double atol, const double *mag, double mtol, kc_cmp_part *parts)
{
    uint64_t lo, hi;
    block_range(n, &lo, &hi);
    kc_cmp_part mine = kc_cmp_empty();
    switch ((kc_dtype)dtype) {
#define CLOSE(T) case T: close_loop<T>(out, ref, mag, lo, hi, rtol, atol, mtol, &mine); break
    CLOSE(KC_F64); CLOSE(KC_F32); CLOSE(KC_F16); CLOSE(KC_BF16); CLOSE(KC_E4M3);
    CLOSE(KC_I64); CLOSE(KC_I32); CLOSE(KC_U32); CLOSE(KC_I8); CLOSE(KC_U8); CLOSE(KC_I16); CLOSE(KC_U16); CLOSE(KC_U64);
#undef CLOSE
    default: break;
    }
    __shared__ kc_cmp_part sh[KC_HARNESS_THREADS];
    sh[threadIdx.x] = mine;
    __syncthreads();
    for (unsigned s = KC_HARNESS_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) kc_cmp_fold(&sh[threadIdx.x], &sh[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) parts[blockIdx.x] = sh[0];
}
