/* mutate_select.h — the selection of a mutation run: the contracts that
 * judge its mutants (every selected contract with a kernel module, not a
 * library kernel, not a launch record), as a set of names. A mutate --json
 * report records it in its "mutation" line:
 *
 *   "selection":"<16 hex digits>","contracts":["fake.axpy.f32",...]
 *
 * the names sorted and distinct, the digits FNV-1a 64 of them (each ended
 * by '\n'), mixed by splitmix64. Two spellings of the patterns that select
 * the same contracts ('softmax.*' and the names one by one) give the same
 * selection; any other set of contracts another one. --merge-json and
 * --iterate take a report's verdicts only under its own selection: a
 * catch is a catch of the contracts that ran, and another selection's
 * (softmax.* for softmax.f16, a contract that judged nothing for one that
 * did) would credit this one with what other contracts caught. */
#ifndef KC_MUTATE_SELECT_H
#define KC_MUTATE_SELECT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct kc_mut_selection {
    char **names;       /* sorted, distinct after kc_mut_selection_seal */
    int n, cap;
    uint64_t hash;
    char hex[17];       /* the hash as the report writes it */
} kc_mut_selection;

/* Adds a contract's name (a copy). 0, or -1 out of memory. */
int kc_mut_selection_add(kc_mut_selection *s, const char *name);
/* Sorts the names, drops repeats, computes the hash. */
void kc_mut_selection_seal(kc_mut_selection *s);
/* Whether a sealed s holds name. */
int kc_mut_selection_has(const kc_mut_selection *s, const char *name);
void kc_mut_selection_free(kc_mut_selection *s);

/* Writes ,"selection":"HEX","contracts":[...] (the fields of the report's
 * "mutation" line) for a sealed s. */
void kc_mut_selection_json(FILE *f, const kc_mut_selection *s);

/* Report summary line `line` of file path (given to option opt) against
 * this run's sealed selection s: 0 when it records the same contracts;
 * -1 with err when it records none (a report written before reports
 * recorded their selection: refused, rerun), a malformed or inconsistent
 * one (its hash not its names'), or another set: err names the contracts
 * only in the report and only in this run, and both hashes. */
int kc_mut_selection_check(const kc_mut_selection *s, const char *line, const char *path, const char *opt, char *err,
                           size_t cap);

/* The "item" of mutant line `line` (file path, line no) of mutant id:
 * absent (a mutant no contract ran), or "<contract>:mutant.<id>" with the
 * line's id and a contract of s. 0; -1 with err naming the file, line,
 * mutant and item otherwise. */
int kc_mut_selection_check_item(const kc_mut_selection *s, const char *line, const char *id, const char *path, int no,
                                char *err, size_t cap);
#endif
