/* guard.h — gate 2's bookkeeping on host copies of device buffers: guard bands
 * filled with a canary before and after each buffer, poison in outputs, and
 * bitwise comparisons. Pure functions on host memory, so they are tested here. */
#ifndef KC_GUARD_H
#define KC_GUARD_H
#include <stddef.h>
#include <stdint.h>

#define KC_GUARD_BYTES 65536u   /* each side of every device buffer */
#define KC_CANARY 0xCBu         /* guard byte of outputs and integer inputs */
/* Guard byte of floating inputs (IN, INOUT): all-ones bytes are NaN in f64,
 * f32, f16, bf16 and E4M3, so a read past either end of such an input that
 * reaches an output makes it NaN and fails gate 3 even where the value read
 * is "masked" by a multiplication with zero (a vector tail loaded whole). */
#define KC_READ_CANARY 0xFFu
#define KC_POISON_A 0xFFu       /* output poison, first launch (NaN in f16/bf16/f32) */
#define KC_POISON_B 0x7Fu       /* output poison, determinism relaunch */

/* First byte of guard[0..n) that is not `canary`; returns n when intact. */
size_t kc_guard_first_bad(const uint8_t *guard, size_t n, uint8_t canary);
/* Number of elements (of esize bytes) whose every byte is `poison`; *first gets
 * the first one's index (or count when none). */
size_t kc_poison_count(const void *data, size_t count, size_t esize, uint8_t poison, size_t *first);
/* Number of elements whose bytes are all poison_a in a AND all poison_b in b:
 * the elements a kernel left unwritten in two launches poisoned differently
 * (an element it writes, even with a value equal to one poison, fails one of
 * the two). *first gets the first index (or count when none). */
size_t kc_poison_count2(const void *a, const void *b, size_t count, size_t esize, uint8_t poison_a, uint8_t poison_b,
                        size_t *first);
/* Number of elements that differ bitwise; *first gets the first index (or count). */
size_t kc_bitwise_diff(const void *a, const void *b, size_t count, size_t esize, size_t *first);
#endif
