/* mutate_route.h — which contracts judge each mutant, and in which wave
 * (kcontract mutate, docs/mutation.md). A mutant runs first through one
 * contract whose kernel can execute the mutated code (mutate_reach.h): the
 * first such contract of its module in the run's order; a mutant it misses
 * then runs through the module's other contracts that can (wave 2). When
 * the source shows no contract of the module whose kernel reaches the
 * mutated code (a kernel only a macro call names, code outside every
 * function), every contract of the module can: nothing is left out on the
 * strength of a guess. */
#ifndef KC_MUTATE_ROUTE_H
#define KC_MUTATE_ROUTE_H
#include <stddef.h>

#include "item.h"
#include "mutate_build.h"

/* Routes of m->n mutants over the nj judging contracts. */
typedef struct kc_mut_routes {
    int nm, nj;
    int *judge_item;        /* [nj]: the index in items of judging contract j (the run's order) */
    unsigned char *reach;   /* [nm * nj]: 1 when contract j judges mutant i (its module, and its kernel reaches it) */
    int *first;             /* [nm]: the j of wave 1's contract; -1 when no contract of its module judges it */
} kc_mut_routes;

/* Routes every mutant of m over the items i with judge[i] (kernel items of
 * contracts, in the run's order), reading the modules' sources (mods[k].src,
 * the module mods[k].name). 0, or -1 with err (out of memory). */
int kc_mut_route(const kc_mut_module *mods, int nmods, const kc_mutants *m, const kc_item *items, int n,
                 const unsigned char *judge, kc_mut_routes *r, char *err, size_t cap);

void kc_mut_routes_free(kc_mut_routes *r);

/* Whether contract j judges mutant i in wave 1 (j is its first) or wave 2
 * (another that reaches it). */
int kc_mut_route_in_wave(const kc_mut_routes *r, int i, int j, int wave);

/* The ','-separated names of the contracts that judge mutant i in wave 1 or
 * 2, into buf; how many, or -1 when they do not fit in cap bytes. */
int kc_mut_route_names(const kc_mut_routes *r, const kc_item *items, int i, int wave, char *buf, size_t cap);
#endif
