/* strvec.h — a growable, NULL-terminated argument vector (git's strvec): a
 * child's command line built word by word. Each word is a copy the vector
 * owns. A zeroed kc_strvec (KC_STRVEC_INIT) is a valid empty vector (v may
 * be NULL until the first push); after any push v[n] is NULL, so v goes to
 * posix_spawn or execv as it is. Every push either appends everything it was
 * given or leaves the vector as it was and returns -1 with errno set
 * (ENOMEM: out of memory, EINVAL: a NULL word or a format that failed); 0
 * on success. */
#ifndef KC_STRVEC_H
#define KC_STRVEC_H
#include <stdarg.h>
#include <stddef.h>

typedef struct kc_strvec {
    char **v;       /* n words, then NULL (NULL itself while nothing was pushed) */
    size_t n;
    size_t alloc;   /* slots in v, the terminating NULL's included */
} kc_strvec;

#define KC_STRVEC_INIT { NULL, 0, 0 }

/* Appends a copy of s. */
int kc_strvec_push(kc_strvec *sv, const char *s);
/* Appends the printf-formatted word. */
int kc_strvec_pushf(kc_strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int kc_strvec_vpushf(kc_strvec *sv, const char *fmt, va_list ap);
/* Appends copies of list[0..n): all of them or none. list may be sv->v. */
int kc_strvec_pushn(kc_strvec *sv, const char *const *list, size_t n);
/* Appends copies of the NULL-terminated list (NULL: nothing): all or none. */
int kc_strvec_pushv(kc_strvec *sv, const char *const *list);
/* Frees every word and v; sv is empty again (and may be reused). */
void kc_strvec_clear(kc_strvec *sv);
#endif
