/* fuzz_mergelog.c — libFuzzer target: the saved shard logs `kcontract merge`
 * reads (kc_merge_log_read), files that come from other hosts. The input is
 * up to four logs separated by NUL bytes; each is read as merge reads one,
 * against a small item list, then the logs that finished are merged
 * (kc_merge) as shards of the first one's N. No crash, no undefined
 * behaviour; a merge that succeeds gives a tally that can be written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "merge_logs.h"
#include "tally.h"

#define MAX_LOGS 4

static kc_item ITEMS[] = {
    { "fixture.fail", KC_KIND_SUITE },        { "fixture.pass.00", KC_KIND_SUITE },
    { "fixture.pass.01", KC_KIND_SUITE },     { "rmsnorm.f16", KC_KIND_KERNEL },
    { "rmsnorm.f16:limits", KC_KIND_LIMIT },  { "rmsnorm.f16:control.no_eps", KC_KIND_CONTROL },
};
#define NITEMS ((int)(sizeof ITEMS / sizeof ITEMS[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_shard_out outs[MAX_LOGS];
    kc_tally body[MAX_LOGS];
    double wall;
    int nlogs = 0;
    for (size_t at = 0; nlogs < MAX_LOGS && at <= size;) {
        const uint8_t *end = memchr(data + at, 0, size - at);
        size_t len = end ? (size_t)(end - (data + at)) : size - at;
        char *text = malloc(len + 1);
        if (!text) return 0;
        memcpy(text, data + at, len);
        FILE *f = fmemopen(text, len + 1, "r");            /* len + 1: fmemopen refuses 0 bytes */
        if (f) {
            if (len == 0) fgetc(f);                         /* an empty log: nothing to read */
            kc_shard_out_init(&outs[nlogs], -1);
            kc_tally_init(&body[nlogs]);
            if (kc_merge_log_read(f, ITEMS, NITEMS, &outs[nlogs], &body[nlogs], &wall, NULL) == 0) nlogs++;
            fclose(f);
        }
        free(text);
        if (!end) break;
        at += len + 1;
    }
    /* The finished logs, merged as shards of the first one's N. */
    kc_shard_out fin[MAX_LOGS];
    int nfin = 0;
    for (int i = 0; i < nlogs; i++)
        if (outs[i].have && outs[i].exited) fin[nfin++] = outs[i];
    if (!nfin || fin[0].tally.shard_n > 64) return 0;
    kc_merge_want w = { fin[0].tally.shard_n, fin[0].tally.seed, fin[0].tally.filter, fin[0].tally.build, 0, 0, NULL, NULL };
    for (int i = 0; i < nfin; i++) {
        w.items += fin[i].tally.items;
        w.digest += fin[i].tally.digest;
    }
    kc_tally t;
    static char err[65536];
    if (kc_merge(&w, fin, nfin, &t, err, sizeof err) == 0) {
        char line[4096];
        if (kc_tally_format(&t, line, sizeof line) < 0) abort();
    }
    return 0;
}
