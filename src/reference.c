/* reference.c — owns the small helpers contracts call from kcontract.h:
 * the common element counts (products of shape dims) and kc_ref_in, the
 * exact read of a generated input for the host reference. */
#include "dtype.h"
#include "kcontract.h"

size_t kc_count_d0(const kc_shape *s) { return (size_t)s->d[0]; }
size_t kc_count_d1(const kc_shape *s) { return (size_t)s->d[1]; }
size_t kc_count_d0d1(const kc_shape *s) { return (size_t)s->d[0] * (size_t)s->d[1]; }
size_t kc_count_d0d1d2(const kc_shape *s) {
    return (size_t)s->d[0] * (size_t)s->d[1] * (size_t)s->d[2];
}

double kc_ref_in(const kc_ref *r, int a, size_t i) {
    return kc_load(r->dtype[a], r->host[a], i);
}
