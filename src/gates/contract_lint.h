/* contract_lint.h — the rules every bundled contract is held to beyond
 * what the registry refuses at start (docs/writing-a-contract.md, "What
 * every contract must have"), checked on the host against an H200's launch
 * limits, without a GPU. */
#ifndef KC_CONTRACT_LINT_H
#define KC_CONTRACT_LINT_H
#include "kcontract.h"

/* Checks contract c; 0 when it holds every rule, else 1 after
 * kc_suite_fail(ctx, ...) names the contract, the shape or argument and the
 * rule it breaks (the first problem found). */
int kc_contract_lint(kc_suite_ctx *ctx, const kc_contract *c);
/* kc_lint_contracts (kcontract.h): kc_contract_lint over every registered
 * contract. */
#endif
