/* registry.h — every registered contract and suite (kc_register_contract and
 * kc_register_suite, called as their objects load), checked and expanded into
 * items sorted by name. */
#ifndef KC_REGISTRY_H
#define KC_REGISTRY_H
#include <stddef.h>
#include "item.h"

/* All registered contracts / suites, in load order. */
size_t kc_registry_contracts(const kc_contract *const **out);
size_t kc_registry_suites(const kc_suite *const **out);

/* The contract registered as `name`, or NULL. */
const kc_contract *kc_registry_find_contract(const char *name);

/* Checks one contract's fields (kc_registry_items checks every one): 0, or
 * minus the number of problems, each naming the contract and the field, one
 * per line in err (as many as fit). */
int kc_contract_check(const kc_contract *c, char *err, size_t cap);

/* Checks every registration (unique item names, required fields, an embedded
 * fatbin for every module and control, gates 1-4 for controls, buffer counts
 * and generators, known-finding gates) and expands them into items sorted by
 * name: for each contract "<name>", "<name>:limits", "<name>:control.<c>", and
 * each suite. Returns the item count, or minus the number of problems found
 * (every problem of every registration, not only the first: registrations
 * refused as they were made (reg_problems.h), every problem of each contract, duplicate names),
 * listed one per line in err as far as it fits. *items is malloc'd; free it. */
int kc_registry_items(kc_item **items, char *err, size_t errcap);
#endif
