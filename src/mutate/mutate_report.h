/* mutate_report.h — what a mutation run says: per module, per contract and
 * per operator the counts (generated, accepted, unviable, equivalent,
 * duplicate, viable, caught by which gate, missed, timeout), the mutation
 * score, every missed mutant with its file, line, diff and the command that
 * reruns it, a JSON Lines report, and the last line:
 *
 *   MUTATION modules=N generated=N unviable=N equivalent=N viable=N caught=N missed=N timeout=N score=0.NN wall_s=N
 *
 * equivalent= counts duplicates too (both are trivial compiler equivalence;
 * the text report gives them apart). A timeout (a mutant that hung or
 * took its process down) is caught, counted apart: score = (caught +
 * timeout) / (caught + timeout + missed); "-" when that is 0/0. */
#ifndef KC_MUTATE_REPORT_H
#define KC_MUTATE_REPORT_H
#include <stdio.h>

#include "mutate_build.h"
#include "mutate_select.h"

/* One item of the run: a mutant checked by one contract's gates. */
typedef struct kc_mut_item {
    int mutant;                 /* index into the run's mutants */
    char contract[160];
    kc_mut_state state;         /* CAUGHT, MISSED, TIMEOUT or NOTRUN */
    int gate;                   /* CAUGHT: 1-5, 0 unknown */
} kc_mut_item;

typedef struct kc_mut_run {
    const kc_mut_module *mods;
    int nmods;
    const kc_mutants *m;
    const kc_mut_status *st;
    const kc_mut_item *items;
    int nitems;
    const char *rerun_prefix;   /* "KC_MUTANTS=<manifest> <program>": the rerun command without "run 'ITEM'" */
    double wall_s;
    const kc_mut_selection *sel;    /* the contracts that judge its mutants, in the JSON's "mutation" line; NULL: none
                                     * written (--merge-json and --iterate then refuse the report) */
} kc_mut_run;

typedef struct kc_mut_counts {
    int generated, n[KC_MUT_STATE_COUNT], by_gate[6];
    int carried;            /* of those, outcomes taken from earlier reports (--iterate) */
    int skipped;            /* of the NOTRUN ones, those not run because their items were SKIP (no GPU) */
    const char *skip_why;   /* the first such mutant's SKIP message ("no GPU"); NULL when none */
} kc_mut_counts;

/* The counts of the mutants whose module is `module` (NULL: all) and whose
 * operator is `op` (NULL: all). */
void kc_mutate_count(const kc_mut_run *r, const char *module, const char *op, kc_mut_counts *c);

/* The score's text: "0.93", or "-" with nothing caught or missed. */
void kc_mutate_score(const kc_mut_counts *c, char *buf, size_t cap);

/* The human report: per module (with its contracts' counts), per operator,
 * the missed mutants with their diffs and rerun commands, then the MUTATION line. */
void kc_mutate_report_text(FILE *out, const kc_mut_run *r);

/* The MUTATION line alone. */
void kc_mutate_line(FILE *out, const kc_mut_run *r);

/* JSON Lines into path: one object per mutant ("type":"mutant"), then one
 * "type":"mutation" with the counts and the selection (mutate_select.h).
 * 0, or -1 with err. */
int kc_mutate_report_json(const char *path, const kc_mut_run *r, char *err, size_t cap);
#endif
