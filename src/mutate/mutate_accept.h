/* mutate_accept.h — the accepted-equivalents file of a mutation run: the
 * missed mutants a team judged equivalent (no input can tell them from the
 * original), which the next run neither builds nor reports. One line each:
 *
 *     <id> <module> <reason...>
 *
 * ('#' starts a comment line; blank lines are skipped). An entry must still
 * match the source: its id must be one the operators make from the module's
 * current source (the id hashes the operator, the offset, the original text
 * and the replacement), else the file is refused, naming the line: the code
 * it judged changed, so the judgement must be made again. */
#ifndef KC_MUTATE_ACCEPT_H
#define KC_MUTATE_ACCEPT_H
#include <stddef.h>

#include "mutate_build.h"

/* Reads path and marks each accepted mutant of m (state ACCEPTED, why: the
 * reason). Entries of modules not in mods (not mutated in this run) are not
 * checked: *unchecked counts them. Returns how many mutants it marked, or -1
 * with err: a file that cannot be read, a line without id, module or reason,
 * an id twice, or an entry that matches no mutant of its module's source. */
int kc_mutate_accept(const char *path, const kc_mut_module *mods, int nmods, const kc_mutants *m, kc_mut_status *st,
                     int *unchecked, char *err, size_t cap);
#endif
