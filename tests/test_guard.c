/* test_guard.c — gate 2's host helpers: guard bands with corruption planted
 * at the first and last byte, poison counting, bitwise differences. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "guard.h"

Test(guard, intact_band) {
    uint8_t *g = malloc(KC_GUARD_BYTES);
    memset(g, KC_CANARY, KC_GUARD_BYTES);
    cr_assert_eq(kc_guard_first_bad(g, KC_GUARD_BYTES, KC_CANARY), KC_GUARD_BYTES);
    cr_assert_eq(kc_guard_first_bad(g, 0, KC_CANARY), 0);
    free(g);
}

Test(guard, corruption_at_first_and_last_byte) {
    size_t n = KC_GUARD_BYTES;
    uint8_t *g = malloc(n);
    memset(g, KC_CANARY, n);
    g[0] = 0;
    cr_assert_eq(kc_guard_first_bad(g, n, KC_CANARY), 0);
    g[0] = KC_CANARY;
    g[n - 1] ^= 1;
    cr_assert_eq(kc_guard_first_bad(g, n, KC_CANARY), n - 1);
    g[n - 1] = KC_CANARY;
    g[12345] = 0xCA;
    g[40000] = 0;
    cr_assert_eq(kc_guard_first_bad(g, n, KC_CANARY), 12345);
    /* Odd lengths and offsets (the word loop's tail). */
    memset(g, KC_CANARY, n);
    g[10] = 0;
    cr_assert_eq(kc_guard_first_bad(g + 3, 7, KC_CANARY), 7);
    cr_assert_eq(kc_guard_first_bad(g + 3, 8, KC_CANARY), 7);
    free(g);
}

Test(guard, poison_count) {
    uint16_t h[100];
    size_t first;
    memset(h, KC_POISON_A, sizeof h);
    cr_assert_eq(kc_poison_count(h, 100, 2, KC_POISON_A, &first), 100);
    cr_assert_eq(first, 0);
    for (int i = 0; i < 100; i++) h[i] = (uint16_t)i;      /* fully written */
    cr_assert_eq(kc_poison_count(h, 100, 2, KC_POISON_A, &first), 0);
    cr_assert_eq(first, 100);
    h[99] = 0xFFFF;                                        /* last element never written */
    cr_assert_eq(kc_poison_count(h, 100, 2, KC_POISON_A, &first), 1);
    cr_assert_eq(first, 99);
    h[0] = 0xFFFF;
    cr_assert_eq(kc_poison_count(h, 100, 2, KC_POISON_A, &first), 2);
    cr_assert_eq(first, 0);
    /* One poison byte is not enough: every byte must be poison. */
    h[0] = 0x00FF;
    h[99] = 0xFF00;
    cr_assert_eq(kc_poison_count(h, 100, 2, KC_POISON_A, NULL), 0);
    uint8_t b[3] = { KC_POISON_B, 0, KC_POISON_B };
    cr_assert_eq(kc_poison_count(b, 3, 1, KC_POISON_B, &first), 2);
    cr_assert_eq(first, 0);
}

Test(guard, bitwise_diff) {
    size_t n = 10000, first;
    float *a = malloc(n * 4), *b = malloc(n * 4);
    for (size_t i = 0; i < n; i++) a[i] = b[i] = (float)i;
    cr_assert_eq(kc_bitwise_diff(a, b, n, 4, &first), 0);
    cr_assert_eq(first, n);
    /* A change in the first byte of the first element and the last byte of the last. */
    ((uint8_t *)b)[0] ^= 0x80;
    ((uint8_t *)b)[n * 4 - 1] ^= 0x01;
    cr_assert_eq(kc_bitwise_diff(a, b, n, 4, &first), 2);
    cr_assert_eq(first, 0);
    memcpy(b, a, 4);
    cr_assert_eq(kc_bitwise_diff(a, b, n, 4, &first), 1);
    cr_assert_eq(first, n - 1);
    /* -0 and +0 compare equal as floats but differ bitwise. */
    a[5000] = 0.0f;
    b[5000] = -0.0f;
    cr_assert_eq(kc_bitwise_diff(a, b, n, 4, &first), 2);
    cr_assert_eq(first, 5000);
    cr_assert_eq(kc_bitwise_diff(a, b, 0, 4, &first), 0);
    cr_assert_eq(first, 0);
    free(a);
    free(b);
}

Test(guard, poison_count2_needs_both_poisons)
{
    /* int32 elements: 0 written -1 both times; 1 unwritten (A then B); 2 written 5; 3 unwritten */
    uint32_t a[4] = { 0xFFFFFFFFu, 0xFFFFFFFFu, 5, 0xFFFFFFFFu };
    uint32_t b[4] = { 0xFFFFFFFFu, 0x7F7F7F7Fu, 5, 0x7F7F7F7Fu };
    size_t first;
    cr_assert_eq(kc_poison_count2(a, b, 4, 4, 0xFF, 0x7F, &first), 2);
    cr_assert_eq(first, 1);
    b[1] = 0xFFFFFFFFu;
    b[3] = 7;
    cr_assert_eq(kc_poison_count2(a, b, 4, 4, 0xFF, 0x7F, &first), 0);
    cr_assert_eq(first, 4);
}
