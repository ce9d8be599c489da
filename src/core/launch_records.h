/* launch_records.h — launch records (`--records FILE`, docs/launch-records.md): a
 * plain-text file of launches recorded from a real workload, one per line,
 *     <contract> <dim>=<int> ... [name=<label>]     # comment
 * Each record becomes a kernel item "<contract>@<label>" (label: the name=
 * token, else the dims in the contract's order, "tokens=7,hidden=4096,...")
 * checked through gates 1-4 on exactly that shape, class KC_SHAPE_MODEL, over
 * all the contract's distributions, by the same gates code: the item's
 * contract is a copy of the registered one whose shape list is the record. */
#ifndef KC_RECORDS_H
#define KC_RECORDS_H
#include <stddef.h>
#include "item.h"

#define KC_RECORD_MAX_VALUE 2147483647LL  /* dims are 0..2^31-1 (kernels take 32-bit ints) */
#define KC_RECORD_MAX_LABEL 120           /* bytes of a name= label */
#define KC_RECORD_MAX_ERRORS 10           /* problems reported in full, then a count */

typedef struct kc_launch_record {
    kc_contract c;              /* the registered contract, shapes = shape[], known findings that apply */
    const kc_contract *registered;
    kc_shape shape[2];          /* the record's shape (name = label) and the terminator */
    char label[160];            /* name= label, or the dims joined: "tokens=7,hidden=4096" */
    char name[192];             /* the item name: "<contract>@<label>" */
    char origin[320];           /* "FILE:LINE", for messages */
    int line;
    int labelled;               /* the label came from name= */
} kc_launch_record;

typedef struct kc_launch_records {
    kc_launch_record *v;
    int n;
} kc_launch_records;

/* Parses `text` (len bytes; `path` is used in messages only). Returns the
 * records, or NULL with every problem (up to KC_RECORD_MAX_ERRORS, then a
 * count) as "PATH:LINE: ..." lines in err. Needs the registry (contracts are
 * looked up by name). Free with kc_launch_records_free. */
kc_launch_records *kc_launch_records_parse(const char *path, const char *text, size_t len, char *err, size_t errcap);
/* Reads and parses the file `path` (err as above, or "PATH: cannot read: ..."). */
kc_launch_records *kc_launch_records_load(const char *path, char *err, size_t errcap);
void kc_launch_records_free(kc_launch_records *r);

/* Adds one kernel item per record to *items (n of them, malloc'd, sorted by
 * name), keeps the list sorted, and refuses a name that is already taken.
 * With only_records, the registered items are dropped: the list is the record
 * items alone. Returns the new count, or -1 with the problem in err. The items
 * point into r: keep it until they are gone. */
int kc_launch_records_add_items(const kc_launch_records *r, kc_item **items, int n, int only_records, char *err, size_t errcap);

/* main.c's step: loads `path`, adds its items (only them when only_records).
 * Returns 0, or 2 after printing "kcontract: --records ..." problems to stderr. */
int kc_launch_records_apply(const char *path, int only_records, kc_item **items, int *n, kc_launch_records **out);
#endif
