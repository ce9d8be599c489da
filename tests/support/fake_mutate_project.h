/* fake_mutate_project.h — test support: the project `kcontract mutate`'s
 * tests run under the fake driver (tests/test_mutate_trust.c,
 * tests/test_mutate_select.c): a small fake_axpy.cu as the module's source,
 * and $MAKE a script that "builds" each mutant into an image the fake
 * driver runs. */
#ifndef KC_TEST_FAKE_MUTATE_PROJECT_H
#define KC_TEST_FAKE_MUTATE_PROJECT_H
#include <stddef.h>

/* The module's source: one "bound" mutant (i < n -> i <= n) and others. */
extern const char KC_FAKE_AXPY_SOURCE[];

/* Writes dir/src/fake_axpy.cu (KC_FAKE_AXPY_SOURCE) and dir/make.sh, a make
 * for the fake driver: each .cubin its source behind a KCFAKE line (so the
 * mutants differ from the original and from each other), each .fatbin that
 * line alone; control is what the fake driver runs for a mutant
 * ("wrong_value": gate 3 catches it; "-": the clean kernel, missed). src
 * gets dir/src and make dir/make.sh (made executable). Asserts on failure. */
void kc_fake_mutate_project(const char *dir, const char *control, char *src, size_t src_cap, char *make,
                            size_t make_cap);
#endif
