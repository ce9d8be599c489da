/* kcontract.h — the public C API for writing kernel contracts and suites.
 *
 * A contract describes one CUDA kernel (an `extern "C" __global__` symbol in a
 * module under kernels/<family>/, a short sequence of them on one stream:
 * kc_step, or a host-launched library call behind an
 * `extern "C"` entry in a shared library: kc_host_entry) well enough for the harness to check it on
 * the GPU through four gates:
 *   1. launch and fit     2. bounds and writes
 *   3. accuracy vs. a float64 reference (host, or its CUDA twin)     4. bitwise determinism
 * plus planted-bug controls (the same source compiled with -DKC_CONTROL_<name>)
 * and resource limits. docs/writing-a-contract.md walks through an example.
 *
 * Contracts and suites register themselves when their object is loaded
 * (KC_CONTRACT, KC_SUITE; kc_register_contract): no list to edit.
 * Everything here is plain data plus a few callbacks; no global state. */
#ifndef KCONTRACT_H
#define KCONTRACT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KC_API_VERSION 7
/* The layout of the registered structs (kc_contract and what it holds,
 * kc_suite, embedded modules). Every registration carries the version and
 * the struct's size it was compiled with; the library refuses a mismatch,
 * naming the registration, instead of reading a struct of another layout.
 * Bumped with every layout change, as is the shared library's soname. */
#define KC_ABI_VERSION 7

/* What the library exports (it is built with -fvisibility=hidden: nothing
 * else is visible to a user's objects). */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define KC_API __attribute__((visibility("default")))
#else
#define KC_API
#endif
#define KC_MAX_DIMS 8      /* dims of a shape */
#define KC_MAX_ARGS 16     /* kernel arguments (buffers and scalars) */
#define KC_MAX_CONTROLS 8  /* planted-bug controls per contract */
#define KC_MAX_KNOWN 8     /* known findings per contract */
#define KC_MAX_BLOCK_SIZES 8 /* launch variants (block sizes) per contract */
#define KC_MAX_DISTS 12    /* input distributions per contract */
#define KC_MAX_FIELDS 16   /* fields of a parameter struct */
#define KC_MAX_STEPS 4     /* kernels in one contract's sequence (kc_step) */

/* The module variable (unsigned long long, nanoseconds) that bounds a
 * kernel's own hang watchdog (kcontract_watchdog.cuh): the sanitizer's
 * target raises it in every module that has it, since a healthy wait under
 * compute-sanitizer can take far longer than the module's default. */
#define KC_WATCHDOG_SYMBOL "kc_watchdog_ns"

/* Element types. Sizes: F64/I64/U64 8; F32/I32/U32 4; F16/BF16/I16/U16 2; U8/I8/E4M3 1.
 * F16 is IEEE binary16, BF16 the upper half of binary32, E4M3 the OCP FP8
 * format (no infinities, NaN = S.1111.111). */
typedef enum kc_dtype {
    KC_DTYPE_NONE = 0,
    KC_F64, KC_F32, KC_F16, KC_BF16, KC_E4M3,
    KC_I64, KC_I32, KC_U32, KC_I8, KC_U8,
    KC_I16, KC_U16, KC_U64
} kc_dtype;

/* What the kernel does with a buffer. IN must come back bitwise unchanged;
 * OUT is poisoned before the launch and must be fully written; INOUT holds
 * generated input before the launch and is compared with the reference after. */
typedef enum kc_role { KC_ROLE_NONE = 0, KC_IN, KC_OUT, KC_INOUT } kc_role;

/* Shape classes: real model dimensions, edge sizes (1, 31, 33, 1023, off the
 * block or tile), and the one large shape (run with the first distribution only). */
typedef enum kc_shape_class { KC_SHAPE_MODEL = 1, KC_SHAPE_EDGE, KC_SHAPE_LARGE } kc_shape_class;

/* A named shape. The meaning of d[] is the contract's: kc_contract.dims names
 * each used entry ("rows", "cols", ...). Arrays of shapes end with {0}. */
typedef struct kc_shape {
    const char *name;          /* stable, e.g. "llama3-8b.hidden", "edge.33" */
    kc_shape_class cls;
    int64_t d[KC_MAX_DIMS];
    /* NULL: the :sanitize item's racecheck runs this shape (it runs the edge
     * shapes); else why it need not, on an edge shape there for another
     * gate whose blocks only repeat the shared-memory paths of the other
     * edge shapes. racecheck's cost is every shared-memory access of every
     * block (H200: sampling.topk's 520-row edge shape was most of its 29
     * CPU-seconds); the other tools still run the shape. Only on an edge
     * shape, with a reason, and never on all of a contract's: the registry
     * refuses those. */
    const char *no_racecheck;
} kc_shape;

/* Input distributions. Floating point (L is 2^10 for F16, 2^8 for E4M3, 2^20
 * for BF16/F32/F64): UNIFORM U(-1,1); NORMAL ~N(0,1) (Irwin-Hall of 16);
 * LARGE |x| in [L/2, L], positive with p=3/4; ZEROS_MIXED normal with half the
 * elements +0 or -0; SPECIALS normal with ~1% each of +inf, -inf and NaN (E4M3
 * has no inf: +-448 instead); MASKED normal with runs of -inf, 1..512 long,
 * covering about half the elements (E4M3: -448; a custom generator may give
 * it a layout, e.g. a causal mask). Integers, whatever the distribution:
 * uniform in [-1000, 1000] (U32: [0, 1000]; I8 and U8: their whole range)
 * unless the buffer has its own generator.
 * Boundary values, the inputs no shape or random distribution reaches
 * (src/core/gen_stream.h): ZEROS every element +0; CONSTANT every element one
 * normal value (constant rows: zero variance, ties everywhere); DENORMAL
 * subnormals of the dtype with random signs; NEG_INF every element -inf
 * (E4M3 -448); NAN every element NaN; INT_EXTREMES integers from the
 * dtype's ends and both sides of 2^24 (MIN, MIN+1, -(2^24+1), -1, 0, 1,
 * 2^24+1, MAX-1, MAX, saturated to the dtype), floats NORMAL. The floating
 * ones leave integer buffers uniform as above.
 * Element i of a built-in buffer is a pure function of (run seed, contract,
 * shape, distribution, argument, i) (Philox4x32-10; src/core/gen_stream.h has the
 * exact definition), computed on the GPU, or on the host where there is
 * none, with the same bits. */
typedef enum kc_dist {
    KC_DIST_END = 0,
    KC_UNIFORM, KC_NORMAL, KC_LARGE, KC_ZEROS_MIXED, KC_SPECIALS, KC_MASKED,
    KC_ZEROS, KC_CONSTANT, KC_DENORMAL, KC_NEG_INF, KC_NAN, KC_INT_EXTREMES,
    KC_DIST_COUNT
} kc_dist;
/* Distribution d in a set of distributions (kc_arg.gen_on). */
#define KC_DIST_BIT(d) (1u << (unsigned)(d))

/* The state handed to a buffer's generator: fill `count` elements of `dtype`
 * at `data` (zeroed when the generator starts), drawing only from `rng`
 * through the kc_rand_* calls (seeded per item, shape, distribution and
 * argument: identical in every process and on every machine), or calling
 * kc_gen_default for the built-in stream. */
typedef struct kc_gen {
    const kc_shape *shape;
    kc_dist dist;
    kc_dtype dtype;
    void *data;
    size_t count;
    uint64_t rng[4];           /* xoshiro256** state; use the kc_rand_* calls */
    uint64_t key;              /* the built-in stream's key (kc_gen_default) */
    void *harness;             /* the harness's own: do not touch */
    const void *user;          /* the contract's kc_contract.user */
} kc_gen;

KC_API uint64_t kc_rand_u64(kc_gen *g);                 /* uniform 64 bits */
KC_API double kc_rand_uniform(kc_gen *g, double lo, double hi); /* U[lo, hi) */
/* Approximately N(0, 1): the standardised sum of 16 uniform 16-bit integers
 * (Irwin-Hall), computed without libm so it is bit-identical on every machine. */
KC_API double kc_rand_normal(kc_gen *g);
KC_API int64_t kc_rand_int(kc_gen *g, int64_t lo, int64_t hi);  /* uniform in [lo, hi] */
/* Stores value x (rounded to nearest even for narrow floats, saturated and
 * truncated toward zero for integers) as element i of g->data. */
KC_API void kc_gen_put(kc_gen *g, size_t i, double x);
/* Fills g->data with the built-in stream for g->dist and g->dtype (element
 * i from g->key and i alone); custom generators may call it, also on part of
 * their buffer (a moved data pointer and a smaller count restart at i = 0).
 * For the whole buffer a generator was handed, the harness supplies the
 * stream it generated on the GPU instead of computing it again on the host. */
KC_API void kc_gen_default(kc_gen *g);
/* A row-parallel generator: row(rg, r) for every row r in [0, rows) of the
 * buffer (row-major, about g->count / rows elements a row; the row function
 * knows which are row r's, so a last row may be short), on the harness's
 * threads in chunks of at least 64K elements, as kc_parallel_rows. rg is a
 * copy of g (the whole buffer's data and count) whose kc_rand_* stream is
 * row r's own, seeded from g's state and r alone: the bits are the same on
 * any thread count, and a row's values do not depend on what other rows
 * draw. A row writes only its own elements and never calls kc_gen_default
 * (call it on g first: the process aborts, saying so, as it does for 0 rows
 * of a buffer that has elements). When any row drew,
 * g draws once (a table generator, KC_BUFFER_TABLE, must not). For inputs
 * of many independent rows (a vocabulary's logits per token, a rotary
 * table's positions): generators on one thread were 14.3 of the 15.0 s a
 * serial run of the bundled library spent making inputs
 * (docs/receipts/2026-12-03-h200-racecheck, call 3). */
KC_API void kc_gen_rows(kc_gen *g, size_t rows, void (*row)(kc_gen *rg, size_t r));

/* Element types on the host: sizes, names, and exact conversions between
 * every kc_dtype and double (IEEE round-to-nearest-even when narrowing, as
 * CUDA's __float2half_rn / __float2bfloat16_rn do; E4M3 saturates to +-448
 * like __nv_cvt_float_to_fp8 with __NV_SATFINITE). kcontract_dtype.h has the
 * same conversions inline for host and device code (kc_cvt_*). */
KC_API size_t kc_dtype_size(kc_dtype t);          /* bytes per element; 0 for KC_DTYPE_NONE */
KC_API const char *kc_dtype_name(kc_dtype t);     /* "f32", "f16", "bf16", ... */
KC_API int kc_dtype_is_float(kc_dtype t);         /* F64 F32 F16 BF16 E4M3 */
KC_API double kc_f16_to_double(uint16_t h);
KC_API uint16_t kc_double_to_f16(double x);       /* RNE, overflow to +-inf, NaN -> 0x7e00 */
KC_API double kc_bf16_to_double(uint16_t b);
KC_API uint16_t kc_double_to_bf16(double x);      /* RNE from the double (not via float) */
KC_API double kc_e4m3_to_double(uint8_t v);
KC_API uint8_t kc_double_to_e4m3(double x);       /* RNE, saturates to +-448, NaN -> 0x7f */
KC_API float kc_double_to_f32(double x);          /* RNE (the C cast) */
/* Element i of data, of type t, as a double (exact but for I64 beyond 2^53),
 * and x stored as element i (rounded, saturated as above). */
KC_API double kc_load(kc_dtype t, const void *data, size_t i);
KC_API void kc_store(kc_dtype t, void *data, size_t i, double x);

/* Tolerance for one output: |out - ref| <= atol + rtol * |ref| (the rule of
 * torch.testing.assert_close). NaN must match NaN and +-inf must match the same
 * infinity. reason == NULL means "the default for the output's dtype" (float32
 * rtol 1.3e-6 atol 1e-5; float16 rtol 1e-3 atol 1e-5; bfloat16 rtol 1.6e-2 atol
 * 1e-5; integers exact); an override must say why. */
typedef struct kc_tol {
    double rtol, atol;
    const char *reason;
} kc_tol;

/* How an output's errors may be distributed, in ulps of its dtype at the
 * reference value (gate 3's error statistics, docs/error-statistics.md).
 * ROUNDED: the exact result rounded once to the output dtype, give or take
 * `slack` ulps of what float32 arithmetic adds before that rounding; its
 * errors must not lean (signed or toward zero: a truncating store, a bias)
 * and at most 2 x slack of them may exceed half an ulp (a value rounded one
 * time too many), beyond what chance allows over n elements. REPORTED: the
 * statistics are measured and reported, not judged (outputs computed in
 * their own precision, such as float32 accumulations, whose error is the
 * arithmetic's, not one rounding's). DEFAULT: ROUNDED for f16, bf16 and e4m3
 * outputs, REPORTED for f32 and f64. */
typedef enum kc_error_kind { KC_ERRORS_DEFAULT = 0, KC_ERRORS_ROUNDED, KC_ERRORS_REPORTED } kc_error_kind;

#define KC_MAX_UNJUDGED 4

typedef struct kc_errors {
    kc_error_kind kind;
    double slack;               /* ROUNDED: ulps beyond the rounding's half; 0 means 1/32 */
    const char *reason;         /* why, for anything but the default (unjudged included) */
    /* Random distributions (UNIFORM .. MASKED) whose inputs make this
     * output repeat a few values, so its rounding errors are not independent
     * draws: on them the statistics are reported, not judged (the boundary
     * distributions never are). Ends at the first KC_DIST_END. */
    kc_dist unjudged[KC_MAX_UNJUDGED];
} kc_errors;

/* What an output's arithmetic does, declared so that gate 3 derives its
 * tolerance instead of taking a hand-set one (docs/writing-a-contract.md,
 * "Tolerances from the arithmetic"). The rules are Higham's (Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., 2002): with u the unit
 * roundoff of the arithmetic's dtype (2^-53 f64, 2^-24 f32, 2^-11 f16,
 * 2^-8 bf16, 2^-4 e4m3: half an ulp at 1) and n operations each rounded to
 * nearest, gamma_n = n u / (1 - n u) (§3.1, Lemma 3.1; defined for n u < 1);
 * a sum of K products accumulated in any order is within gamma_K of the sum
 * of the products' magnitudes, |fl(x'y) - x'y| <= gamma_K |x|'|y| (§3.1,
 * (3.4); §4.2: any order of summation, K - 1 additions on each term's
 * path, plus the product), a pairwise (tree) sum within
 * gamma_(ceil(log2 K) + 1) (§4.2, (4.6)); a chain of r further operations
 * that each round relatively (products, quotients, square roots; a function
 * accurate to k ulps counts as 2k) multiplies by (1 + delta_j), |delta_j| <=
 * u: r more in n (Lemma 3.1, 3.3). So n = K (or ceil(log2 K) + 1, or the declared depth) + r, and
 *   |computed - exact| <= gamma_n M,
 * where M is the magnitude the sum's error scales with: the sum of the
 * terms' absolute values. Then, when the output dtype is narrower than the
 * arithmetic's (its unit roundoff u_o > u), the store rounds once more:
 *   |out - ref| <= u_o |ref| + gamma_n (1 + u_o) M + atol,
 * atol = half the output's smallest subnormal (a store below its normal
 * range) + n times half the arithmetic's (underflow of each operation,
 * Higham (2.8), taken as not amplified afterwards). Gate 3 checks this per
 * element; every failure line names the bound, its n and where it came from.
 *
 * M per element, as `magnitude` says:
 *   KC_MAG_REF        M = |ref|: the terms have one sign (sums of squares, of
 *                     exponentials, of positive weights), so sum |t_i| =
 *                     |sum t_i|; the bound is relative: rtol = u_o +
 *                     gamma_n (1 + u_o). The contract asserts the one sign;
 *                     with cancelling terms this bound is unsound (too tight).
 *   KC_MAG_REFERENCE  M is written by the reference: kc_ref.mag[a] (and a
 *                     device reference's kc_dref.mag[a]) holds count[a]
 *                     doubles, M for each element (a dot product's
 *                     sum_k |x_k y_k|; for a normalisation, what its error
 *                     scales with): sound for terms of any sign. An element
 *                     whose M is left unwritten (NaN) or is negative fails.
 * K, the terms of the sum, comes from the shape: the dim named terms_dim, or
 * terms(shape); neither: no sum, n = roundings (an elementwise chain). The
 * registry refuses, naming the shape and value, K <= 0, n < 1, n u >= 1
 * (gamma undefined), an arithmetic dtype that is no float, and an output with
 * both a hand-set tolerance and an arithmetic at the same level. Which bound
 * an output gets: its own kc_arg.tol (hand-set), else its own kc_arg.arith,
 * else the contract's tol, else the contract's arith, else the dtype's
 * default. The error statistics (kc_errors) are judged as before. */
typedef enum kc_sum_order {
    KC_SUM_ANY = 0,       /* any order (a serial loop, per-thread partial sums then a tree, atomics): gamma_K */
    KC_SUM_PAIRWISE       /* a balanced tree over all K terms: gamma_(ceil(log2 K) + 1) */
} kc_sum_order;
typedef enum kc_magnitude { KC_MAG_REF = 0, KC_MAG_REFERENCE } kc_magnitude;

typedef struct kc_arith {
    kc_dtype acc;                               /* the arithmetic's dtype; KC_DTYPE_NONE: nothing declared */
    const char *terms_dim;                      /* K = the shape dim of this name (kc_contract.dims) */
    int64_t (*terms)(const kc_shape *s);        /* or K = terms(shape) */
    kc_sum_order order;
    /* Instead of order: the most roundings any one term passes through on
     * its way into the sum (its product, each addition after it), for a
     * kernel's own reduction: T threads summing ceil(K / T) terms each with
     * fmaf (one rounding per term) and then a shuffle tree of log2 T levels
     * give ceil(K / T) + log2 T. The error is within gamma_depth of M
     * (Higham §4.2: each term is multiplied by at most depth factors
     * (1 + delta)). NULL: from order. */
    int64_t (*depth)(const kc_shape *s);
    int roundings;                              /* r: further relative roundings per element in acc */
    kc_magnitude magnitude;
} kc_arith;

/* What a kernel parameter is (kc_arg.kind):
 *   BUFFER      a device pointer (CUdeviceptr) to count(shape) elements of a
 *               buffer the harness allocates, with guard bands, generates
 *               and checks.
 *   SCALAR      a value of `dtype` passed by value (every dtype: F64, F32,
 *               F16, BF16, E4M3, I64, U64, I32, U32, I16, U16, I8, U8).
 *   TENSOR_MAP  a CUtensorMap (128 bytes, by value: a __grid_constant__
 *               const CUtensorMap parameter) that the harness encodes with
 *               cuTensorMapEncodeTiled over the buffer named `of`, from the
 *               layout tensor_map(shape) gives (kc_tensor_map).
 *   STRUCT      a parameter struct by value, laid out by `layout`: its device
 *               pointers are the contract's buffers, its scalars from the
 *               shape (kc_param_struct).
 *   PTR_ARRAY   a device pointer to a table of count(shape) device
 *               pointers, one per slice of the buffer named `of` (grouped
 *               GEMM, per-expert weights): slice i is elements [i n/count,
 *               (i+1) n/count) of the buffer's n (count must divide n). The
 *               slices lie back to back in the buffer's one allocation: a
 *               read past a slice's end lands in the next slice (gate 3 sees
 *               the wrong values), only past the last one in the guard band;
 *               the table has an allocation of its own. */
typedef enum kc_argkind {
    KC_ARG_END = 0, KC_ARG_BUFFER, KC_ARG_SCALAR, KC_ARG_TENSOR_MAP, KC_ARG_STRUCT, KC_ARG_PTR_ARRAY
} kc_argkind;

/* The layout of a tensor map, as cuTensorMapEncodeTiled takes it (CUDA
 * driver API, "Tensor Map Object Management"); the element type is the
 * buffer's (F16 FLOAT16, BF16 BFLOAT16, F32 FLOAT32, F64 FLOAT64, I32 INT32,
 * U32 UINT32, I64 INT64, U64 UINT64, I16/U16 UINT16, I8/U8/E4M3 UINT8) and
 * the global address the buffer's device pointer (its offset included; it
 * must be 16-byte aligned). Dim 0 is the innermost, contiguous one.
 *   dims        elements per dim (1 .. 2^32)
 *   strides     bytes from one index of dim i+1 to the next (i = 0 .. rank-2),
 *               multiples of 16; 0: packed behind the dims before it
 *   box         elements one copy moves per dim (1 .. 256; box[0] x the
 *               element size a multiple of 16 without interleave)
 *   elem_strides  the copy's step per dim (1 .. 8); 0 means 1
 *   interleave, swizzle, l2_promotion, oob_fill: CUtensorMapInterleave,
 *               CUtensorMapSwizzle, CUtensorMapL2promotion and
 *               CUtensorMapFloatOOBfill values (the KC_TMAP_* below); 0 is
 *               none for each.
 * Before every launch the harness checks that the map stays inside its
 * buffer: the last element it can address (dims and strides) must lie
 * within count elements of the buffer, else gate 1 fails naming the map,
 * its extent and the buffer's bytes. The tensor memory accelerator never
 * reads outside the map: a box past the map's edge is filled (zeros, or
 * NaN with oob_fill), so a read past the map's bounds reaches no guard band. */
#define KC_TMAP_MAX_RANK 5
typedef struct kc_tensor_map {
    int rank;
    uint64_t dims[KC_TMAP_MAX_RANK];
    uint64_t strides[KC_TMAP_MAX_RANK - 1];
    uint32_t box[KC_TMAP_MAX_RANK];
    uint32_t elem_strides[KC_TMAP_MAX_RANK];
    int interleave, swizzle, l2_promotion, oob_fill;
} kc_tensor_map;
#define KC_TMAP_SWIZZLE_NONE 0
#define KC_TMAP_SWIZZLE_32B 1
#define KC_TMAP_SWIZZLE_64B 2
#define KC_TMAP_SWIZZLE_128B 3
#define KC_TMAP_INTERLEAVE_16B 1
#define KC_TMAP_INTERLEAVE_32B 2
#define KC_TMAP_L2_64B 1
#define KC_TMAP_L2_128B 2
#define KC_TMAP_L2_256B 3
#define KC_TMAP_OOB_NAN 1

/* One field of a parameter struct: at byte `offset`, either the argument
 * named `arg` (a BUFFER's device pointer, 8 bytes, 8-byte aligned; or a
 * TENSOR_MAP, 128 bytes, 64-byte aligned) or, with arg NULL, a scalar of
 * `dtype` from value(shape) or ivalue(shape) (integers exactly, as kc_arg's). */
typedef struct kc_field {
    const char *name;                           /* the struct member, for messages */
    size_t offset;
    const char *arg;
    kc_dtype dtype;
    double (*value)(const kc_shape *s);
    int64_t (*ivalue)(const kc_shape *s);
} kc_field;

/* A struct passed by value: `size` bytes (sizeof the kernel's type; at most
 * 4096, the kernel parameter limit before CUDA 12.1's 32764, which the
 * harness does not assume), `align` its alignment (alignof; 1 .. 128, a
 * power of two); the bytes no field covers are zero. Fields end at the
 * first with a NULL name; they must not overlap or run past size. The
 * harness checks size against the kernel's own parameter where the driver
 * tells it (cuFuncGetParamInfo, CUDA 12.4 drivers and later). */
typedef struct kc_param_struct {
    size_t size;
    size_t align;
    kc_field fields[KC_MAX_FIELDS];
} kc_param_struct;

/* One kernel argument, in the kernel's parameter order. A buffer is passed as a
 * device pointer (CUdeviceptr) to `count(shape)` elements; a scalar is passed by
 * value as `dtype`, its value from value(shape), or, for the integer dtypes,
 * from ivalue(shape), which passes every 64-bit value exactly (a double holds
 * integers exactly only up to 2^53). Before each launch the harness checks
 * every argument's size against the kernel's parameter of the same place
 * (pointers 8 bytes, scalars their dtype's, tensor maps 128, structs their
 * size), and their number, where the driver has cuFuncGetParamInfo. */
typedef struct kc_arg {
    kc_argkind kind;
    const char *name;
    kc_dtype dtype;
    kc_role role;                               /* buffers only */
    size_t (*count)(const kc_shape *s);         /* buffers: element count; PTR_ARRAY: pointers */
    void (*gen)(kc_gen *g);                     /* buffers: optional generator (runs on the host) */
    /* Buffers with a gen: the distributions it runs for, KC_DIST_BIT(d) or'd;
     * 0 for every one. On the others the buffer is the built-in stream, made
     * on the GPU as for a buffer without gen, with no copy to the host and
     * back (a generator that only reshapes KC_LARGE need not see UNIFORM's
     * 262 MB of logits). The registry refuses one without gen, with a table,
     * or naming a distribution the contract does not run. With gen_on, a
     * range (below) makes the distributions gen_on leaves out; without it,
     * a range beside a gen is refused (it would never be used). */
    unsigned gen_on;
    double (*value)(const kc_shape *s);         /* scalars */
    kc_tol tol;                                 /* outputs: optional override */
    kc_errors errors;                           /* outputs: optional override of the contract's error model */
    /* Buffers: instead of the distribution's values, the built-in stream drawn
     * uniformly from [lo, hi] for every distribution (integers: each value of
     * [lo, hi]; floats: [lo, hi), then rounded to the dtype), made on the GPU
     * like any built-in stream. For scales, ranks, positions. */
    void (*range)(const kc_shape *s, double *lo, double *hi);
    /* Buffers with a gen that draws nothing: its output is a table that
     * depends on the shape alone (not on the seed or the distribution), made
     * once per process and shape (rotary caches). The harness refuses a table
     * generator that calls kc_rand_*. */
    int table;
    int64_t (*ivalue)(const kc_shape *s);       /* integer scalars: instead of value, exact */
    /* TENSOR_MAP and PTR_ARRAY: the buffer argument they pass. A BUFFER with
     * `of` is an alias: it passes that earlier buffer's allocation again (an
     * in-place kernel's input and output), with its own offset (inside that
     * buffer: an offset past its last element fails the case before the
     * launch); it has no count, role or generator of its own, and the buffer
     * it names is the one checked. */
    const char *of;
    /* Buffers: the kernel gets the allocation's address plus `offset`
     * elements (a sliced tensor, not 16-byte aligned when offset x size is
     * not); the elements before it hold the guard's canary and must come
     * back unchanged, like the guard bands. */
    size_t offset;
    /* Buffers: 1, not a kernel parameter of its own: a tensor map, a struct
     * field or a pointer array passes it (the registry refuses a carried
     * buffer that nothing passes). */
    int carried;
    void (*tensor_map)(const kc_shape *s, kc_tensor_map *m);   /* TENSOR_MAP: its layout */
    const kc_param_struct *layout;              /* STRUCT: its layout */
    /* Outputs: what the arithmetic does, from which gate 3 derives this
     * output's tolerance (kc_arith); instead of tol. */
    kc_arith arith;
} kc_arg;

#define KC_BUFFER(name_, dtype_, role_, count_) \
    { .kind = KC_ARG_BUFFER, .name = (name_), .dtype = (dtype_), .role = (role_), .count = (count_) }
#define KC_BUFFER_GEN(name_, dtype_, role_, count_, gen_) \
    { .kind = KC_ARG_BUFFER, .name = (name_), .dtype = (dtype_), .role = (role_), .count = (count_), .gen = (gen_) }
/* As KC_BUFFER_GEN, the generator only for the distributions in dists_
 * (KC_DIST_BIT(KC_LARGE) | ...); the others are the built-in stream. */
#define KC_BUFFER_GEN_ON(name_, dtype_, role_, count_, gen_, dists_) \
    { .kind = KC_ARG_BUFFER, .name = (name_), .dtype = (dtype_), .role = (role_), .count = (count_), .gen = (gen_), \
      .gen_on = (dists_) }
#define KC_BUFFER_RANGE(name_, dtype_, role_, count_, range_) \
    { .kind = KC_ARG_BUFFER, .name = (name_), .dtype = (dtype_), .role = (role_), .count = (count_), .range = (range_) }
#define KC_BUFFER_TABLE(name_, dtype_, role_, count_, gen_) \
    { .kind = KC_ARG_BUFFER, .name = (name_), .dtype = (dtype_), .role = (role_), .count = (count_), .gen = (gen_), \
      .table = 1 }
#define KC_SCALAR(name_, dtype_, value_) \
    { .kind = KC_ARG_SCALAR, .name = (name_), .dtype = (dtype_), .value = (value_) }
#define KC_SCALAR_INT(name_, dtype_, ivalue_) \
    { .kind = KC_ARG_SCALAR, .name = (name_), .dtype = (dtype_), .ivalue = (ivalue_) }
/* A tensor map over buffer of_ (usually KC_BUFFER with .carried = 1, or a
 * buffer the kernel also takes as a pointer), its layout from map_(shape). */
#define KC_TENSOR_MAP(name_, of_, map_) \
    { .kind = KC_ARG_TENSOR_MAP, .name = (name_), .of = (of_), .tensor_map = (map_) }
/* A parameter struct by value, laid out by *layout_. */
#define KC_STRUCT(name_, layout_) \
    { .kind = KC_ARG_STRUCT, .name = (name_), .layout = (layout_) }
/* An array of count_(shape) device pointers, one per slice of buffer of_. */
#define KC_PTR_ARRAY(name_, of_, count_) \
    { .kind = KC_ARG_PTR_ARRAY, .name = (name_), .of = (of_), .count = (count_) }
/* Buffer of_ passed again (in place), at offset_ elements. */
#define KC_ALIAS(name_, of_, offset_) \
    { .kind = KC_ARG_BUFFER, .name = (name_), .of = (of_), .offset = (offset_) }

/* Common element counts: products of shape dims (KC_COUNT_DIMS below for
 * any others), refused as kc_count_dims says on a negative dim or a product
 * past SIZE_MAX. */
KC_API size_t kc_count_d0(const kc_shape *s);
KC_API size_t kc_count_d1(const kc_shape *s);
KC_API size_t kc_count_d0d1(const kc_shape *s);
KC_API size_t kc_count_d0d1d2(const kc_shape *s);

/* ---- Shape helpers (src/core/shape_helpers.c): counts, scalars and launch
 * geometry from a shape's dims, so that a contract writes no one-liners. */

/* The product of dims d[dims[0]] x ... x d[dims[n-1]] of shape s into *out
 * (1 for n = 0; 0 when a dim is 0). Returns 0; or -1 with why (at most cap
 * bytes, NUL-terminated; why may be NULL) naming the shape, the dim and the
 * value when an index is outside [0, KC_MAX_DIMS), a dim is negative, or the
 * product exceeds SIZE_MAX (no buffer could hold it). */
KC_API int kc_dims_product(const kc_shape *s, const int *dims, int n, size_t *out, char *why, size_t cap);
/* kc_dims_product as an element count (kc_arg.count): a refusal is reported
 * on stderr, naming `what` (the count function), the shape and the value,
 * and the process aborts (a contract's mistake; the item fails as a crash
 * and never runs a buffer of a wrapped size). */
KC_API size_t kc_count_dims(const kc_shape *s, const int *dims, int n, const char *what);
/* KC_COUNT_DIMS(fn, 0, 2) defines `static size_t fn(const kc_shape *s)`,
 * the element count d[0] * d[2] (any dims, in any number), for kc_arg.count:
 *     KC_COUNT_DIMS(count_mk, 0, 2)
 *     KC_BUFFER("a", KC_F16, KC_IN, count_mk)
 * Overflow and negative dims are refused as kc_count_dims says. */
#define KC_COUNT_DIMS(fn_, ...)                                                            \
    static size_t fn_(const kc_shape *s)                                                   \
    {                                                                                      \
        static const int kc_dims_[] = { __VA_ARGS__ };                                     \
        return kc_count_dims(s, kc_dims_, (int)(sizeof kc_dims_ / sizeof kc_dims_[0]), #fn_); \
    }

/* Dim i of the shape, exactly, as an integer scalar's value (kc_arg.ivalue):
 * kc_dim0 is d[0], ..., kc_dim7 d[7]. */
KC_API int64_t kc_dim0(const kc_shape *s);
KC_API int64_t kc_dim1(const kc_shape *s);
KC_API int64_t kc_dim2(const kc_shape *s);
KC_API int64_t kc_dim3(const kc_shape *s);
KC_API int64_t kc_dim4(const kc_shape *s);
KC_API int64_t kc_dim5(const kc_shape *s);
KC_API int64_t kc_dim6(const kc_shape *s);
KC_API int64_t kc_dim7(const kc_shape *s);
/* An integer scalar whose value is dim i of the shape (i a literal 0..7):
 * KC_SCALAR_DIM("n", KC_I32, 0) passes d[0] as an int. The value is
 * stored as the dtype stores integers (saturated: a dim past INT32_MAX
 * passes INT32_MAX as an I32). Integer dtypes only: the registry refuses
 * ivalue on a float scalar (use KC_SCALAR with a value function). */
#define KC_SCALAR_DIM(name_, dtype_, dim_) \
    { .kind = KC_ARG_SCALAR, .name = (name_), .dtype = (dtype_), .ivalue = kc_dim##dim_ }

/* What the host reference sees. in(r, a, i) reads element i of argument a's
 * generated input (IN and INOUT buffers) as a double, exactly; out[a] is the
 * float64 reference for OUT and INOUT buffers, count[a] elements, to be filled.
 * Arguments are indexed in the contract's order; kc_ref_arg finds one by its
 * name, so a reference written with names survives a reordered list. */
typedef struct kc_ref {
    const kc_shape *shape;
    kc_dist dist;
    int nargs;
    const void *host[KC_MAX_ARGS];
    kc_dtype dtype[KC_MAX_ARGS];
    size_t count[KC_MAX_ARGS];
    double scalar[KC_MAX_ARGS];
    double *out[KC_MAX_ARGS];
    const char *name[KC_MAX_ARGS];  /* each argument's kc_arg.name */
    int64_t iscalar[KC_MAX_ARGS];   /* integer scalars, exactly (scalar[] rounds beyond 2^53) */
    const void *user;               /* the contract's kc_contract.user */
    /* Outputs whose kc_arith says KC_MAG_REFERENCE: count[a] doubles to fill
     * with each element's magnitude M (sum_k |t_k|); NULL for the others. */
    double *mag[KC_MAX_ARGS];
} kc_ref;

/* Element i of argument a's input as a double (exact for every dtype). */
KC_API double kc_ref_in(const kc_ref *r, int a, size_t i);
/* The index of the argument called name. A name the contract does not have
 * is a mistake in the reference: it is reported on stderr, naming the
 * contract's arguments, and the process aborts (the item fails as a crash;
 * it never reads another argument silently). */
KC_API int kc_ref_arg(const kc_ref *r, const char *name);
/* kc_ref_in and out[] by argument name. */
KC_API double kc_ref_in_named(const kc_ref *r, const char *name, size_t i);
KC_API double *kc_ref_out_named(const kc_ref *r, const char *name);

/* An input resolved once (kc_ref_input): its data, element type, elements
 * and name. Read element i with kc_in_at, which does no name lookup (a
 * reference that reads by name per element, kc_ref_in_named, looks the name
 * up every time). */
typedef struct kc_in {
    const void *data;
    kc_dtype dtype;
    size_t count;
    const char *name;
} kc_in;
/* The input of the argument called name (IN and INOUT buffers; aliases and
 * tensor maps show their buffer's). An unknown name aborts as kc_ref_arg
 * does; an argument with no input (an OUT buffer, a scalar) is reported the
 * same way, naming it. */
KC_API kc_in kc_ref_input(const kc_ref *r, const char *name);
/* Reports element i of v read past its count (stderr: the name, i, count)
 * and aborts: kc_in_at's bounds check. */
KC_API void kc_in_out_of_range(const kc_in *v, size_t i) __attribute__((noreturn));
/* Element i of v as a double, exactly (kc_load), checked against v.count. */
static inline double kc_in_at(const kc_in *v, size_t i)
{
    if (i >= v->count) kc_in_out_of_range(v, i);
    return kc_load(v->dtype, v->data, i);
}

/* A row-parallel reference: row(ctx, i) for every row i in [0, rows) of
 * `cols` elements each, on the harness's threads (kc_parallel_for), in
 * chunks of at least 64K elements (65536 / cols + 1 rows) so that small
 * shapes stay on one thread. Rows must be independent (each writes only its
 * own outputs); the bits are the same on any thread count. */
KC_API void kc_parallel_rows(size_t rows, size_t cols, void (*row)(void *ctx, size_t i), void *ctx);

/* Reference helper: C[m, n] = sum_k A[m, k] * B[n, k] in float64, for an
 * "NT" GEMM contract by position: 0 C (the output, M*N), 1 A (M*K), 2 B
 * (N*K); shape d[0] M, d[1] N, d[2] K: kc_ref_gemm over those arguments
 * without bias (any float input dtype; bitwise as before for f16 and bf16). */
KC_API void kc_ref_gemm_nt(const kc_ref *r);

/* ---- Common references (src/core/ref_common.c, ref_gemm.c) ----------------
 * Float64 references of common operations, to call from a contract's
 * reference with the names of its arguments. Each reads its inputs exactly
 * (kc_ref_input: any dtype), computes in double, and runs its rows on the
 * harness's threads (bitwise the same on any thread count). The row-wise
 * ones take [rows, cols] row-major, rows = count(x) / cols. A mistake in
 * the call (an unknown name, cols that do not divide the input, an output or
 * weight of the wrong size) is reported on stderr with the values and the
 * process aborts, as kc_ref_arg does. */

/* LayerNorm over each row (torch.nn.functional.layer_norm, biased
 * variance): y = (x - mean) * (1 / sqrt(var + eps)) * w + b, with mean and
 * var two-pass in double (var = mean of (x - mean)^2), in that order of
 * operations. w and b have cols elements; NULL: no weight (x 1), no bias
 * (+ 0). eps as the kernel gets it (an f32 scalar: (double)(float)eps). */
KC_API void kc_ref_layernorm(const kc_ref *r, const char *y, const char *x, const char *w, const char *b, size_t cols,
                             double eps);
/* RMSNorm over each row (Zhang & Sennrich 2019; Llama's):
 * y = x * (1 / sqrt(sum(x^2) / cols + eps)) * w; w NULL: no weight. */
KC_API void kc_ref_rmsnorm(const kc_ref *r, const char *y, const char *x, const char *w, size_t cols, double eps);
/* Softmax over each row: y = exp(x - max) / sum(exp(x - max)). Conventions
 * (torch.softmax's): -inf entries give exactly 0; a row whose entries are
 * all -inf gives NaN in every entry; a NaN or +inf anywhere in a row gives
 * NaN in every entry of it. exp is the C library's. */
KC_API void kc_ref_softmax(const kc_ref *r, const char *y, const char *x, size_t cols);
/* GELU (Hendrycks & Gimpel 2016) of one value: ERF x * (1 + erf(x / sqrt 2))
 * / 2 (torch's approximate='none'); TANH x * (1 + tanh(sqrt(2/pi) (x +
 * 0.044715 x^3))) / 2 (approximate='tanh'). Infinities: GELU(+inf) = +inf,
 * GELU(-inf) = -0 (the limits; the formulas would give NaN), NaN stays NaN. */
typedef enum kc_gelu_form { KC_GELU_ERF = 0, KC_GELU_TANH = 1 } kc_gelu_form;
KC_API double kc_gelu(double x, kc_gelu_form form);
/* y[i] = kc_gelu(x[i], form) for every element (y and x the same count). */
KC_API void kc_ref_gelu(const kc_ref *r, const char *y, const char *x, kc_gelu_form form);
/* Cross-entropy per row (torch.nn.functional.cross_entropy, reduction
 * 'none'): loss[i] = log(sum_j exp(x[i][j] - m)) - (x[i][t] - m), m the
 * row's max and t = target[i] (an integer buffer of rows elements); loss 0
 * where t == ignore_index (torch's default -100). A target outside [0, cols)
 * that is not ignore_index is a precondition the inputs break: reported
 * with the row and value, and the process aborts (range the targets:
 * KC_BUFFER_RANGE). A row all -inf gives NaN, as softmax. */
KC_API void kc_ref_cross_entropy(const kc_ref *r, const char *loss, const char *x, const char *target, size_t cols,
                                 int64_t ignore_index);

/* A GEMM for kc_ref_gemm: C[m][n] = sum_k A[m][k] * B(k, n) (+ bias[n]),
 * row-major, A [M, K]; B [N, K] (b_kn 0: "NT", C = A B^T) or [K, N] (b_kn
 * 1: "NN"); bias NULL or N elements, added once after the sum. Inputs of
 * any float dtype (f32, f16, bf16, e4m3, f64); products of f32 or narrower
 * inputs are exact in double, the sum runs in k order in double. */
typedef struct kc_gemm_spec {
    const char *c, *a, *b;     /* argument names: the output and the two inputs */
    const char *bias;          /* NULL: no bias */
    int64_t m, n, k;
    int b_kn;
} kc_gemm_spec;
KC_API void kc_ref_gemm(const kc_ref *r, const kc_gemm_spec *g);

/* Runs fn(ctx, begin, end) over [0, n) in chunks of `grain` items (the last
 * one shorter) on up to the harness's thread count (--threads; default all
 * CPUs in a serial run, CPUs / N for each of --jobs N), and returns when every
 * chunk is done. Chunk boundaries depend only on n and grain, never on the
 * thread count, so a reference that writes disjoint rows per chunk gives the
 * same bits on any machine. n <= grain runs inline on the caller's thread.
 * For references over many independent rows (a GEMM's rows of C, a sampler's
 * rows): keep each row's arithmetic sequential and obvious. */
KC_API void kc_parallel_for(size_t n, size_t grain, void (*fn)(void *ctx, size_t begin, size_t end), void *ctx);

/* What a device reference sees: the same case as kc_ref, on the GPU. in[a] is
 * the device address of argument a's generated input (IN and INOUT buffers;
 * NULL otherwise), dtype[a] its element type, count[a] its elements; out[a]
 * the device address of the float64 reference to write for OUT and INOUT
 * buffers (count[a] elements, every one NaN until written). shape is the
 * case's shape with a NULL name. Passed by value as the kernel's only
 * argument: extern "C" __global__ void ref(kc_dref r).
 * include/kcontract_device.cuh reads inputs as doubles (kc_dref_in). */
#define KC_DREF_NAME_MAX 32   /* bytes of an argument's name in kc_dref, its NUL included */
typedef struct kc_dref {
    kc_shape shape;
    kc_dist dist;
    int nargs;
    kc_dtype dtype[KC_MAX_ARGS];
    unsigned long long count[KC_MAX_ARGS];
    double scalar[KC_MAX_ARGS];
    const void *in[KC_MAX_ARGS];
    double *out[KC_MAX_ARGS];
    double *mag[KC_MAX_ARGS];       /* as kc_ref.mag: device addresses, NaN until written; NULL where not asked */
    /* Each argument's kc_arg.name, NUL-terminated; a name of
     * KC_DREF_NAME_MAX bytes or more is left empty (found by no lookup).
     * Appended after the fields above, which keep their offsets. Look names up with kc_dref_find (or kcontract_device.cuh's
     * kc_dref_arg), once, not per element. */
    char name[KC_MAX_ARGS][KC_DREF_NAME_MAX];
} kc_dref;

#ifdef __CUDACC__
#define KC_DREF_HD __host__ __device__
#else
#define KC_DREF_HD
#endif
/* The index of the argument called name in r (its kc_arg.name, compared
 * whole), or -1 when r has none: no argument of that name, or a name that
 * kc_dref cannot carry (KC_DREF_NAME_MAX bytes or more). Host and device. */
static inline KC_DREF_HD int kc_dref_find(const kc_dref *r, const char *name)
{
    for (int a = 0; name && name[0] && a < r->nargs && a < KC_MAX_ARGS; a++) {
        const char *s = r->name[a];
        int i = 0;
        while (i < KC_DREF_NAME_MAX - 1 && s[i] && s[i] == name[i]) i++;
        if (s[i] == '\0' && name[i] == '\0') return a;
    }
    return -1;
}

/* The device properties a launch may depend on. */
typedef struct kc_device {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;        /* compute capability */
    int sm_count;                  /* multiprocessors */
    int max_threads_per_block;
    int warp_size;
    size_t smem_per_block;         /* bytes, default limit (48 KiB) */
    size_t smem_per_block_optin;   /* bytes, after cuFuncSetAttribute */
    size_t smem_per_sm;            /* bytes */
    int regs_per_sm;
    int max_blocks_per_sm;
    int integrated;                /* shares host memory (e.g. GB10) */
    size_t total_mem;              /* bytes of device memory */
} kc_device;

/* Launch geometry: grid in blocks, block in threads, dynamic shared memory in
 * bytes; and what Hopper launches add (cuLaunchKernelEx's attributes; all
 * zero: a plain launch, as through cuLaunchKernel):
 *   cluster      thread block cluster dims in blocks (sm_90+); {0,0,0}: no
 *                cluster. Each grid dim must be a multiple of the cluster's;
 *                more than 8 blocks a cluster needs nonportable_cluster.
 *                Gate 1 checks that one cluster of the launch fits an SM
 *                group (cuOccupancyMaxActiveClusters > 0) and names the
 *                launch when it does not; the limits item reports active
 *                clusters per GPU.
 *   nonportable_cluster  1: the kernel may use clusters above the portable
 *                size 8 (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
 *                set before the launch; up to 16 on H100/H200).
 *   cooperative  1: a cooperative launch (CU_LAUNCH_ATTRIBUTE_COOPERATIVE):
 *                the kernel may sync the whole grid
 *                (cooperative_groups::this_grid().sync()). Gate 1 checks that
 *                every block can be resident at once (blocks per SM from
 *                the occupancy calculator x SMs >= grid) and names the
 *                launch when not: the driver would refuse it
 *                (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE). */
typedef struct kc_launch {
    unsigned grid[3];
    unsigned block[3];
    unsigned smem;
    unsigned cluster[3];
    int nonportable_cluster;
    int cooperative;
    /* In (set by the harness before it calls the launch function): the block
     * size, in threads, of the launch variant this case runs, one of the
     * contract's block_sizes; 0 when the contract lists none. The launch
     * function sizes block and grid with it (block[0] x block[1] x block[2]
     * must equal it, or gate 1 fails naming both). */
    unsigned block_size;
} kc_launch;

/* One-dimensional launch geometry, for a kernel with one thread per element
 * guarded by `if (i < n)`: block {block, 1, 1} threads, grid {ceil(n /
 * block), 1, 1} blocks; n = 0 gives one block (a launch must have one: the
 * kernel's guard makes it do nothing). The other fields of l are left as
 * they are (smem, cluster: zero when the harness calls launch). A block of
 * 0 or above 1024 threads (CUDA's limit), or a grid past 2^31 - 1 blocks
 * (gridDim.x's limit), is reported on stderr with the values and the
 * process aborts. Use inside a launch function:
 *     static void launch(const kc_shape *s, const kc_device *d, kc_launch *l)
 *     { kc_launch_1d(l, (uint64_t)s->d[0], 256); }
 * A block size is a property of the launch, not of the shape: a kernel
 * that takes several lists them in its contract's block_sizes, and every
 * case runs under each, the launch function reading l->block_size:
 *     { kc_launch_1d(l, (uint64_t)s->d[0], l->block_size); }
 * (docs/writing-a-contract.md, "Block sizes"). */
KC_API void kc_launch_1d(kc_launch *l, uint64_t n, unsigned block);

/* ---- Edge shapes derived from a model shape (src/core/edge_shapes.c). */

/* How kc_edge_shapes varies one dim of a model shape to reach the sizes
 * where tiled kernels break: off the tile by one on each side of the first
 * tile and of the model's own size, and 1.
 *   dim       the dim varied, d[dim] (0 .. KC_MAX_DIMS - 1)
 *   tile      the kernel's tile (or block) along it, >= 1: the candidates
 *             are 1, tile - 1, tile + 1, D - 1 and D + 1 (D the model's
 *             d[dim]); a candidate that is a multiple of tile is no edge
 *             and is dropped
 *   min, max  the values allowed, inclusive (min 0: 1; max 0: no bound)
 *   keep      the kernel's precondition over a candidate shape (whole
 *             shape: a rule may read other dims), e.g. K % 8 == 0; NULL
 *             keeps all. A candidate it refuses moves away from the tile
 *             boundary to the nearest value it keeps (1 upwards, tile - 1
 *             and D - 1 downwards, tile + 1 and D + 1 upwards), at most
 *             4096 steps, still off the tile and in [min, max]. */
typedef struct kc_edge_rule {
    int dim;
    int64_t tile;
    int64_t min, max;
    int (*keep)(const kc_shape *s);
} kc_edge_rule;

/* Appends to `list` (a {0}-terminated array of `cap` entries, the
 * terminator included) the edge shapes `rule` derives from `model`: the
 * model's dims with d[dim] replaced, class KC_SHAPE_EDGE, named
 * "edge.<model's name>.d<dim>=<value>" (allocated, kept for the process).
 * A candidate whose dims equal an entry already in the list is left out
 * (derived shapes deduplicate against each other and against hand-written
 * ones). Returns the number appended; -1 with why (at most why_cap bytes,
 * may be NULL) naming the value and what was expected when an argument is
 * NULL, dim is outside [0, KC_MAX_DIMS), tile < 1, the model's d[dim] < 1,
 * min > max, the list has no room for all it derives (then nothing is
 * appended), or no candidate survives (a rule that derives nothing is a
 * mistake, not an empty set). */
KC_API int kc_edge_shapes(kc_shape *list, int cap, const kc_shape *model, const kc_edge_rule *rule, char *why,
                          size_t why_cap);
/* kc_edge_shapes for a contract's shape list at load time: a refusal is
 * reported on stderr naming `what` (the list) and the process exits with 2,
 * the exit of a contract's mistake. The model is list[model]. */
KC_API void kc_derive_edges(kc_shape *list, int cap, int model, const kc_edge_rule *rule, const char *what);
/* KC_EDGE_SHAPES(list, model, rule fields...) derives a static shape
 * list's edges before main (a constructor), for .shapes = list:
 *     static int k_mod8(const kc_shape *s) { return s->d[2] % 8 == 0; }
 *     static kc_shape shapes[16] = {            // room for the derived ones
 *         { "llama3-8b.qkv", KC_SHAPE_MODEL, { 4096, 6144, 4096 } },
 *         { "edge.1x1x8", KC_SHAPE_EDGE, { 1, 1, 8 } },
 *         { 0 } };
 *     KC_EDGE_SHAPES(shapes, 0, .dim = 2, .tile = 64, .keep = k_mod8)
 * adds K = 8, 56, 72, 4088 and 4104 (the off-tile K nearest 1, 63, 65,
 * 4095 and 4097 that meet K % 8 == 0). Use it once per line. */
#define KC_EDGE_SHAPES(list_, model_, ...) KC_EDGE_SHAPES_AT_(list_, model_, __LINE__, __VA_ARGS__)
#define KC_EDGE_SHAPES_AT_(list_, model_, line_, ...) KC_EDGE_SHAPES_AT2_(list_, model_, line_, __VA_ARGS__)
#define KC_EDGE_SHAPES_AT2_(list_, model_, line_, ...)                                              \
    __attribute__((constructor)) static void kc_edges_##list_##_##line_(void)                      \
    {                                                                                              \
        static const kc_edge_rule kc_rule_ = { __VA_ARGS__ };                                      \
        kc_derive_edges(list_, (int)(sizeof list_ / sizeof list_[0]), model_, &kc_rule_, #list_); \
    }

/* One launch of a contract that is a sequence of kernels on one stream: a
 * producer and its dependent (programmatic dependent launch, sm_90), or
 * any short pipeline whose kernels hand each other buffers. The harness
 * loads every step's function from the contract's module (a control's
 * build too), launches the steps in order on one stream, each with its own
 * geometry and the contract's arguments it names, synchronizes once after
 * the last, and judges the whole sequence's outputs (gates 2-4): an output
 * one step writes and the next reads is an output of the contract like any
 * other. Gate 1 checks every step's launch before the first is made and
 * names the step that does not fit. docs/writing-a-contract.md, "Sequences
 * of kernels and programmatic dependent launch". */
typedef struct kc_step {
    const char *symbol;                 /* extern "C" __global__ in the contract's module */
    const char *args[KC_MAX_ARGS];      /* the contract's arguments this kernel takes, by name, in its parameter order
                                         * (ends at the first NULL; every argument is taken by some step) */
    void (*launch)(const kc_shape *s, const kc_device *dev, kc_launch *l);
    int programmatic;                   /* 1: launched with programmatic stream serialization after the step before
                                         * (PDL, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION): it may start
                                         * before that step ends and must wait on it (griddepcontrol.wait /
                                         * cudaGridDependencySynchronize) before reading what it wrote. Not on step 0. */
} kc_step;

/* Resource budget. max_regs (per thread) and max_smem (static + dynamic bytes
 * per block) 0 mean "the device limit"; max_local is local-memory bytes per
 * thread and 0 means no spills allowed; min_blocks_per_sm 0 means "at least 1". */
typedef struct kc_budget {
    int max_regs;
    int max_smem;
    int max_local;
    int min_blocks_per_sm;
} kc_budget;

/* A float64 CUDA reference of a contract: the same outputs as its host
 * reference, computed on the GPU from the inputs already there (no
 * download, no host arithmetic). The host reference stays the oracle:
 * `--reference host` uses it instead, and `--reference both` runs both on
 * every case and fails the case when they differ beyond `agree`. Write the
 * same arithmetic in the same order as the host reference and the results
 * are bitwise equal: modules named *_ref.cu are built with -fmad=false, so no
 * multiply-add is fused that the host does not fuse; libm functions (exp,
 * log, ...) may differ from CUDA's by an ulp, which `agree` must then allow
 * (with its reason). */
typedef struct kc_device_ref {
    const char *module;     /* kernels/<family>/<module>.cu, without ".cu" */
    const char *symbol;     /* extern "C" __global__ void symbol(kc_dref r) */
    /* Its grid; NULL: 4 blocks of 256 threads per SM, for grid-stride loops
     * (kcontract_device.cuh, KC_GRID_STRIDE). */
    void (*launch)(const kc_shape *s, const kc_device *dev, kc_launch *l);
    kc_tol agree;           /* --reference both: |device - host| <= atol + rtol |host|; reason NULL: bitwise */
} kc_device_ref;

/* The sanitizer gate (docs/sanitizer-gate.md): a control planted for it
 * (kc_control.gate) passes gates 1-4 and is caught by compute-sanitizer. */
#define KC_GATE_SANITIZE 5

/* Controls that need no source change (kc_control.harness): the harness
 * plants the bug in how it runs the clean build. KC_HARNESS_BLOCK_SHORT:
 * every launch one block short (the grid's x dimension one less; y, then z,
 * when x is 1; a grid of one block is launched as it is), so the last
 * block's elements are never written: what gates 2 and 3 must catch for a
 * kernel that maps blocks to elements (a grid-stride kernel covers them
 * anyway, and the control is MISSED: it cannot plant this bug there). */
#define KC_HARNESS_BLOCK_SHORT 1

/* A planted-bug variant: the module compiled with -DKC_CONTROL_<name>
 * (harness 0), or the clean build run with a bug the harness plants
 * (harness KC_HARNESS_*: no build of its own, for kernels you may not edit).
 * gate (1-4, or KC_GATE_SANITIZE; a harness control 1-4) is the gate that
 * should catch it; bug says which real bug class. */
typedef struct kc_control {
    const char *name;
    int gate;
    const char *bug;
    int harness;
} kc_control;

/* A known finding: gate `gate` failing on shapes matching the glob `shape`
 * (NULL = every shape) and on input distributions whose name matches the
 * glob `dist` (fnmatch(3); NULL = every distribution; the names failure
 * lines print: "normal", "neg_inf", "n*") is counted KNOWN, not FAIL:
 * a precondition the kernel does not meet on some inputs (NaN rows when a
 * row is all -inf) is recorded without failing the cases it does meet. If
 * it no longer fails the entry is reported stale (and the run fails: remove
 * it). A case that loses the CUDA context is held too: it runs again alone
 * in a fresh process, which decides (docs/writing-a-contract.md).
 *
 * Gate KC_GATE_SANITIZE: compute-sanitizer's report on the :sanitize item:
 * its first error from tool `tool` ("memcheck", "racecheck", "initcheck",
 * "synccheck"; a glob), in a kernel whose name matches `kernel` (the
 * report's "at <kernel>+0x.." name, demangled as the tool prints it: a glob,
 * NULL any) with words matching `error` (the report's first line, "Invalid
 * __global__ read of size 4 bytes": a glob, NULL any) is KNOWN; the other
 * tools still run and decide. shape and dist stay NULL (the sanitizer's
 * report does not say which of its launches' shapes erred, and it runs
 * each shape's first distribution only). tool, kernel and error are NULL
 * for gates 1-4. */
typedef struct kc_known {
    int gate;
    const char *shape;
    const char *reason;
    const char *dist;
    const char *tool;
    const char *kernel;
    const char *error;
} kc_known;

/* A boundary distribution (ZEROS, CONSTANT, DENORMAL, INT_EXTREMES) a
 * contract does not run although its inputs could take it, and why (the
 * contract lint asks for one or the other). */
typedef struct kc_dist_skip {
    kc_dist dist;
    const char *reason;
} kc_dist_skip;

/* A host-launched library kernel (cuBLAS, CUB, ...): an extern "C" host
 * function in a shared library built by this project. args[i] points to what
 * cuLaunchKernel would get for parameter i: the device pointer (CUdeviceptr)
 * of a buffer, or the scalar, tensor map or struct by value (carried buffers
 * are no parameters: they are not in args). The device's primary context is current
 * (the CUDA runtime uses it). Returns 0, or a CUDA error code (a CUresult; the
 * runtime's cudaError_t codes for the same errors are equal; a runtime code with
 * no CUresult twin, e.g. 35, is named as the runtime names it,
 * cudaErrorInsufficientDriver, in the failure line). The harness
 * synchronizes the context afterwards, as after a kernel. */
typedef int (*kc_host_entry)(void *const *args, const kc_shape *s, const kc_device *dev);

/* What a library kernel's shared library may define beside its entries:
 * kc_host_release (declared below), which frees what the library keeps
 * between calls (a cuBLAS handle and its workspace, a cached plan). The
 * harness calls it once after every item that loaded the library, whether
 * a case reached an entry or not (the clean build's too after a control's
 * comparison; not once the CUDA context is lost), before it checks what the
 * item left in the context, so that a handle made on the first call does
 * not outlive the item; the next call makes it again. Without it, what the
 * library keeps stays in the process: more than 64 MiB for one item (NVML)
 * replaces the process after it and its pass is not cached; less is not
 * noticed. Returns 0 (also with nothing to free), or a CUDA error code as an
 * entry does (a library's own status converted); a failure is said on the
 * item's line, its verdict stands and its process is replaced (under
 * compute-sanitizer the item fails and its session ends). */
#define KC_HOST_RELEASE "kc_host_release"
typedef int (*kc_host_release_fn)(void);
/* Declared here with C linkage, so that a library's definition with another
 * signature does not compile; defined only by libraries that keep state. */
int kc_host_release(void);

/* A kernel contract. Arrays end at the first zero entry. */
typedef struct kc_contract {
    const char *name;           /* stable dotted name, e.g. "rmsnorm.f16" */
    const char *module;         /* kernels/<family>/<module>.cu, without ".cu" */
    const char *symbol;         /* extern "C" __global__ function (NULL with steps) */
    /* Instead of module and symbol (and launch): a library kernel. library
     * "kc_cub" is lib/libkc_cub.so next to the binary (or in $KC_LIBDIR), built
     * from <family>/libkc_cub.cu; a control's is libkc_cub@<control>.so, built
     * with -DKC_CONTROL_<control>. entry is a kc_host_entry in it. */
    const char *library;
    const char *entry;
    /* Names of shape dims d[0..], up to the first NULL. A count, an
     * arithmetic's terms or depth, or a scalar's value that reads a dim
     * past them (0 on every shape that leaves it out) is refused at start,
     * naming it and these; a contract that names none is not checked. */
    const char *dims[KC_MAX_DIMS];
    kc_arg args[KC_MAX_ARGS];
    void (*launch)(const kc_shape *s, const kc_device *dev, kc_launch *l);  /* NULL for a library, or with steps */
    const kc_shape *shapes;                 /* ends with {0} */
    kc_dist dists[KC_MAX_DISTS];            /* empty means {UNIFORM, NORMAL} */
    kc_dist_skip no_boundary[KC_MAX_DISTS]; /* boundary distributions not run, with reasons */
    void (*reference)(const kc_ref *r);
    kc_device_ref device_reference;         /* optional: the same reference on the GPU */
    kc_tol tol;                             /* default for every output */
    kc_errors errors;                       /* error model of every output (gate 3's statistics) */
    const char *nondeterministic;           /* NULL: bitwise deterministic; else why not */
    kc_budget budget;
    kc_control controls[KC_MAX_CONTROLS];
    kc_known known[KC_MAX_KNOWN];
    double timeout_s;                       /* 0: the harness default */
    /* NULL: the contract has a <name>:sanitize item (compute-sanitizer's
     * four tools on its edge shapes and smallest model shape); else why it
     * has none (the registry refuses an empty reason). */
    const char *no_sanitize;
    /* NULL: the :sanitize item runs racecheck too; else why not (kernels of
     * a vendor library that racecheck flags, which are not this contract's
     * code to fix); the other three tools still run. */
    const char *no_racecheck;
    /* The contract's own data for its callbacks: the reference gets it as
     * kc_ref.user, a generator as kc_gen.user (one contract source may
     * register several contracts over one set of functions). */
    const void *user;
    /* Instead of symbol and launch (left NULL): a sequence of kernels of
     * module, launched in order on one stream (kc_step). Ends at the first
     * step without a symbol; none: the contract is its one kernel. */
    kc_step steps[KC_MAX_STEPS];
    /* What every output's arithmetic does (kc_arith), from which gate 3
     * derives their tolerances; instead of tol; an output's own arith or
     * tol comes first. */
    kc_arith arith;
    /* Launch variants: the block sizes (threads per block, 1-1024, each
     * once) the launch function accepts, ending at the first 0; none: the
     * launch function's own. Every case (shape x distribution) runs under
     * each, the launch function getting it as kc_launch.block_size; failure
     * lines name it ("block 128") and their rerun command selects it
     * (--block-size 128). The :limits and :sanitize items run the first.
     * Not for a library kernel (its entry launches) or with steps. */
    unsigned block_sizes[KC_MAX_BLOCK_SIZES];
} kc_contract;

/* Standalone suites: host-only or GPU tests that are not one kernel's contract.
 * run() returns 0 to pass; kc_suite_fail() records why it did not. */
typedef struct kc_suite_ctx kc_suite_ctx;
typedef struct kc_suite {
    const char *name;
    int needs_gpu;
    int (*run)(kc_suite_ctx *ctx);
} kc_suite;

/* Records a failure message for the suite's line (printf format). Returns 1, so
 * `return kc_suite_fail(ctx, ...)` fails the suite. The line shows it on one
 * line: control bytes (a newline, an ESC sequence) and invalid UTF-8 escaped,
 * `\n`, `\x1b` (docs/output-format.md, "One item, one line"). */
KC_API int kc_suite_fail(kc_suite_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The device a GPU suite runs on (NULL for host-only runs). */
KC_API const kc_device *kc_suite_device(const kc_suite_ctx *ctx);

/* Registration. Every contract, suite and embedded kernel image registers
 * itself when its object is loaded (a constructor, run before main for the
 * objects linked into the binary and by dlopen for a shared library): no
 * list to edit, no generated table, any linked object or loaded library
 * counts. Each call carries the KC_ABI_VERSION and struct size its caller
 * was compiled with; a mismatch is recorded, not registered, and the run
 * refuses to start naming it (usage error, exit 2). The pointers must stay
 * valid for the life of the process (static data). */
KC_API void kc_register_contract(const kc_contract *c, int abi, size_t size);
KC_API void kc_register_suite(const kc_suite *s, int abi, size_t size);
/* An embedded kernel image: the fatbin of <module>.cu, built clean (control
 * NULL) or with -DKC_CONTROL_<control>; [start, end) its bytes; source the
 * 16 hex digits of what it was built from (kcontract_digest.sh; NULL when
 * not known), part of the build identity that shards are merged by. Written by
 * the build helpers (kcontract.mk, kcontract_add_suite in CMake) through
 * kcontract_embed.c, never by hand. */
KC_API void kc_register_module(const char *module, const char *control, const unsigned char *start,
                               const unsigned char *end, const char *source, int abi);

/* KC_CONTRACT(id) { .name = "...", ... };  defines and registers a contract. */
#define KC_CONTRACT(id) \
    static const kc_contract id; \
    __attribute__((constructor)) static void kc_reg_ctor_##id(void) \
    { kc_register_contract(&id, KC_ABI_VERSION, sizeof(kc_contract)); } \
    static const kc_contract id =

/* KC_SUITE(id, "name", needs_gpu) { ...body returning 0 or kc_suite_fail()... } */
#define KC_SUITE(id, name_, needs_gpu_) \
    static int id##_run(kc_suite_ctx *ctx); \
    static const kc_suite id = { (name_), (needs_gpu_), id##_run }; \
    __attribute__((constructor)) static void kc_reg_ctor_##id(void) \
    { kc_register_suite(&id, KC_ABI_VERSION, sizeof(kc_suite)); } \
    static int id##_run(kc_suite_ctx *ctx)

/* The contract lint (docs/writing-a-contract.md, "What every contract must
 * have"): every registered contract checked on the host, without a GPU,
 * against the rules the registry does not refuse at start: at least two
 * controls, a model, an edge and one large shape, non-empty buffers, every
 * launch within CUDA's limits on an H200 (block <= 1024 threads, grid y
 * and z <= 65535, dynamic shared memory <= 232448 bytes), the boundary
 * distributions run or skipped with a reason, bounds tight enough to catch
 * something (rtol < 0.5, atol < 1), ranges of the dtype's values, tables
 * with generators, reasons where a field asks for one. Returns 0 when every
 * contract holds, else 1 with kc_suite_fail's message naming the first
 * contract's first problem and how many more contracts have problems. */
KC_API int kc_lint_contracts(kc_suite_ctx *ctx);
/* KC_CONTRACT_LINT_SUITE();  registers the host-only suite
 * host.contracts.lint over kc_lint_contracts in a suite of one's own (the
 * bundled suite has it): opt-in, so that an upgrade adds no failing item to
 * a suite that did not ask for it. Once per binary; `#ifdef
 * KC_CONTRACT_LINT_SUITE` tells whether the library has it. */
#define KC_CONTRACT_LINT_SUITE() \
    static const kc_suite kc_contract_lint_suite = { "host.contracts.lint", 0, kc_lint_contracts }; \
    __attribute__((constructor)) static void kc_reg_ctor_contract_lint(void) \
    { kc_register_suite(&kc_contract_lint_suite, KC_ABI_VERSION, sizeof(kc_suite)); } \
    KC_API int kc_lint_contracts(kc_suite_ctx *ctx)

/* The whole command line of kcontract (run, list, merge, info, every option)
 * over the contracts and suites registered in this process: what main() of
 * libkcontract_main does, for a user's suite binary. Returns the exit status. */
KC_API int kc_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* KCONTRACT_H */
