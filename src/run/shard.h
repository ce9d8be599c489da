/* shard.h — the shape of a parallel run: parsing "--shard K/N" and
 * "--devices LIST", the partition of the selected items into shards, and the
 * placement of shards on devices.
 *
 * The partition depends only on the filtered, name-sorted list of items:
 * item i of that list belongs to shard i % N. It never depends on timing
 * files, the machine or the device, so every process (and every machine)
 * computes the same slices, every item is in exactly one shard, and N may
 * exceed the number of items (the extra shards are empty). */
#ifndef KC_SHARD_H
#define KC_SHARD_H
#include <stddef.h>

#define KC_MAX_SHARDS 4096    /* --shard N and --jobs at most this */
#define KC_MAX_DEVICE 1023    /* the largest device ordinal --device and --devices take */

/* Parses "K/N": canonical decimals (digits only, no sign, no spaces, no
 * leading zeros), 1 <= N <= KC_MAX_SHARDS, 0 <= K < N. Returns 0, or -1 with
 * a reason naming the value in err ("expected K/N ..., got '1/4x'", "K must
 * be below N: got 4/4 (shards are 0..3)", "N must be at least 1: got 0/0"). */
int kc_shard_parse(const char *s, int *k, int *n, char *err, size_t errcap);

/* The shard that item `index` (of the filtered, sorted list) belongs to. */
int kc_shard_of(int index, int n);
/* The number of items of a list of `count` that shard k of n holds. */
int kc_shard_size(int count, int k, int n);

/* Parses a comma-separated list of distinct device ordinals ("0,2,3") into
 * out (at most max, each at most 1023). Returns the count, or -1 with a
 * reason naming the value in err. */
int kc_devices_parse(const char *s, int *out, int max, char *err, size_t errcap);

/* The index into a list of ndev devices that shard k runs on: round robin.
 * 0 when ndev is 0 (no GPU: every shard gets device 0). */
int kc_shard_device_slot(int k, int ndev);
/* A static schedule's shards end with a seal (issue 21): the parent puts a
 * random value in KC_SHARD_SEAL_ENV, each shard takes it out of its
 * environment at start and, after its run's end, prints
 * KC_SHARD_SEAL_LINE<value>; a shard that printed a TALLY but not the seal
 * (an item that printed a TALLY line and ended the process) did not finish. */
#define KC_SHARD_SEAL_ENV "KC_SHARD_SEAL"
#define KC_SHARD_SEAL_LINE "kcontract: shard end "

#endif
