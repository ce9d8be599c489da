/* dim_names.h — a contract's names for its shapes' dims (kc_contract.dims:
 * dims[i] names d[i], up to the first NULL). What reads a dim by its name
 * (kc_arith.terms_dim) finds it here, and what refuses a dim the contract
 * does not name lists the ones it does. */
#ifndef KC_DIM_NAMES_H
#define KC_DIM_NAMES_H
#include <stddef.h>

#include "kcontract.h"

/* How many dims c names: d[0] .. d[n-1] (0 when .dims is empty). */
int kc_dims_named(const kc_contract *c);
/* The index of c's dim called name, or -1 (NULL name: -1). */
int kc_dim_named(const kc_contract *c, const char *name);
/* "d[0] rows, d[1] k": every dim c names with its index, into buf (at most
 * cap bytes); "none, .dims is empty" when it names none. Returns buf. */
const char *kc_dim_list(const kc_contract *c, char *buf, size_t cap);
/* For a dim name c does not have: "; did you mean 'k'?" naming the dims
 * that differ from it only in case, or else are within a typo's edit
 * distance (kc_filter_suggest), into buf; "" when none is near. Returns buf. */
const char *kc_dim_suggestion(const kc_contract *c, const char *name, char *buf, size_t cap);
#endif
