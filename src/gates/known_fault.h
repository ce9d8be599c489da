/* known_fault.h — a known finding that loses the CUDA context (known_fault.c).
 * A registered finding whose case faults (a sticky error: an illegal address
 * on inputs the kernel does not accept) leaves nothing more to run in this
 * process's context, yet it is the registered behaviour, not a failure. So
 * the item (gates.c) runs, each in a fresh process of this binary,
 *   - that case alone: `<binary> run ITEM --seed S --device D --cases I:I+1`;
 *     the finding is KNOWN when it fails there as registered (the fault was
 *     that case's, not left behind by an earlier one), else the item FAILs;
 *   - the cases after it: `... --cases I+1:N`, which decide PASS or FAIL as
 *     they would have here (a later registered fault in them is isolated the
 *     same way, by that process).
 * A --cases process prints only its sums (kc_case_sums), as lines
 *     kcontract-cases: cases=N failed=N known=N unknown=N gate=G reproduced=HEX lost=L block=B
 *     kcontract-cases-first: <its first failure that is no known finding>
 *     kcontract-cases-detail: <one of its detail lines>
 * and the item's process reads them back (docs/writing-a-contract.md, Known
 * findings). Cases are numbered as gates.c runs them: shapes in order, each
 * shape's distributions in order (a large shape's first only), each
 * distribution under every block size of the contract (kc_contract.block_sizes;
 * --block-size: that one), in order. */
#ifndef KC_KNOWN_FAULT_H
#define KC_KNOWN_FAULT_H
#include <stddef.h>
#include "item.h"
#include "line_text.h"
#include "run_options.h"

#define KC_CASES_LINE "kcontract-cases: "
#define KC_CASES_FIRST "kcontract-cases-first: "
#define KC_CASES_DETAIL "kcontract-cases-detail: "

/* What a range of one kernel item's cases came to. */
typedef struct kc_case_sums {
    int cases, failed;        /* cases run, cases failed (known or not) */
    int known, unknown;       /* failures that are registered findings, and those that are not */
    int gate;                 /* the gate of the first failure that is no known finding; 0 none */
    unsigned block;           /* its launch variant (kc_contract.block_sizes); 0 none */
    unsigned reproduced;      /* bit i: the contract's known[i] reproduced on some case */
    int lost;                 /* the range ended with the CUDA context lost */
    char first[1600];         /* that first failure's line ("gate 3 (accuracy): shape ..."); "" none */
} kc_case_sums;

/* Runs cases [lo, hi) of kernel item `it` in a fresh process of this binary
 * (kc_self_exe; the options a rerun command carries, o's seed and device)
 * and reads its sums into *out, its detail lines added to detail (NULL:
 * dropped). 0; or -1 with why (it could not start, was stopped, or printed
 * no sums: its last line then says what it did). */
int kc_cases_elsewhere(const kc_opts *o, const kc_item *it, int lo, int hi, kc_case_sums *out, kc_lines *detail,
                       char *why, size_t cap);

/* A --cases process's output: s's lines and the detail lines (the text
 * kc_lines wrote, '\n'-separated; NULL none) on stdout. */
void kc_cases_print(const kc_case_sums *s, const char *detail);
#endif
