/* shape_helpers.c — owns what a contract computes from a shape's dims with
 * the public helpers of kcontract.h: element counts as products of any dims
 * (kc_dims_product, kc_count_dims, KC_COUNT_DIMS), integer scalars taken
 * from a dim (kc_dim0 .. kc_dim7, KC_SCALAR_DIM), and one-dimensional launch
 * geometry (kc_launch_1d). A refusal names the shape and the value; where the
 * callback's signature has no way to return it, the process aborts (the
 * convention of kc_ref_arg: a contract's mistake, never a wrapped size). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "errmsg.h"
#include "kcontract.h"
#include "progname.h"

static const char *shape_name(const kc_shape *s) { return s && s->name ? s->name : "(unnamed)"; }

int kc_dims_product(const kc_shape *s, const int *dims, int n, size_t *out, char *why, size_t cap)
{
    size_t p = 1;
    int zero = 0;
    *out = 0;
    if (!s) return kc_errf(why, cap, "no shape (NULL) for the product of %d dims", n);
    if (n < 0 || (n > 0 && !dims))
        return kc_errf(why, cap, "shape %s: %d dims listed (expected 0 or more, with their indices)", shape_name(s), n);
    for (int i = 0; i < n; i++) {
        const int d = dims[i];
        if (d < 0 || d >= KC_MAX_DIMS)
            return kc_errf(why, cap, "shape %s: dim index %d is outside [0, %d)", shape_name(s), d, KC_MAX_DIMS);
        if (s->d[d] < 0)
            return kc_errf(why, cap, "shape %s: d[%d] = %" PRId64 " is negative (an element count needs dims >= 0)",
                           shape_name(s), d, s->d[d]);
        if (s->d[d] == 0) zero = 1;
    }
    /* Every dim checked before multiplying: a zero anywhere makes 0, even
     * where the other dims alone would overflow. */
    if (zero) return 0;
    for (int i = 0; i < n; i++) {
        const uint64_t v = (uint64_t)s->d[dims[i]];
        if (v > SIZE_MAX / p) {
            char list[200];
            size_t len = 0;
            for (int j = 0; j < n && len < sizeof list; j++) {
                int w = snprintf(list + len, sizeof list - len, "%sd[%d]=%" PRId64, j ? " x " : "", dims[j],
                                 s->d[dims[j]]);
                if (w > 0) len += (size_t)w;
            }
            return kc_errf(why, cap, "shape %s: the product %s overflows size_t (at most %zu elements)",
                           shape_name(s), list, (size_t)SIZE_MAX);
        }
        p *= (size_t)v;
    }
    *out = p;
    return 0;
}

size_t kc_count_dims(const kc_shape *s, const int *dims, int n, const char *what)
{
    size_t c;
    char why[400];
    if (kc_dims_product(s, dims, n, &c, why, sizeof why)) {
        kc_say(stderr, "element count %s: %s\n", what ? what : "(unnamed)", why);
        abort();
    }
    return c;
}

int64_t kc_dim0(const kc_shape *s) { return s->d[0]; }
int64_t kc_dim1(const kc_shape *s) { return s->d[1]; }
int64_t kc_dim2(const kc_shape *s) { return s->d[2]; }
int64_t kc_dim3(const kc_shape *s) { return s->d[3]; }
int64_t kc_dim4(const kc_shape *s) { return s->d[4]; }
int64_t kc_dim5(const kc_shape *s) { return s->d[5]; }
int64_t kc_dim6(const kc_shape *s) { return s->d[6]; }
int64_t kc_dim7(const kc_shape *s) { return s->d[7]; }

/* CUDA's limits (Programming Guide, "Compute Capabilities", table of
 * technical specifications): 1024 threads a block, 2^31 - 1 blocks in x. */
#define LAUNCH_MAX_BLOCK 1024u
#define LAUNCH_MAX_GRID_X 2147483647ull

void kc_launch_1d(kc_launch *l, uint64_t n, unsigned block)
{
    if (block == 0 || block > LAUNCH_MAX_BLOCK) {
        kc_say(stderr, "kc_launch_1d: a block of %u threads for n = %" PRIu64 " (expected 1 to %u)\n", block, n,
               LAUNCH_MAX_BLOCK);
        abort();
    }
    const uint64_t grid = n == 0 ? 1 : n / block + (n % block != 0);
    if (grid > LAUNCH_MAX_GRID_X) {
        kc_say(stderr, "kc_launch_1d: n = %" PRIu64 " elements in blocks of %u need %" PRIu64
                       " blocks, past gridDim.x's limit %llu\n", n, block, grid, LAUNCH_MAX_GRID_X);
        abort();
    }
    l->grid[0] = (unsigned)grid; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = block; l->block[1] = 1; l->block[2] = 1;
}
