/* size_sat.h — saturating size_t arithmetic for byte budgets (the memory
 * plan, the admission): a sum or product past SIZE_MAX is SIZE_MAX, so a
 * plan over-counts, never wraps to a small figure that would fit. */
#ifndef KC_SIZE_SAT_H
#define KC_SIZE_SAT_H
#include <stddef.h>
#include <stdint.h>

/* a + b, or SIZE_MAX when it would pass it. */
static inline size_t kc_add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
/* a * b, or SIZE_MAX when it would pass it. */
static inline size_t kc_mul_sat(size_t a, size_t b) { return (b && a > SIZE_MAX / b) ? SIZE_MAX : a * b; }
#endif
