/* shard.c — owns the shard spec "K/N", the partition (item i of the filtered,
 * sorted list goes to shard i % N), the --devices list and the round-robin
 * placement of shards on devices. Pure functions, no I/O. */
#include "shard.h"
#include "errmsg.h"
#include "strict_num.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef KC_STR
#define KC_STR_(x) #x
#define KC_STR(x) KC_STR_(x)
#endif
#define SHARD_EXPECT "expected K/N with 0 <= K < N <= " KC_STR(KC_MAX_SHARDS) " (e.g. 0/4), got '%s'"
#define DEVICES_EXPECT "expected distinct device ordinals from 0 to " KC_STR(KC_MAX_DEVICE) " separated by commas (e.g. 0,2,3), got '%s'"


int kc_shard_parse(const char *s, int *k, int *n, char *err, size_t errcap)
{
    if (!s) return kc_errf(err, errcap, SHARD_EXPECT, "");
    const char *slash = strchr(s, '/');
    uint64_t kk, nn;
    if (!slash) return kc_errf(err, errcap, SHARD_EXPECT, s);
    if (kc_parse_canonical(s, (size_t)(slash - s), 9999999999ULL, &kk) || kc_parse_canonical(slash + 1, strlen(slash + 1), 9999999999ULL, &nn))
        return kc_errf(err, errcap, SHARD_EXPECT, s);
    if (nn == 0) return kc_errf(err, errcap, "N must be at least 1, got '%s'", s);
    if (nn > KC_MAX_SHARDS) return kc_errf(err, errcap, "N must be at most %d, got '%s'", KC_MAX_SHARDS, s);
    if (kk >= nn)
        return kc_errf(err, errcap, "K must be below N (shards are 0..%llu), got '%s'", (unsigned long long)nn - 1, s);
    *k = (int)kk;
    *n = (int)nn;
    return 0;
}

int kc_shard_of(int index, int n) { return n > 0 ? index % n : 0; }

int kc_shard_size(int count, int k, int n)
{
    if (n <= 0 || k < 0 || k >= n || count <= k) return 0;
    return (count - k - 1) / n + 1;
}

int kc_devices_parse(const char *s, int *out, int max, char *err, size_t errcap)
{
    int cnt = 0;
    if (!s || !*s) return kc_errf(err, errcap, DEVICES_EXPECT, s ? s : "");
    for (const char *p = s;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        uint64_t v;
        if (kc_parse_canonical(p, len, KC_MAX_DEVICE, &v)) return kc_errf(err, errcap, DEVICES_EXPECT, s);
        for (int i = 0; i < cnt; i++)
            if (out[i] == (int)v) return kc_errf(err, errcap, "device %d is listed twice in '%s'", (int)v, s);
        if (cnt == max) return kc_errf(err, errcap, "at most %d devices, got '%s'", max, s);
        out[cnt++] = (int)v;
        if (!e) break;
        p = e + 1;
    }
    return cnt;
}

int kc_shard_device_slot(int k, int ndev) { return ndev > 0 ? k % ndev : 0; }
