/* item_lines.h — test support: Criterion expectations on an item's state line
 * in a kcontract run's output (docs/output-format.md, "One item, one line"):
 * exactly one line for the item, its state, the texts it holds, and the rerun
 * command it ends with under the fake driver. */
#ifndef KC_TEST_ITEM_LINES_H
#define KC_TEST_ITEM_LINES_H

/* A NULL-ended list of texts for kc_expect_item: KC_TEXTS("a", "b"). */
#define KC_TEXTS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Expects exactly one state line for `name` (after an optional "[wK] " or
 * "[K/N] " tag), in state `state`, containing each of the NULL-ended texts
 * (may be NULL). */
void kc_expect_item(const char *out, const char *state, const char *name, const char *const *texts);
/* Expects the item's rerun command: the fixture binary with the run's seed,
 * after the fake driver's KC_LIBCUDA, which the run needed (rerun_env.h). */
void kc_expect_rerun(const char *out, const char *name, const char *seed);
#endif
