/* dtype.h — element types: sizes, names, and exact conversions between every
 * kc_dtype and double, declared in the public kcontract.h (contracts and
 * references use them); implemented in dtype.c. */
#ifndef KC_DTYPE_H
#define KC_DTYPE_H
#include <stddef.h>
#include <stdint.h>
#include "kcontract.h"
#endif
