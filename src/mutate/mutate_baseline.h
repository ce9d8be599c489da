/* mutate_baseline.h — the baseline of a mutation run: the contracts that
 * will judge mutants, run unmutated first (cargo-mutants' first step, and
 * Mull's). A contract that does not pass unmutated cannot tell a mutant
 * from its own failure: its mutants are not run through it. Each passing
 * contract's seconds become the recorded cost of its mutants' items in the
 * cost table the waves read, which sets their time limit
 * (KC_MUTANT_TIMEOUT_FLOOR_S, costs.h) and their order. */
#ifndef KC_MUTATE_BASELINE_H
#define KC_MUTATE_BASELINE_H
#include <stddef.h>
#include "item.h"
#include "mutate_ops.h"

/* Per selected item (index into the run's item list): its unmutated run. */
typedef struct kc_mut_baseline {
    int n;
    double *seconds;        /* seconds of its run; -1 when it has none */
    char (*state)[16];      /* "PASS", "FAIL", ...; "" when the report has no line for it */
} kc_mut_baseline;

/* Allocates b for n items, none run. 0, or -1 (out of memory). */
int kc_mut_baseline_init(kc_mut_baseline *b, int n);
void kc_mut_baseline_free(kc_mut_baseline *b);

/* Reads the baseline run's JSON report (the run's --json, report_json.c:
 * one "type":"item" object per line with "name", "state", "seconds") into
 * b for items[0..n). Returns 0, or -1 with err (a file that cannot be read,
 * or a malformed item line, named with its line number). */
int kc_mut_baseline_read(const char *path, const kc_item *items, int n, kc_mut_baseline *b, char *err, size_t cap);

/* Whether item i passed its baseline (its state PASS). */
int kc_mut_baseline_passed(const kc_mut_baseline *b, int i);

/* Writes the cost table at path (costs.h's format) with one row
 * "<contract>:mutant.<id>" per mutant j with in[j] and per item i with
 * judges[i] whose contract's module is the mutant's: the seconds of item
 * i's baseline. Returns the rows written, or -1 with err. */
int kc_mut_baseline_costs(const char *path, const kc_item *items, int n, const unsigned char *judges,
                          const kc_mutants *m, const unsigned char *in, const kc_mut_baseline *b, char *err,
                          size_t cap);
#endif
