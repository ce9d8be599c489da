/* fuzz_tally.c — libFuzzer target: the TALLY line (kc_tally_parse), which a
 * --schedule static parent reads from its shards' stdout and `merge` from
 * saved logs. Whatever the bytes: no crash, no undefined behaviour, and a
 * line that parses is written back (kc_tally_format) and parses again to the
 * same tally; the SUMMARY and exit status of a parsed tally are computed too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "tally.h"

static int same(const kc_tally *a, const kc_tally *b)
{
    return kc_tally_counts_equal(a, b) && a->shard_k == b->shard_k && a->shard_n == b->shard_n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1), err[256], out[4096], sum[4096];
    if (!line) return 0;
    memcpy(line, data, size);
    line[size] = 0;
    kc_tally t, u;
    if (kc_tally_parse(line, &t, err, sizeof err) == 0) {
        int n = kc_tally_format(&t, out, sizeof out);
        if (n < 0) abort();                                     /* a parsed tally is always writable */
        if (kc_tally_parse(out, &u, err, sizeof err) != 0 || !same(&t, &u)) abort();
        kc_summary_format(&t, sum, sizeof sum);
        (void)kc_tally_exit_status(&t);
    } else if (!err[0]) {
        abort();                                                /* a refusal always says why */
    }
    kc_shard_out s;                                             /* as a shard's stdout line */
    kc_shard_out_init(&s, 0);
    kc_shard_out_line(&s, line, 0);
    free(line);
    return 0;
}
