/* dim_names.h — a contract's names for its shapes' dims (kc_contract.dims:
 * dims[i] names d[i], up to the first NULL). What refuses a dim the contract
 * does not name lists the ones it does. */
#ifndef KC_DIM_NAMES_H
#define KC_DIM_NAMES_H
#include <stddef.h>

#include "kcontract.h"

/* How many dims c names: d[0] .. d[n-1] (0 when .dims is empty). */
int kc_dims_named(const kc_contract *c);
/* "d[0] rows, d[1] k": every dim c names with its index, into buf (at most
 * cap bytes); "none (.dims is empty)" when it names none. Returns buf. */
const char *kc_dim_list(const kc_contract *c, char *buf, size_t cap);
#endif
