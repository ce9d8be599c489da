/* fuzz_result.c — libFuzzer target: the result line a work-queue worker
 * writes on fd 3 (kc_result_parse), which the parent reads. No crash, no
 * undefined behaviour; a line that parses is written back
 * (kc_result_format) and parses again to the same item, state, gate, stale,
 * limit problems, replacement reason and block size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "result_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1), err[256], out[16384];
    if (!line) return 0;
    memcpy(line, data, size);
    line[size] = 0;
    kc_item_result r, q;
    char rn[192], qn[192];
    if (kc_result_parse(line, rn, sizeof rn, &r, err, sizeof err) == 0) {
        if ((unsigned)r.state >= KC_STATE_COUNT) abort();
        int n = kc_result_format(rn, &r, out, sizeof out);
        if (n <= 0 || out[n - 1] != '\n') abort();
        out[n - 1] = 0;
        if (!strchr(rn, '\t') && !strchr(rn, '\n')) {  /* a name the format can carry */
            if (kc_result_parse(out, qn, sizeof qn, &q, err, sizeof err) != 0) abort();
            if (strcmp(qn, rn) || q.state != r.state || q.gate != r.gate || q.stale != r.stale ||
                q.limit_problems != r.limit_problems || q.context_lost != r.context_lost || q.block_size != r.block_size)
                abort();
        }
    } else if (!err[0]) {
        abort();
    }
    free(line);
    return 0;
}
