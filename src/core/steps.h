/* steps.h — a contract's kernels as the launch path runs them (steps.c):
 * the steps of a contract that is a sequence (kc_contract.steps), or its one
 * kernel (symbol and launch, taking every argument) as a one-step sequence,
 * each step with the contract's argument indices in its parameter order.
 * No CUDA: the registry checks the steps with it, the gates launch them. */
#ifndef KC_STEPS_H
#define KC_STEPS_H
#include <stddef.h>
#include "kcontract.h"

/* One launch of a contract's sequence. */
typedef struct kc_step_plan {
    const char *symbol;
    void (*launch)(const kc_shape *s, const kc_device *dev, kc_launch *l);
    int programmatic;               /* launched with programmatic stream serialization (never step 0) */
    int nargs;                      /* the kernel's parameters */
    int arg[KC_MAX_ARGS];           /* parameter i is the contract's argument arg[i] */
} kc_step_plan;

/* Whether c is declared as a sequence (its steps[0] names a symbol). */
int kc_contract_has_steps(const kc_contract *c);

/* c's launches, in order, into out: its steps, or (no steps) its symbol and
 * launch with every argument in the contract's order. Returns how many (0
 * for a library contract, which launches itself), or -1 with every problem
 * in err ("; "-separated, each naming the contract and the step): a step
 * without a symbol or launch before one with them, a step naming an
 * argument the contract does not have or one argument twice, programmatic
 * on step 0 or not 0/1, an argument no step takes, steps next to a symbol
 * or launch of the contract's own or a library. */
int kc_contract_steps(const kc_contract *c, kc_step_plan out[KC_MAX_STEPS], char *err, size_t cap);

/* "step 2 of 2 (symbol): " for a sequence of n > 1 steps, "" for one: what
 * a failure line of one step's launch starts with. */
void kc_step_label(const kc_step_plan *st, int i, int n, char *buf, size_t cap);
#endif
