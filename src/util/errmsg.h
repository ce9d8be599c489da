/* errmsg.h — the one way a module reports why it refused something: format
 * the reason into the caller's buffer and return -1 (`return kc_errf(err, cap,
 * "bad number '%s' for %s", v, key);`). */
#ifndef KC_ERRMSG_H
#define KC_ERRMSG_H
#include <stddef.h>

/* Writes the printf-formatted reason into err[0..cap) (when err and cap are
 * non-zero) and returns -1. */
int kc_errf(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
