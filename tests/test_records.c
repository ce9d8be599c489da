/* test_launch_records.c — launch records (--records FILE, docs/launch-records.md):
 * the parser in process (good lines, comments, each refusal with FILE:LINE and
 * the token), item naming and uniqueness, the shipped records against an
 * H200's limits, the kernels' stated preconditions, a 4 GiB case and the
 * families each file covers, and the real binary without a GPU
 * (KC_LIBCUDA=/nonexistent): list shows the record items, run SKIPs them and
 * exits 3, --shard keeps each record item once, --jobs passes the file on. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gates.h"
#include "launch_records.h"
#include "registry.h"
#include "support/run_output.h"
#include "support/spawn.h"

#define LLAMA "records/llama3-8b.txt"
#define MIXTRAL "records/mixtral-8x7b.txt"

static char err[16384];

static kc_launch_records *parse(const char *text)
{
    return kc_launch_records_parse("t.txt", text, strlen(text), err, sizeof err);
}

/* Parsing `text` must fail with a problem at `line` that contains each of the
 * NULL-terminated substrings. */
static void expect_refused(const char *text, int line, ...)
{
    kc_launch_records *r = parse(text);
    cr_expect_null(r, "accepted:\n%s", text);
    kc_launch_records_free(r);
    char at[32];
    snprintf(at, sizeof at, "t.txt:%d: ", line);
    const char *p = strstr(err, at);
    cr_expect(p, "no problem at %s for:\n%s\ngot:\n%s", at, text, err);
    if (!p) return;
    const char *end = strchr(p, '\n');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char msg[2048];
    snprintf(msg, sizeof msg, "%.*s", (int)n, p);
    va_list ap;
    va_start(ap, line);
    for (const char *want; (want = va_arg(ap, const char *));)
        cr_expect(strstr(msg, want), "problem lacks \"%s\": %s", want, msg);
    va_end(ap);
}

/* ---- parsing ---------------------------------------------------------------- */

Test(records, good_lines_comments_blanks_crlf_tabs)
{
    kc_launch_records *r = parse("# a comment\n"
                          "\n"
                          "   \t  \n"
                          "rmsnorm.f16 tokens=7 hidden=4096 eps_exp10=5   # trailing comment\n"
                          "\tgemv.bf16\tM=1  N=33 K=31 ldx=31 name=decode.qkv\r\n"
                          "softmax.f32 cols=128256 rows=8");   /* no final newline, dims in any order */
    cr_assert_not_null(r, "%s", err);
    cr_assert_eq(r->n, 3);
    cr_expect_str_eq(r->v[0].name, "rmsnorm.f16@tokens=7,hidden=4096,eps_exp10=5");
    cr_expect_eq(r->v[0].line, 4);
    cr_expect_eq(r->v[0].shape[0].d[0], 7);
    cr_expect_eq(r->v[0].shape[0].d[1], 4096);
    cr_expect_eq(r->v[0].shape[0].d[2], 5);
    cr_expect_str_eq(r->v[1].name, "gemv.bf16@decode.qkv");
    cr_expect_eq(r->v[1].shape[0].d[3], 31);
    cr_expect_eq(r->v[1].line, 5);
    cr_expect_str_eq(r->v[2].name, "softmax.f32@rows=8,cols=128256");
    cr_expect_str_eq(r->v[2].origin, "t.txt:6");
    kc_launch_records_free(r);
}

Test(records, record_contract_has_exactly_the_one_shape)
{
    kc_launch_records *r = parse("silu_mul.bf16 tokens=3 d=14336\n");
    cr_assert_not_null(r, "%s", err);
    const kc_launch_record *rec = &r->v[0];
    const kc_contract *reg = kc_registry_find_contract("silu_mul.bf16");
    cr_assert_not_null(reg);
    cr_expect_eq(rec->registered, reg);
    cr_expect_str_eq(rec->c.name, "silu_mul.bf16");
    cr_expect_eq(rec->c.launch, reg->launch);
    cr_expect_eq(rec->c.reference, reg->reference);
    cr_expect_eq(rec->c.shapes, rec->shape);
    cr_expect_str_eq(rec->c.shapes[0].name, "tokens=3,d=14336");
    cr_expect_eq(rec->c.shapes[0].cls, KC_SHAPE_MODEL);
    cr_expect_null(rec->c.shapes[1].name, "a record item must run exactly one shape");
    cr_expect_neq(reg->shapes, rec->c.shapes);
    kc_launch_records_free(r);
}

Test(records, refuses_unknown_contract)
{
    expect_refused("# x\nrmsnorm.f8 tokens=1 hidden=1 eps_exp10=5\n", 2, "'rmsnorm.f8'", "unknown contract", NULL);
}

Test(records, refuses_dim_before_contract)
{
    expect_refused("tokens=1 rmsnorm.f16\n", 1, "'tokens=1'", "unknown contract", "expected a contract name", NULL);
}

Test(records, refuses_unknown_dim)
{
    expect_refused("rmsnorm.f16 rows=7 hidden=4096 eps_exp10=5\n", 1, "'rows=7'", "no dim 'rows'",
                   "tokens hidden eps_exp10", NULL);
}

Test(records, refuses_duplicate_dim)
{
    expect_refused("rmsnorm.f16 tokens=7 hidden=4096 tokens=8 eps_exp10=5\n", 1, "'tokens=8'", "given twice", NULL);
}

Test(records, refuses_non_integer)
{
    expect_refused("rmsnorm.f16 tokens=7x hidden=4096 eps_exp10=5\n", 1, "'tokens=7x'", "integer", NULL);
    expect_refused("rmsnorm.f16 tokens=7.0 hidden=4096 eps_exp10=5\n", 1, "'tokens=7.0'", "integer", NULL);
    expect_refused("rmsnorm.f16 tokens= hidden=4096 eps_exp10=5\n", 1, "'tokens='", "integer", NULL);
    expect_refused("rmsnorm.f16 tokens=+7 hidden=4096 eps_exp10=5\n", 1, "'tokens=+7'", "integer", NULL);
    expect_refused("rmsnorm.f16 tokens=07 hidden=4096 eps_exp10=5\n", 1, "'tokens=07'", "leading zeros", NULL);
}

Test(records, refuses_negative)
{
    expect_refused("rmsnorm.f16 tokens=-1 hidden=4096 eps_exp10=5\n", 1, "'tokens=-1'", "negative", NULL);
}

Test(records, refuses_overflow)
{
    expect_refused("rmsnorm.f16 tokens=2147483648 hidden=4096 eps_exp10=5\n", 1, "'tokens=2147483648'", "out of range",
                   "2147483647", NULL);
    expect_refused("rmsnorm.f16 tokens=99999999999999999999999 hidden=4096 eps_exp10=5\n", 1, "out of range", NULL);
    /* Fits each dim, but the buffers could not be sized. */
    expect_refused("gemv.f16 M=2147483647 N=2147483647 K=2147483647 ldx=1\n", 1, "2^50", NULL);
    /* Found by a break-it pass: accepted before, their counts or byte sizes wrapped. */
    expect_refused("gemm.64x64.bf16 M=1073741824 N=1073741824 K=1 name=x\n", 1, "2^50", NULL);
    expect_refused("attn_prefill.d64.bf16 head_dim=2147481290 q_heads=42055 kv_heads=1 len0=40851 len1=40851 "
                   "len2=40851 len3=40851 len4=40851\n", 1, "2^50", NULL);
    kc_launch_records *r = parse("rmsnorm.f16 tokens=2147483647 hidden=1 eps_exp10=5\n");
    cr_expect_not_null(r, "the largest value is accepted: %s", err);
    kc_launch_records_free(r);
}

Test(records, refuses_trailing_junk)
{
    expect_refused("rmsnorm.f16 tokens=7 hidden=4096 eps_exp10=5 extra\n", 1, "'extra'", "expected <dim>=<integer>",
                   NULL);
    expect_refused("rmsnorm.f16 tokens=7 hidden=4096 eps_exp10=5;\n", 1, "'eps_exp10=5;'", "integer", NULL);
}

Test(records, refuses_missing_dims)
{
    expect_refused("\nrmsnorm.f16 tokens=7\n", 2, "missing hidden, eps_exp10", "every dim", NULL);
}

Test(records, refuses_bad_labels)
{
    expect_refused("rmsnorm.f16 tokens=7 hidden=4096 eps_exp10=5 name=a:b\n", 1, "'name=a:b'", "name=<label>", NULL);
    expect_refused("rmsnorm.f16 tokens=7 hidden=4096 eps_exp10=5 name=\n", 1, "'name='", NULL);
    expect_refused("rmsnorm.f16 tokens=7 hidden=4096 eps_exp10=5 name=a name=b\n", 1, "'name=b'", "twice", NULL);
}

Test(records, refuses_empty_buffers_and_control_chars)
{
    expect_refused("rmsnorm.f16 tokens=0 hidden=4096 eps_exp10=5\n", 1, "no elements", NULL);
    expect_refused("rmsnorm.f16 tokens=1\x01 hidden=4096 eps_exp10=5\n", 1, "control character", NULL);
}

Test(records, refuses_a_file_without_records)
{
    kc_launch_records *r = parse("# only a comment\n\n");
    cr_expect_null(r);
    cr_expect(strstr(err, "t.txt: no launch records"), "%s", err);
}

Test(records, reports_every_problem_not_just_the_first)
{
    kc_launch_records *r = parse("foo x=1\nrmsnorm.f16 tokens=1 hidden=1 eps_exp10=5\nbar\n");
    cr_expect_null(r);
    cr_expect(strstr(err, "t.txt:1: 'foo'") && strstr(err, "t.txt:3: 'bar'"), "%s", err);
    cr_expect(!strstr(err, "t.txt:2:"), "line 2 is good:\n%s", err);
}

/* ---- naming and uniqueness ---------------------------------------------------- */

Test(records, names_are_stable_and_independent_of_dim_order)
{
    kc_launch_records *a = parse("rmsnorm.f16 eps_exp10=5 hidden=4096 tokens=7\n");
    kc_launch_records *b = parse("# shifted\n\nrmsnorm.f16   tokens=7 hidden=4096 eps_exp10=5\n");
    cr_assert(a && b, "%s", err);
    cr_expect_str_eq(a->v[0].name, b->v[0].name);
    cr_expect_str_eq(a->v[0].name, "rmsnorm.f16@tokens=7,hidden=4096,eps_exp10=5");
    kc_launch_records_free(a);
    kc_launch_records_free(b);
}

Test(records, duplicates_refused_naming_both_lines)
{
    expect_refused("rmsnorm.f16 tokens=7 hidden=4096 eps_exp10=5\n"
                   "# again, dims reordered\n"
                   "rmsnorm.f16 hidden=4096 tokens=7 eps_exp10=5\n",
                   3, "rmsnorm.f16@tokens=7,hidden=4096,eps_exp10=5", "line 1", NULL);
    /* The same label on different launches of one contract. */
    expect_refused("gemv.f16 M=1 N=8 K=8 ldx=8 name=x\ngemv.f16 M=1 N=16 K=8 ldx=8 name=x\n", 2, "gemv.f16@x", "line 1",
                   NULL);
    /* Labels tell apart records meant to differ; a label is per contract. */
    kc_launch_records *r = parse("gemv.f16 M=1 N=8 K=8 ldx=8 name=a\ngemv.f16 M=1 N=8 K=8 ldx=8 name=b\n"
                          "gemv.bf16 M=1 N=8 K=8 ldx=8 name=a\n");
    cr_expect_not_null(r, "%s", err);
    kc_launch_records_free(r);
}

Test(records, items_join_the_sorted_list)
{
    kc_item *items;
    char e[1024];
    int n = kc_registry_items(&items, e, sizeof e);
    cr_assert_geq(n, 1, "%s", e);
    kc_launch_records *r = parse("softmax.f16 rows=3 cols=5\naxpy.f32 n=9 name=zz\n");
    cr_assert_not_null(r, "%s", err);
    kc_item *copy = malloc((size_t)n * sizeof *copy);
    memcpy(copy, items, (size_t)n * sizeof *copy);
    int m = kc_launch_records_add_items(r, &copy, n, 0, e, sizeof e);
    cr_assert_eq(m, n + 2, "%s", e);
    int found = 0;
    for (int i = 0; i < m; i++) {
        if (i) cr_expect_lt(strcmp(copy[i - 1].name, copy[i].name), 0, "not sorted at %s", copy[i].name);
        if (copy[i].record) {
            found++;
            cr_expect_eq(copy[i].kind, KC_KIND_KERNEL);
            cr_expect_eq(copy[i].contract->shapes[1].name, NULL);
        }
    }
    cr_expect_eq(found, 2);
    /* only_records: just the two. */
    kc_item *only = malloc((size_t)n * sizeof *only);
    memcpy(only, items, (size_t)n * sizeof *only);
    cr_expect_eq(kc_launch_records_add_items(r, &only, n, 1, e, sizeof e), 2);
    cr_expect_str_eq(only[0].name, "axpy.f32@zz");
    cr_expect_str_eq(only[1].name, "softmax.f16@rows=3,cols=5");
    free(only);
    free(copy);
    free(items);
    kc_launch_records_free(r);
}

/* ---- the shipped records --------------------------------------------------- */

/* The H200 as measured by `kcontract info` (src/gates/contract_lint.c). */
static const kc_device h200 = {
    .name = "NVIDIA H200", .cc_major = 9, .cc_minor = 0, .sm_count = 132, .max_threads_per_block = 1024,
    .warp_size = 32, .smem_per_block = 49152, .smem_per_block_optin = 232448, .smem_per_sm = 233472,
    .regs_per_sm = 65536, .max_blocks_per_sm = 32, .total_mem = 150754820096ull,
};

/* Per-record memory the shipped files stay under (host and GPU each, kc_case_memory):
 * their largest records (a 128256 x 4096 weight or table, a 16800-page KV cache)
 * need ~2.1 GiB. */
#define SHIPPED_MAX_CASE_BYTES ((size_t)4 << 30)

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* The preconditions the kernels state in their sources (and the contracts'
 * generators rely on), which the parser does not check: a record that broke
 * one would be a false FAIL on the GPU, not a finding. Returns 0, or 1 with
 * the broken one in why. */
static int broken_precondition(const kc_launch_record *rec, char *why, size_t cap)
{
    const char *c = rec->c.name;
    const int64_t *d = rec->shape[0].d;
#define BROKEN(...) return snprintf(why, cap, __VA_ARGS__), 1
    if (starts(c, "gemv.")) {                   /* M N K ldx: gemv.cu accumulates at most 8 batch rows */
        if (d[0] < 1 || d[0] > 8) BROKEN("gemv with M=%lld (1..8)", (long long)d[0]);
        if (d[3] < d[2]) BROKEN("gemv with ldx %lld < K %lld", (long long)d[3], (long long)d[2]);
    } else if (starts(c, "fp8_gemv.")) {        /* M N K: FP8_MAX_M = 8 (fp8_gemv.cu) */
        if (d[0] < 1 || d[0] > 8) BROKEN("fp8_gemv with M=%lld (1..8)", (long long)d[0]);
    } else if (starts(c, "quant_int4.")) {      /* M N K G: G is the contract's group size */
        const int64_t g = strstr(c, ".g32") ? 32 : 128;
        if (d[3] != g) BROKEN("%s with G=%lld", c, (long long)d[3]);
    } else if (starts(c, "attn_decode.")) {     /* batch q_heads kv_heads page_size max_len num_pages */
        if (d[2] < 1 || d[1] % d[2] || d[1] / d[2] > 8)
            BROKEN("q_heads %lld / kv_heads %lld: G must be a whole 1..8 (AD_GMAX)", (long long)d[1], (long long)d[2]);
        const int64_t max_pages = (d[4] + d[3] - 1) / d[3];
        if (d[5] < d[0] * max_pages)
            BROKEN("%lld pages for %lld sequences of %lld pages (the block tables share none)", (long long)d[5],
                   (long long)d[0], (long long)max_pages);
    } else if (starts(c, "attn_prefill.")) {    /* head_dim q_heads kv_heads len0..len4 */
        if (d[0] != (strstr(c, ".d64.") ? 64 : 128)) BROKEN("head_dim %lld for %s", (long long)d[0], c);
        if (d[2] < 1 || d[1] % d[2]) BROKEN("q_heads %lld not a multiple of kv_heads %lld", (long long)d[1], (long long)d[2]);
        for (int i = 4; i < 8; i++)            /* the sequences end at the first 0: none may follow */
            if (d[i] > 0 && d[i - 1] == 0) BROKEN("len%d after an empty sequence (ignored)", i - 3);
    } else if (starts(c, "kv_cache.")) {        /* tokens kv_heads head_dim page_size num_pages scatter */
        if (d[2] % 8) BROKEN("head_dim %lld (16-byte vectors: a multiple of 8)", (long long)d[2]);
        if (d[5] > 1) BROKEN("scatter %lld (0 or 1)", (long long)d[5]);
        /* enough pages for distinct slots (kv_slots_gen clamps the pages it uses, and slots could repeat) */
        const int64_t need = d[5] ? d[0] : d[0] / d[3] + 2;
        if (d[4] < need) BROKEN("%lld pages, %lld needed for distinct slots", (long long)d[4], (long long)need);
    } else if (starts(c, "moe.topk_")) {        /* tokens experts topk renorm: moe.cu's MOE_MAX_E, MOE_MAX_K */
        if (d[1] > 256 || d[2] < 1 || d[2] > 8 || d[2] > d[1] || d[3] > 1)
            BROKEN("experts %lld topk %lld renorm %lld (E <= 256, 1 <= k <= min(8, E))", (long long)d[1], (long long)d[2],
                   (long long)d[3]);
    } else if (starts(c, "moe.align_block_size")) { /* tokens experts topk block */
        if (d[1] > 256 || d[2] > d[1] || d[3] < 1)
            BROKEN("experts %lld topk %lld block %lld (E <= 256, k <= E)", (long long)d[1], (long long)d[2], (long long)d[3]);
    } else if (starts(c, "sampling.topp.")) {   /* rows vocab p_permille */
        if (d[2] < 1 || d[2] > 1000) BROKEN("p_permille %lld (1..1000)", (long long)d[2]);
    } else if (starts(c, "sampling.topk.")) {
        if (d[2] < 1) BROKEN("k 0");
    }
#undef BROKEN
    return 0;
}

static void check_shipped(const char *path, int min_records, const char *const *families)
{
    kc_launch_records *r = kc_launch_records_load(path, err, sizeof err);
    cr_assert_not_null(r, "%s does not parse:\n%s", path, err);
    cr_expect_geq(r->n, min_records, "%s: %d records", path, r->n);
    int phases[4] = { 0 };
    for (int i = 0; i < r->n; i++) {
        const kc_launch_record *rec = &r->v[i];
        const kc_shape *s = &rec->shape[0];
        if (rec->c.launch) {                    /* library kernels (cuBLAS, CUB) launch themselves */
            kc_launch l = { { 1, 1, 1 }, { 1, 1, 1 }, 0 };
            rec->c.launch(s, &h200, &l);
            unsigned long long threads = (unsigned long long)l.block[0] * l.block[1] * l.block[2];
            cr_expect(threads >= 1 && threads <= 1024 && l.block[2] <= 64, "%s: block %ux%ux%u", rec->origin, l.block[0],
                      l.block[1], l.block[2]);
            cr_expect(l.grid[0] >= 1 && l.grid[0] <= 2147483647u && l.grid[1] >= 1 && l.grid[1] <= 65535 &&
                      l.grid[2] >= 1 && l.grid[2] <= 65535,
                      "%s: grid %ux%ux%u", rec->origin, l.grid[0], l.grid[1], l.grid[2]);
            cr_expect_leq(l.smem, h200.smem_per_block_optin, "%s: %u bytes of shared memory", rec->origin, l.smem);
        }
        size_t host = 0, gpu = 0;
        kc_case_memory(&rec->c, s, KC_REF_DEVICE, &host, &gpu);
        cr_expect(gpu > 0 && gpu < h200.total_mem, "%s: %zu bytes of device memory", rec->origin, gpu);
        cr_expect(host <= SHIPPED_MAX_CASE_BYTES && gpu <= SHIPPED_MAX_CASE_BYTES,
                  "%s: a case of %zu host and %zu GPU bytes (shipped records stay under 4 GiB)", rec->origin, host, gpu);
        for (int a = 0; a < KC_MAX_ARGS && rec->c.args[a].kind; a++)
            if (rec->c.args[a].kind == KC_ARG_BUFFER)
                cr_expect_gt(rec->c.args[a].count(s), 0, "%s: buffer %s empty", rec->origin, rec->c.args[a].name);
        cr_expect(rec->labelled, "%s: shipped records carry a name= label", rec->origin);
        char why[256];
        cr_expect(!broken_precondition(rec, why, sizeof why), "%s: %s", rec->origin, why);
        phases[0] += strstr(rec->label, ".decode.b1.") != NULL;
        phases[1] += strstr(rec->label, ".decode.b8.") != NULL;
        phases[2] += strstr(rec->label, ".decode.b64.") != NULL;
        phases[3] += strstr(rec->label, ".prefill.t512.") != NULL;
    }
    for (int p = 0; p < 4; p++) cr_expect_geq(phases[p], 5, "%s: phase %d has %d records", path, p, phases[p]);
    /* Every family the file is meant to cover has a record in it. */
    for (const char *const *f = families; *f; f++) {
        int hit = 0;
        for (int i = 0; i < r->n && !hit; i++) hit = starts(r->v[i].c.name, *f);
        cr_expect(hit, "%s: no %s* record", path, *f);
    }
    kc_launch_records_free(r);
}

/* The families both models launch (docs/launch-records.md, the files' headers). */
#define SHIPPED_COMMON_FAMILIES \
    "rmsnorm.", "fused_add_rmsnorm.", "rope.", "silu_mul.", "softmax.", "reduce_max.", "gemv.", "residual_add.", \
    "transpose.", "embedding.", "kv_cache.nhd.", "kv_cache.hnd.", "attn_decode.nhd.", "attn_decode.hnd.", \
    "attn_prefill.d128.", "gemm.64x64.", "gemm.128x128.", "sampling.argmax.", "sampling.topk.", "sampling.topp."

Test(records, shipped_llama3_8b_parses_and_fits_an_h200)
{
    static const char *const families[] = { SHIPPED_COMMON_FAMILIES, "quant_int4.gemv.", "quant_int4.gemm.", "fp8_gemv.", NULL };
    check_shipped(LLAMA, 75, families);
}

Test(records, shipped_mixtral_8x7b_parses_and_fits_an_h200)
{
    static const char *const families[] = { SHIPPED_COMMON_FAMILIES, "reduce_sum.", "axpy.", "moe.topk_softmax.",
                                            "moe.align_block_size", NULL };
    check_shipped(MIXTRAL, 90, families);
}

/* The precondition check above flags records the parser accepts but a kernel
 * could not run as written. */
Test(records, shipped_check_flags_broken_preconditions)
{
    static const char *const broken[] = {
        "attn_decode.nhd.bf16 batch=8 q_heads=32 kv_heads=8 page_size=16 max_len=4096 num_pages=2047\n",
        "attn_decode.hnd.bf16 batch=1 q_heads=32 kv_heads=2 page_size=16 max_len=16 num_pages=1\n",
        "attn_prefill.d128.bf16 head_dim=64 q_heads=32 kv_heads=8 len0=512 len1=0 len2=0 len3=0 len4=0\n",
        "attn_prefill.d64.bf16 head_dim=64 q_heads=32 kv_heads=8 len0=512 len1=0 len2=7 len3=0 len4=0\n",
        "kv_cache.nhd.bf16 tokens=64 kv_heads=8 head_dim=128 page_size=16 num_pages=63 scatter=1\n",
        "kv_cache.hnd.bf16 tokens=512 kv_heads=8 head_dim=128 page_size=16 num_pages=33 scatter=0\n",
        "kv_cache.nhd.bf16 tokens=1 kv_heads=8 head_dim=100 page_size=16 num_pages=4 scatter=0\n",
        "quant_int4.gemv.g128 M=1 N=4096 K=4096 G=32\n",
        "fp8_gemv.bf16 M=9 N=4096 K=4096\n",
        "gemv.batch.bf16 M=16 N=4096 K=4096 ldx=4096\n",
        "moe.topk_softmax.f32 tokens=8 experts=8 topk=9 renorm=1\n",
        "moe.align_block_size tokens=8 experts=300 topk=2 block=16\n",
        "sampling.topp.f32 rows=1 vocab=32000 p_permille=1001\n",
    };
    char why[256];
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        kc_launch_records *r = parse(broken[i]);
        cr_assert_not_null(r, "%s", err);
        cr_expect(broken_precondition(&r->v[0], why, sizeof why), "not flagged: %s", broken[i]);
        kc_launch_records_free(r);
    }
    /* and passes the contracts' own model shapes written as records */
    static const char *const fine[] = {
        "attn_decode.nhd.bf16 batch=8 q_heads=32 kv_heads=8 page_size=16 max_len=4096 num_pages=2100\n",
        "attn_prefill.d64.bf16 head_dim=64 q_heads=32 kv_heads=8 len0=128 len1=1000 len2=33 len3=0 len4=0\n",
        "kv_cache.nhd.bf16 tokens=4096 kv_heads=8 head_dim=128 page_size=16 num_pages=2048 scatter=0\n",
        "kv_cache.hnd.bf16 tokens=64 kv_heads=8 head_dim=128 page_size=16 num_pages=2048 scatter=1\n",
        "quant_int4.gemm.g32 M=16 N=6144 K=4096 G=32\n",
        "moe.topk_sigmoid.f32 tokens=128 experts=256 topk=8 renorm=1\n",
    };
    for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
        kc_launch_records *r = parse(fine[i]);
        cr_assert_not_null(r, "%s", err);
        cr_expect(!broken_precondition(&r->v[0], why, sizeof why), "flagged: %s: %s", fine[i], why);
        kc_launch_records_free(r);
    }
}

/* ---- the real binary, no GPU ---------------------------------------------- */

static kc_proc kc(char **args)
{
    char *argv[16] = { (char *)kc_test_bin() };
    int n = 1;
    while (args[n - 1] && n < 15) { argv[n] = args[n - 1]; n++; }
    argv[n] = NULL;
    char *env[] = { "KC_LIBCUDA=none", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 60, &p), 0, "cannot start %s", argv[0]);
    return p;
}


/* A suite binary of one's own (here the fixture binary) said "e.g.
 * rmsnorm.f16; the kernel items of `kcontract list`" for an unknown contract
 * in a record: neither exists there. It names its own program and one of its
 * own contracts. */
Test(records, an_unknown_contract_is_refused_in_the_binary_s_own_words)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kc-records-own-words.%ld.txt", kc_test_tmpdir(), (long)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("fake.axpy.f3 n=7\n", f);
    fclose(f);
    char *argv[] = { (char *)kc_test_fixture_bin(), "list", "--records", path, NULL };
    char *env[] = { "KC_LIBCUDA=none", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 60, &p), 0);
    unlink(path);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "'fake.axpy.f3': unknown contract") && strstr(p.err, "`kcontract-fixture list`") &&
                  !strstr(p.err, "`kcontract list`") && !strstr(p.err, "rmsnorm.f16"),
              "%s", p.err);
    const char *eg = strstr(p.err, "e.g. ");
    cr_assert(eg, "%s", p.err);
    char name[128];
    cr_assert_eq(sscanf(eg + 5, "%127[^;]", name), 1, "%s", p.err);
    char *largv[] = { (char *)kc_test_fixture_bin(), "list", name, NULL };
    kc_proc q;
    cr_assert_eq(kc_spawn(largv, env, 60, &q), 0);
    cr_expect(q.status == 0 && strstr(q.out, name), "the example '%s' is no item of the fixture binary: exit %d\n%s%s",
              name, q.status, q.out, q.err);
    kc_proc_free(&q);
    kc_proc_free(&p);
}

Test(records, list_shows_only_the_record_items)
{
    kc_proc p = kc((char *[]){ "list", "--records", LLAMA, NULL });
    cr_expect_eq(p.status, 0, "%s", p.err);
    cr_expect(strstr(p.out, "kernel   gemv.bf16@llama3-8b.decode.b1.qkv_proj\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kernel   rope.neox.qk.bf16@llama3-8b.prefill.t512.rope\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kernel   attn_decode.hnd.bf16@llama3-8b.decode.b64.attn\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kernel   gemm.128x128.bf16@llama3-8b.prefill.t512.gate_up_proj\n"), "%s", p.out);
    cr_expect(!strstr(p.out, ":limits") && !strstr(p.out, "host.contracts.lint"),
              "no patterns: only the records:\n%s", p.out);
    int items = kc_out_count_lines(p.out, "kernel   ");
    char want[128];
    snprintf(want, sizeof want, "%d items: %d kernels, 0 controls, 0 limit checks, 0 suites, 0 sanitizer checks\n", items,
             items);
    cr_expect_geq(items, 30);
    cr_expect(strstr(p.out, want), "want '%s':\n%s", want, p.out);
    kc_proc_free(&p);
}

Test(records, patterns_select_among_registered_and_record_items)
{
    kc_proc p = kc((char *[]){ "list", "--records", LLAMA, "rmsnorm.bf16*", NULL });
    cr_expect_eq(p.status, 0, "%s", p.err);
    cr_expect(strstr(p.out, "kernel   rmsnorm.bf16\n") && strstr(p.out, "limit    rmsnorm.bf16:limits\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kernel   rmsnorm.bf16@llama3-8b.decode.b64.norm0\n"), "%s", p.out);
    cr_expect(!strstr(p.out, "fused_add"), "%s", p.out);
    kc_proc_free(&p);
}

Test(records, run_without_gpu_skips_them_and_exits_3)
{
    kc_proc p = kc((char *[]){ "run", "--records", MIXTRAL, NULL });
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    int skips = kc_out_count_lines(p.out, "SKIP   ");
    cr_expect_geq(skips, 40, "%s", p.out);
    cr_expect(strstr(p.out, "\nSKIP   softmax.f32@mixtral-8x7b.decode.b8.router_softmax  no GPU"), "%s", p.out);
    cr_expect(strstr(p.out, "\nSKIP   moe.topk_softmax.f32@mixtral-8x7b.prefill.t512.topk_gating  no GPU"), "%s", p.out);
    char want[96];
    snprintf(want, sizeof want, " kernel.skip=%d ", skips);
    cr_expect(strstr(p.out, want), "want '%s':\n%s", want, p.out);
    snprintf(want, sizeof want, " items=%d ", skips);
    cr_expect(strstr(p.out, want), "want '%s':\n%s", want, p.out);
    cr_expect(!strstr(p.out, "\nFAIL") && !strstr(p.out, "\nPASS"), "%s", p.out);
    kc_proc_free(&p);
}

Test(records, shard_keeps_each_record_item_once)
{
    kc_proc all = kc((char *[]){ "list", "--records", LLAMA, NULL });
    cr_assert_eq(all.status, 0);
    int total = kc_out_count_lines(all.out, "kernel   "), seen = 0;
    char *got = calloc(1, strlen(all.out) + 1);
    for (int k = 0; k < 3; k++) {
        char sh[16];
        snprintf(sh, sizeof sh, "%d/3", k);
        kc_proc p = kc((char *[]){ "list", "--records", LLAMA, "--shard", sh, NULL });
        cr_expect_eq(p.status, 0, "%s", p.err);
        for (char *line = p.out; line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl && strncmp(line, "kernel   ", 9) == 0) {
                char name[256];
                snprintf(name, sizeof name, "%.*s\n", (int)(nl - line), line);
                cr_expect(strstr(all.out, name), "%s is not in the unsharded list", name);
                cr_expect(!strstr(got, name), "%s in two shards", name);
                strcat(got, name);
                seen++;
            }
            line = nl ? nl + 1 : NULL;
        }
        kc_proc_free(&p);
    }
    cr_expect_eq(seen, total, "shards hold %d of %d record items", seen, total);
    free(got);
    kc_proc_free(&all);
}

Test(records, jobs_passes_the_records_to_its_children, .timeout = 60)
{
    kc_proc p = kc((char *[]){ "run", "--records", LLAMA, "*@*.decode.b1.*", "--jobs", "2", "--schedule", "static", NULL });
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    int skips = kc_out_count_lines(p.out, "[0/2] SKIP   ") + kc_out_count_lines(p.out, "[1/2] SKIP   ");
    cr_expect_geq(skips, 5, "%s", p.out);
    char want[64];
    snprintf(want, sizeof want, " kernel.skip=%d ", skips);
    cr_expect(strstr(p.out, want), "merged TALLY lacks '%s':\n%s", want, p.out);
    kc_proc_free(&p);
    /* The work queue's workers must know the record items too. */
    char costs[256];
    snprintf(costs, sizeof costs, "%s/kc_records_costs_%ld.tsv", kc_test_tmpdir(), (long)getpid());
    p = kc((char *[]){ "run", "--records", LLAMA, "*@*.decode.b1.*", "--jobs", "2", "--costs", costs, NULL });
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    int qskips = kc_out_count_lines(p.out, "[w0] SKIP   ") + kc_out_count_lines(p.out, "[w1] SKIP   ");
    cr_expect_eq(qskips, skips, "%s", p.out);
    cr_expect(strstr(p.out, want), "queue TALLY lacks '%s':\n%s", want, p.out);
    kc_proc_free(&p);
    unlink(costs);
}

/* --records may be repeated: the items of every file, labels unique across
 * them (a clash names both places), the same file twice refused, and the
 * work queue's workers get every file. */
Test(records, several_files_add_up_and_clashes_name_both_places, .timeout = 60)
{
    kc_proc l = kc((char *[]){ "list", "--records", LLAMA, NULL }), m = kc((char *[]){ "list", "--records", MIXTRAL, NULL });
    int nl = kc_out_count_lines(l.out, "kernel   "), nm = kc_out_count_lines(m.out, "kernel   ");
    kc_proc_free(&l);
    kc_proc_free(&m);
    kc_proc p = kc((char *[]){ "list", "--records", LLAMA, "--records", MIXTRAL, NULL });
    cr_expect_eq(p.status, 0, "%s", p.err);
    cr_expect_eq(kc_out_count_lines(p.out, "kernel   "), nl + nm, "%s", p.out);
    cr_expect(strstr(p.out, "kernel   gemv.bf16@llama3-8b.decode.b1.qkv_proj\n") &&
              strstr(p.out, "kernel   moe.topk_softmax.f32@mixtral-8x7b.prefill.t512.topk_gating\n"), "%s", p.out);
    cr_expect(!strstr(p.out, ":limits"), "no patterns: the records of both files only:\n%s", p.out);
    kc_proc_free(&p);
    p = kc((char *[]){ "list", "--records", LLAMA, "--records", LLAMA, NULL });
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--records " LLAMA " given twice"), "%s", p.err);
    kc_proc_free(&p);
    char path[256];
    snprintf(path, sizeof path, "%s/kc_records_XXXXXX", kc_test_tmpdir());
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *text = "gemv.bf16 M=1 N=64 K=64 ldx=64 name=llama3-8b.decode.b1.qkv_proj\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    p = kc((char *[]){ "list", "--records", LLAMA, "--records", path, NULL });
    cr_expect_eq(p.status, 2, "%s", p.out);
    char want[512];
    snprintf(want, sizeof want, "%s:1: item gemv.bf16@llama3-8b.decode.b1.qkv_proj is already the record at " LLAMA ":", path);
    cr_expect(strstr(p.err, want), "want '%s':\n%s", want, p.err);
    kc_proc_free(&p);
    unlink(path);
    char costs[256];
    snprintf(costs, sizeof costs, "%s/kc_records_costs2_%ld.tsv", kc_test_tmpdir(), (long)getpid());
    p = kc((char *[]){ "run", "--records", LLAMA, "--records", MIXTRAL, "*@*.decode.b1.*", "--jobs", "2", "--costs",
                       costs, NULL });
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "SKIP   gemv.bf16@llama3-8b.decode.b1.qkv_proj ") &&
              strstr(p.out, "SKIP   moe.topk_softmax.f32@mixtral-8x7b.decode.b1.topk_gating "), "%s", p.out);
    kc_proc_free(&p);
    unlink(costs);
}

Test(records, bad_file_refused_with_file_and_line)
{
    char path[256];
    snprintf(path, sizeof path, "%s/kc_records_XXXXXX", kc_test_tmpdir());
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *text = "# ok\nrmsnorm.f16 tokens=1 hidden=4096 eps_exp10=5\nrmsnorm.f16 tokens=1 hidden=4096 epsilon=5\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    kc_proc p = kc((char *[]){ "run", "--records", path, NULL });
    unlink(path);
    cr_expect_eq(p.status, 2, "exit %d\n%s", p.status, p.out);
    char want[320];
    snprintf(want, sizeof want, "%s:3: 'epsilon=5'", path);
    cr_expect(strstr(p.err, want), "want '%s':\n%s", want, p.err);
    cr_expect(!strstr(p.out, "TALLY"), "nothing may run:\n%s", p.out);
    kc_proc_free(&p);
}

Test(records, usage_errors)
{
    kc_proc p = kc((char *[]){ "list", "--records", "/nonexistent/records.txt", NULL });
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "/nonexistent/records.txt: cannot read"), "%s", p.err);
    kc_proc_free(&p);
    p = kc((char *[]){ "info", "--records", LLAMA, NULL });
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--records applies to run, list and merge only"), "%s", p.err);
    kc_proc_free(&p);
    p = kc((char *[]){ "list", "--records", NULL });
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--records needs a value"), "%s", p.err);
    kc_proc_free(&p);
}
