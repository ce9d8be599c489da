/* fake_kernels.c — the fake driver's emulated kernels (fake_cuda.h): the
 * fixtures' kernels under test with their planted controls, the harness's
 * own module (its generator and checks, on the rules the CUDA module
 * compiles) and the device references of module fake_ref; the driver calls
 * that load and launch them are fake_cuda_module.c's and fake_cuda_launch.c's. */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_rules.h"
#include "fake_cuda.h"
#include "gen_stream.h"

/* ---- the emulated kernels ---- */

static int is(const launch *l, const char *control) { return strcmp(l->control, control) == 0; }
/* Elements [0, n) that `threads` threads of `per` elements each cover. */
static long long covered(const launch *l, long long n, int per)
{
    unsigned long long m = l->threads * (unsigned long long)per;
    return n < 0 ? 0 : (unsigned long long)n < m ? n : (long long)m;
}

/* fake_axpy_f32(float *y, float *x, float a, long long n): y = a*x + y. */
static CUresult axpy(const launch *l)
{
    float *y = PTR(float, 0), *x = PTR(float, 1), a = F32(2);
    long long n = covered(l, I64(3), 1);
    if (is(l, "fault")) return CUDA_ERROR_ILLEGAL_ADDRESS;          /* planted: a wild pointer */
    for (long long i = 0; i < n; i++) {
        float v = fmaf(a, x[i], y[i]);
        y[i] = v;
        if (is(l, "blind")) y[i] = v;                               /* planted: a redundant, harmless store */
    }
    if (n && is(l, "write_input")) {                                /* planted: scribbles on an input */
        uint32_t b;
        memcpy(&b, &x[0], 4);
        b ^= 1;
        memcpy(&x[0], &b, 4);
    }
    if (n && is(l, "wrong_value")) y[n / 2] += 0.01f * fmaxf(fabsf(y[n / 2]), 1.0f);   /* planted: off by 1e-2 */
    if (n && is(l, "nondeterministic") && fake_launches % 2)        /* planted: 1 ulp that varies per launch */
        y[0] = nextafterf(y[0], INFINITY);
    return CUDA_SUCCESS;
}

/* fake_lowbits_i32(int32_t *out, long long base, long long n): out[i] = the
 * low 16 bits of base, plus i. With base beyond 2^53 the low bits survive
 * only if the harness passed the 64-bit scalar exactly (fakeint.lowbits.i32). */
static CUresult lowbits(const launch *l)
{
    int32_t *out = PTR(int32_t, 0);
    long long base = I64(1), n = covered(l, I64(2), 1);
    for (long long i = 0; i < n; i++) out[i] = (int32_t)(base & 0xffff) + (int32_t)i;
    return CUDA_SUCCESS;
}

/* ex_scale_f32(float *y, const float *x, float a, long long n): y = a x, the
 * kernel of examples/external (its module "scale", built by the installed
 * kcontract's helpers with fake images: tools/external-example.sh). */
static CUresult ex_scale(const launch *l)
{
    float *y = PTR(float, 0);
    const float *x = PTR(const float, 1);
    float a = F32(2);
    long long n = covered(l, I64(3), 1);
    if (n && is(l, "tail_skip")) n--;                               /* planted: the last element is left */
    for (long long i = 0; i < n; i++) y[i] = a * x[i];
    if (n && is(l, "wrong_scale")) y[n / 2] *= 1.01f;               /* planted: one element off by 1% */
    return CUDA_SUCCESS;
}

/* fastsoftmax::softmax_rows<float, 256>(float *y, const float *x, int cols),
 * the third-party kernel of examples/external (module "vendor_softmax", a
 * wrapper that includes the file unchanged; named by its mangled symbol):
 * one block a row, y = expf(x - max) / sum in float. The controls are macros
 * the wrapper defines over CUDA builtins, emulated by which columns the row's
 * max and sum come from: no_shuffle (lanes never combine: thread 0's columns
 * alone), no_barrier (the partials read before the other warps wrote them:
 * warp 0's columns alone); sum_off_by_one, a patch control (the file's
 * sum loop bound cols - 1), by a sum without the last column. */
static int vendor_softmax_sees(const launch *l, int c, int block)
{
    if (is(l, "no_shuffle")) return c % block == 0;
    if (is(l, "no_barrier")) return c % block < 32;
    return 1;
}
static CUresult vendor_softmax(const launch *l)
{
    float *y = PTR(float, 0);
    const float *x = PTR(const float, 1);
    int cols = *(const int *)l->p[2];
    int block = l->blocks ? (int)(l->threads / l->blocks) : 1;
    for (unsigned r = 0; r < l->blocks; r++) {
        const float *xr = x + (size_t)r * (size_t)cols;
        float *yr = y + (size_t)r * (size_t)cols;
        float m = -INFINITY;
        double sum = 0;
        for (int c = 0; c < cols; c++)
            if (vendor_softmax_sees(l, c, block)) m = fmaxf(m, xr[c]);
        for (int c = 0; c < cols; c++)
            if (vendor_softmax_sees(l, c, block) && !(is(l, "sum_off_by_one") && c == cols - 1))
                sum += expf(xr[c] - m);
        for (int c = 0; c < cols; c++) yr[c] = expf(xr[c] - m) / (float)sum;
    }
    return CUDA_SUCCESS;
}

/* f16 <-> float for the emulated kernels (exact, and RNE back). */
static float half_to_float(uint16_t h) { return (float)kc_cvt_f16_to_double(h); }
static uint16_t float_to_half(float f) { return kc_cvt_double_to_f16((double)f); }

/* A planted fault of fake_copy_f16's: after KC_FAKE_FAULT_S seconds when
 * set (a kernel that hangs until its watchdog traps, as gemm_hopper's hang
 * controls do), CUDA_ERROR_ILLEGAL_ADDRESS. */
static CUresult slow_fault(void)
{
    const char *slow = getenv("KC_FAKE_FAULT_S");
    if (slow && atof(slow) > 0) usleep((useconds_t)(atof(slow) * 1e6));
    return CUDA_ERROR_ILLEGAL_ADDRESS;
}

/* fake_copy_f16(uint16_t *out, const uint16_t *in, long long n): out = in. */
static CUresult copy_f16(const launch *l)
{
    uint16_t *out = PTR(uint16_t, 0);
    const uint16_t *in = PTR(const uint16_t, 1);
    long long n = covered(l, I64(2), 1);
    if (n && is(l, "tail_skip")) n--;                               /* planted: the last element is left */
    for (long long i = 0; i < n; i++) out[i] = in[i];
    if (n && is(l, "oob_write")) out[n] = in[n - 1];                /* planted: one element past the end */
    if (is(l, "fault")) return slow_fault();                        /* planted: sticky, like a real fault */
    if (is(l, "late_fault")) fake_late = CUDA_ERROR_ILLEGAL_ADDRESS; /* planted: sticky, seen later (`late`) */
    if (n && is(l, "masked_tail_read")) {                           /* planted: the last element adds 0 x in[n] */
        float past = half_to_float(in[n]), last = half_to_float(out[n - 1]);
        out[n - 1] = float_to_half(last + 0.0f * past);             /* the canary's value vanishes, NaN does not */
    }
    return CUDA_SUCCESS;
}

/* fake_scale_f16(uint16_t *out, const uint16_t *in, float a, float b, long long n):
 * out = a b in, computed in float and rounded once to f16. Its controls stay
 * within f16's tolerance (rtol 1e-3 > one ulp, 2^-10) and only the error
 * statistics see them: truncating_store rounds toward zero, rounded_twice
 * rounds a*in to f16 before multiplying by b. */
static CUresult scale_f16(const launch *l)
{
    uint16_t *out = PTR(uint16_t, 0);
    const uint16_t *in = PTR(const uint16_t, 1);
    float a = F32(2), b = *(const float *)l->p[3];
    long long n = covered(l, *(const long long *)l->p[4], 1);
    for (long long i = 0; i < n; i++) {
        float x = half_to_float(in[i]);
        if (is(l, "rounded_twice")) {
            out[i] = float_to_half(half_to_float(float_to_half(a * x)) * b);
        } else if (is(l, "truncating_store")) {
            double v = (double)(a * b * x), r = kc_cvt_f16_to_double(kc_cvt_double_to_f16(v));
            uint16_t h = kc_cvt_double_to_f16(v);
            if (fabs(r) > fabs(v)) h = (uint16_t)(h - 1);     /* one step toward zero (same sign, finite) */
            out[i] = h;
        } else {
            out[i] = float_to_half(a * b * x);
        }
    }
    return CUDA_SUCCESS;
}

/* fake_spill_f32(float *out, const float *in, long long n): out = in, with
 * the registers and local memory of a kernel that spills. */
static CUresult copy_f32(const launch *l)
{
    float *out = PTR(float, 0);
    const float *in = PTR(const float, 1);
    long long n = covered(l, I64(2), 1);
    for (long long i = 0; i < n; i++) out[i] = in[i];
    return CUDA_SUCCESS;
}

/* fake_vec4_f32(float *out, const float *in, long long n): out = 2*in, four
 * elements per thread; its bug: the n % 4 tail is copied, not doubled. */
static CUresult vec4(const launch *l)
{
    float *out = PTR(float, 0);
    const float *in = PTR(const float, 1);
    long long n = covered(l, I64(2), 4), body = I64(2) & ~3LL;
    for (long long i = 0; i < n; i++) out[i] = i < body ? 2.0f * in[i] : in[i];
    return CUDA_SUCCESS;
}

/* fake_vec4_fault_f32(float *out, const float *in, long long n): out = 2*in,
 * four elements per thread, and an illegal address (sticky) when n is 7: a
 * precondition a kernel does not meet, registered as a known finding that
 * loses the context (gates/known_fault.h). */
static CUresult vec4_fault(const launch *l)
{
    float *out = PTR(float, 0);
    const float *in = PTR(const float, 1);
    long long n = covered(l, I64(2), 4);
    if (I64(2) == 7) return CUDA_ERROR_ILLEGAL_ADDRESS;
    for (long long i = 0; i < n; i++) out[i] = 2.0f * in[i];
    return CUDA_SUCCESS;
}

/* fake_sentinel_i32(int *out, const int *in, long long n): out = in < 0 ? -1
 * : in, so most outputs are -1, bitwise the 0xFF poison: gate 2 must not call
 * them unwritten. Its control leaves the last element unwritten. */
static CUresult sentinel(const launch *l)
{
    int32_t *out = PTR(int32_t, 0);
    const int32_t *in = PTR(const int32_t, 1);
    long long n = covered(l, I64(2), 1);
    if (n && is(l, "tail_skip")) n--;                               /* planted: the last element is left */
    for (long long i = 0; i < n; i++) out[i] = in[i] < 0 ? -1 : in[i];
    return CUDA_SUCCESS;
}

/* fake_cluster_f32(float *out, const float *in, long long n): out = in, by
 * blocks that each read their cluster peer's shared memory (rank ^ 1), as a
 * kernel on distributed shared memory does: launched without a cluster of
 * at least 2 blocks in x the peer does not exist, and the read faults
 * (sticky). Its control reg_growth uses 255 registers a thread: one block
 * per SM, so its cluster of 8 no longer fits the fake's 4 SMs. */
static CUresult cluster_copy(const launch *l)
{
    float *out = PTR(float, 0);
    const float *in = PTR(const float, 1);
    long long n = covered(l, I64(2), 1);
    if (l->cluster[0] < 2) return CUDA_ERROR_ILLEGAL_ADDRESS;
    for (long long i = 0; i < n; i++) out[i] = in[i];
    return CUDA_SUCCESS;
}

/* fake_coop_f32(float *out, const float *in, long long n): out = in by a
 * grid-stride loop between grid-wide syncs (cooperative_groups'
 * this_grid().sync()), which trap in a launch that is not cooperative
 * (sticky). Its control reg_growth uses 64 registers a thread: 4 blocks per
 * SM instead of 8, so a grid sized for 8 no longer fits co-resident. */
static CUresult coop_copy(const launch *l)
{
    float *out = PTR(float, 0);
    const float *in = PTR(const float, 1);
    if (!l->cooperative) return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    for (long long i = 0; i < I64(2); i++) out[i] = in[i];
    return CUDA_SUCCESS;
}

/* fake_pdl_rowmax_f32(float *amax, const float *x, long long rows, long long
 * cols): amax[r] = max |x[r, :]|, one thread a row: the producer of a
 * programmatic pair (the fakepdl.* sequences, kc_step). */
static CUresult pdl_rowmax(const launch *l)
{
    float *amax = PTR(float, 0);
    const float *x = PTR(const float, 1);
    long long rows = covered(l, I64(2), 1), cols = I64(3);
    for (long long r = 0; r < rows; r++) {
        float m = 0.0f;
        for (long long c = 0; c < cols; c++) m = fmaxf(m, fabsf(x[r * cols + c]));
        amax[r] = m;
    }
    return CUDA_SUCCESS;
}

/* fake_pdl_scale_f32(float *y, const float *amax, const float *x, long long
 * rows, long long cols): y = x / amax[r] (0 where amax[r] is 0), one thread
 * an element: the dependent, which waits for its producer (griddepcontrol.
 * wait) before it reads amax. Its control no_wait does not wait: launched
 * with programmatic stream serialization it starts while the producer still
 * runs and reads amax before it was written, emulated here as the NaN an
 * unwritten output holds; launched plainly, the stream runs it after the
 * producer ended and the missing wait goes unseen (so only a programmatic
 * launch makes the control RED). Its parameters differ from the producer's
 * in number and order, so a launch with the other step's (or the contract's
 * whole list) reads a scalar as a pointer. */
static CUresult pdl_scale(const launch *l)
{
    float *y = PTR(float, 0);
    const float *amax = PTR(const float, 1), *x = PTR(const float, 2);
    long long cols = I64(4), n = covered(l, I64(3) * cols, 1);
    const int early = is(l, "no_wait") && l->programmatic;
    for (long long i = 0; i < n; i++) {
        float a = early ? NAN : amax[i / cols];
        y[i] = a == 0.0f ? 0.0f : x[i] / a;
    }
    return CUDA_SUCCESS;
}

/* ---- the harness module ---- */

#define U64(i) (*(const unsigned long long *)l->p[i])
#define U32(i) (*(const unsigned *)l->p[i])
#define I32(i) (*(const int *)l->p[i])
#define F64(i) (*(const double *)l->p[i])

/* kc_smem_poison(unsigned words, unsigned pattern): no shared memory here;
 * KC_FAKE_POISON_LOG=<file> appends each launch's pattern ("poison %08x"),
 * so a test sees which pattern each launch of a case was given. */
static CUresult h_poison(const launch *l)
{
    const char *path = getenv("KC_FAKE_POISON_LOG");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "poison %08x\n", (unsigned)I32(1));
        fclose(f);
    }
    return CUDA_SUCCESS;
}

/* kc_gen_fill(void *dst, int dtype, int dist, u64 key, u64 count, int ranged, double lo, double hi) */
static CUresult h_gen(const launch *l)
{
    void *dst = PTR(void, 0);
    for (unsigned long long i = 0; i < U64(4); i++)
        if (I32(5)) kc_stream_put_range((kc_dtype)I32(1), U64(3), dst, i, F64(6), F64(7));
        else kc_stream_put((kc_dtype)I32(1), (kc_dist)I32(2), U64(3), dst, i);
    return CUDA_SUCCESS;
}

/* The whole count in block 0's partial, empty partials after it. */
static void put_counts(const launch *l, kc_count_part all, kc_count_part *parts)
{
    parts[0] = all;
    for (unsigned b = 1; b < l->blocks; b++) parts[b] = (kc_count_part){ 0, KC_NO_INDEX };
}

static void count_one(kc_count_part *p, unsigned long long i)
{
    if (!p->n++) p->first = i;
}

/* kc_check_bytes(const u8 *p, u64 n, unsigned expect, parts) */
static CUresult h_bytes(const launch *l)
{
    const uint8_t *p = PTR(const uint8_t, 0);
    kc_count_part all = { 0, KC_NO_INDEX };
    for (unsigned long long i = 0; i < U64(1); i++)
        if (p[i] != (uint8_t)U32(2)) count_one(&all, i);
    put_counts(l, all, PTR(kc_count_part, 3));
    return CUDA_SUCCESS;
}

/* kc_check_unwritten(const u8 *a, const u8 *b, u64 count, unsigned esize, unsigned pa, unsigned pb, parts) */
static CUresult h_unwritten(const launch *l)
{
    const uint8_t *a = PTR(const uint8_t, 0), *b = PTR(const uint8_t, 1);
    kc_count_part all = { 0, KC_NO_INDEX };
    for (unsigned long long i = 0; i < U64(2); i++)
        if (kc_rule_unwritten(a, b, i, U32(3), (uint8_t)U32(4), (uint8_t)U32(5))) count_one(&all, i);
    put_counts(l, all, PTR(kc_count_part, 6));
    return CUDA_SUCCESS;
}

/* kc_check_differs(const u8 *a, const u8 *b, u64 count, unsigned esize, parts) */
static CUresult h_differs(const launch *l)
{
    const uint8_t *a = PTR(const uint8_t, 0), *b = PTR(const uint8_t, 1);
    kc_count_part all = { 0, KC_NO_INDEX };
    for (unsigned long long i = 0; i < U64(2); i++)
        if (kc_rule_differs(a, b, i, U32(3))) count_one(&all, i);
    put_counts(l, all, PTR(kc_count_part, 4));
    return CUDA_SUCCESS;
}

/* kc_check_close(const void *out, int dtype, const double *ref, u64 n, double rtol, double atol,
 *                const double *mag, double mtol, parts) */
static CUresult h_close(const launch *l)
{
    const void *out = PTR(const void, 0);
    const double *ref = PTR(const double, 2), *mag = PTR(const double, 6);
    kc_cmp_part *parts = PTR(kc_cmp_part, 8), all = kc_cmp_empty();
    int mb, em;
    kc_rule_ulp_params((kc_dtype)I32(1), &mb, &em);
    for (unsigned long long i = 0; i < U64(3); i++) {
        double o = kc_cvt_load((kc_dtype)I32(1), out, i);
        if (mag) kc_cmp_element_allowed(&all, i, o, ref[i], kc_rule_allowed_mag(ref[i], mag[i], F64(4), F64(5), F64(7)), F64(4), F64(5), mb, em);
        else kc_cmp_element(&all, i, o, ref[i], F64(4), F64(5), mb, em);
    }
    parts[0] = all;
    for (unsigned b = 1; b < l->blocks; b++) parts[b] = kc_cmp_empty();
    return CUDA_SUCCESS;
}

/* ---- device references of the fake contracts (module fake_ref) ---- */

static const kc_dref *dref(const launch *l) { return (const kc_dref *)l->p[0]; }
static double din(const kc_dref *r, int a, size_t i) { return kc_cvt_load(r->dtype[a], r->in[a], i); }

/* fake.axpy.f32: y = a*x + y, as axpy_ref computes it; its arguments
 * looked up by name (kc_dref_find), as a device reference with
 * kc_dref_arg does: a name the harness did not pass traps, as
 * kc_dref_arg's __trap() would. */
static CUresult r_axpy(const launch *l)
{
    const kc_dref *r = dref(l);
    const int y = kc_dref_find(r, "y"), x = kc_dref_find(r, "x"), a = kc_dref_find(r, "a");
    if (y < 0 || x < 0 || a < 0) return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    for (size_t i = 0; i < r->count[y]; i++) r->out[y][i] = r->scalar[a] * din(r, x, i) + din(r, y, i);
    return CUDA_SUCCESS;
}

/* fake.copy.f16 and the copies: out = in. */
static CUresult r_copy(const launch *l)
{
    const kc_dref *r = dref(l);
    for (size_t i = 0; i < r->count[0]; i++) r->out[0][i] = din(r, 1, i);
    return CUDA_SUCCESS;
}

/* A copy reference off by one ulp of the double at the middle element: the
 * disagreement --reference both must report (fakeref.off.f16). */
static CUresult r_copy_off(const launch *l)
{
    const kc_dref *r = dref(l);
    for (size_t i = 0; i < r->count[0]; i++) r->out[0][i] = din(r, 1, i);
    if (r->count[0]) r->out[0][r->count[0] / 2] = nextafter(r->out[0][r->count[0] / 2], INFINITY);
    return CUDA_SUCCESS;
}

/* A copy reference that leaves the last element unwritten
 * (fakeunwritten.dev.f16, gate 3 must fail it even where the output is NaN). */
static CUresult r_copy_short(const launch *l)
{
    const kc_dref *r = dref(l);
    for (size_t i = 0; i + 1 < r->count[0]; i++) r->out[0][i] = din(r, 1, i);
    return CUDA_SUCCESS;
}

/* fakeacc.dot.f32: out[r] = sum_k x[r k + k'] w[k'] and its magnitude
 * sum |x w| (kc_dref.mag), as dot_ref computes them; nomag: the magnitude
 * left unwritten (NaN), which fails every element. */
static CUresult dot_ref(const launch *l, int nomag)
{
    const kc_dref *r = dref(l);
    const long long rows = r->shape.d[0], k = r->shape.d[1];
    for (long long i = 0; i < rows; i++) {
        double s = 0, m = 0;
        for (long long j = 0; j < k; j++) {
            double p = din(r, 1, (size_t)(i * k + j)) * din(r, 2, (size_t)j);
            s += p;
            m += p < 0 ? -p : p;
        }
        r->out[0][i] = s;
        if (r->mag[0] && !nomag) r->mag[0][i] = m;
    }
    return CUDA_SUCCESS;
}
static CUresult r_dot(const launch *l) { return dot_ref(l, 0); }
static CUresult r_dot_nomag(const launch *l) { return dot_ref(l, 1); }

/* A reference that faults. */
static CUresult r_fault(const launch *l) { (void)l; return CUDA_ERROR_ILLEGAL_ADDRESS; }

const struct kernel fake_kernels[NKERNELS] = {
    /* module       symbol            regs smem local threads */
    { "fake_axpy",  "fake_axpy_f32",  16,  0,    0,  1024, axpy, 0, "8,8,4,8" },
    { "fake_copy",  "fake_copy_f16",  8,   0,    0,  1024, copy_f16 },
    { "fake_spill", "fake_spill_f32", 128, 0,    64, 512,  copy_f32 },
    { "fake_vec4",  "fake_vec4_f32",  24,  2048, 0,  1024, vec4 },
    { "fake_vec4",  "fake_vec4_fault_f32", 24, 2048, 0, 1024, vec4_fault },
    { "fake_sentinel", "fake_sentinel_i32", 16, 0,  0,  1024, sentinel },
    { "fake_scale", "fake_scale_f16",     16,  0,    0,  1024, scale_f16 },
    { "scale",      "ex_scale_f32",       12,  0,    0,  1024, ex_scale },
    { "vendor_softmax", "_ZN11fastsoftmax12softmax_rowsIfLi256EEEvPT_PKS1_i", 30, 32, 0, 1024, vendor_softmax },
    { "fake_lowbits", "fake_lowbits_i32", 8,   0,    0,  1024, lowbits },
    { "fake_cluster", "fake_cluster_f32", 16,  0,    0,  1024, cluster_copy, 255 },
    { "fake_coop",  "fake_coop_f32",      16,  0,    0,  1024, coop_copy, 64 },
    { "fake_tmap",  "fake_tmap_copy_f32", 32,  0,    0,  1024, fake_tmap_copy, 0, "128,8,8,8" },
    { "fake_struct", "fake_struct_axpy_f32", 16, 0,   0,  1024, fake_struct_axpy, 0, "32" },
    { "fake_scalars", "fake_scalars_f64", 16,  0,    0,  1024, fake_scalars, 0, "8,2,2,8,2,2,8,1,1" },
    { "fake_inplace", "fake_inplace_scale_f32", 16, 0, 0,  1024, fake_inplace_scale, 0, "8,8,4,8" },
    { "fake_grouped", "fake_grouped_copy_f32", 16, 0,  0,  1024, fake_grouped_copy, 0, "8,8,8,8" },
    { "fake_acc",   "fake_dot_f32",       16,  0,    0,  1024, fake_dot_f32, 0, "8,8,8,8,8" },
    { "fake_acc",   "fake_dot_bf16",      16,  0,    0,  1024, fake_dot_bf16, 0, "8,8,8,8,8" },
    { "fake_acc",   "fake_sumsq_f32",     16,  0,    0,  1024, fake_sumsq_f32, 0, "8,8,8,8" },
    { "fake_pdl",   "fake_pdl_rowmax_f32", 20, 1024, 0,  1024, pdl_rowmax },
    { "fake_pdl",   "fake_pdl_scale_f32",  12, 0,    0,  1024, pdl_scale },
    { "harness",    "kc_smem_poison",     10,  0,    0,  1024, h_poison },
    { "harness",    "kc_gen_fill",        63,  0,    0,  1024, h_gen },
    { "harness",    "kc_check_bytes",     18,  4096, 0,  1024, h_bytes },
    { "harness",    "kc_check_unwritten", 22,  4096, 0,  1024, h_unwritten },
    { "harness",    "kc_check_differs",   20,  4096, 0,  1024, h_differs },
    { "harness",    "kc_check_close",     54,  18432, 0, 1024, h_close },
    { "fake_ref",   "fake_axpy_ref",      32,  0,    0,  1024, r_axpy },
    { "fake_ref",   "fake_copy_ref",      32,  0,    0,  1024, r_copy },
    { "fake_ref",   "fake_copy_ref_off",  32,  0,    0,  1024, r_copy_off },
    { "fake_ref",   "fake_copy_ref_short", 32, 0,    0,  1024, r_copy_short },
    { "fake_ref",   "fake_dot_ref",       32,  0,    0,  1024, r_dot },
    { "fake_ref",   "fake_dot_ref_nomag", 32,  0,    0,  1024, r_dot_nomag },
    { "fake_ref",   "fake_ref_fault",     32,  0,    0,  1024, r_fault },
};
