/* strvec.c — growable NULL-terminated argument vectors (strvec.h). */
#include "strvec.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `more` words past n and the terminating NULL. 0, or -1 (ENOMEM);
 * sv unchanged on failure. */
static int reserve(kc_strvec *sv, size_t more)
{
    if (more > SIZE_MAX / sizeof *sv->v - 1 - sv->n) {
        errno = ENOMEM;
        return -1;
    }
    size_t need = sv->n + more + 1;
    if (need <= sv->alloc) return 0;
    size_t cap = sv->alloc ? sv->alloc : 8;
    while (cap < need) cap = cap > SIZE_MAX / sizeof *sv->v / 2 ? need : cap * 2;
    char **v = realloc(sv->v, cap * sizeof *v);
    if (!v) {
        errno = ENOMEM;
        return -1;
    }
    sv->v = v;
    sv->alloc = cap;
    return 0;
}

/* Appends the word w, which the vector takes over. */
static int take(kc_strvec *sv, char *w)
{
    if (reserve(sv, 1)) {
        free(w);
        return -1;
    }
    sv->v[sv->n++] = w;
    sv->v[sv->n] = NULL;
    return 0;
}

int kc_strvec_push(kc_strvec *sv, const char *s)
{
    if (!s) {
        errno = EINVAL;
        return -1;
    }
    char *w = strdup(s);
    if (!w) {
        errno = ENOMEM;
        return -1;
    }
    return take(sv, w);
}

int kc_strvec_vpushf(kc_strvec *sv, const char *fmt, va_list ap)
{
    char *w = NULL;
    if (!fmt || vasprintf(&w, fmt, ap) < 0) {
        errno = fmt ? ENOMEM : EINVAL;
        return -1;
    }
    return take(sv, w);
}

int kc_strvec_pushf(kc_strvec *sv, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = kc_strvec_vpushf(sv, fmt, ap);
    va_end(ap);
    return rc;
}

int kc_strvec_pushn(kc_strvec *sv, const char *const *list, size_t n)
{
    if (n == 0) return 0;
    if (!list) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!list[i]) {
            errno = EINVAL;
            return -1;
        }
    /* The copies first, into a list of their own: list may be sv->v, which
     * reserve() moves. */
    char **copy = n <= SIZE_MAX / sizeof *copy ? malloc(n * sizeof *copy) : NULL;
    size_t made = 0;
    if (copy)
        for (; made < n && (copy[made] = strdup(list[made])); made++) {}
    if (!copy || made < n || reserve(sv, n)) {
        for (size_t i = 0; copy && i < made; i++) free(copy[i]);
        free(copy);
        errno = ENOMEM;
        return -1;
    }
    memcpy(sv->v + sv->n, copy, n * sizeof *copy);
    sv->n += n;
    sv->v[sv->n] = NULL;
    free(copy);
    return 0;
}

int kc_strvec_pushv(kc_strvec *sv, const char *const *list)
{
    size_t n = 0;
    while (list && list[n]) n++;
    return kc_strvec_pushn(sv, list, n);
}

void kc_strvec_clear(kc_strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++) free(sv->v[i]);
    free(sv->v);
    *sv = (kc_strvec)KC_STRVEC_INIT;
}
