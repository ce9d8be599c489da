/* fuzz_cli.c — libFuzzer target: the command line (kc_cli_parse_args: every
 * option, value and combination; not the probe that creates files beside
 * the reports). The input is the arguments after argv[0], separated by NUL
 * bytes (at most 64). No crash, no undefined behaviour; a refusal is exit
 * status 2, and what parses has options in their ranges. Run with
 * -close_fd_mask=2: refusals are printed on stderr. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shard.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    int argc = 0;
    argv[argc++] = "kcontract";
    for (char *p = buf; argc <= MAX_ARGS && p <= buf + size; p += strlen(p) + 1) argv[argc++] = p;
    if (size == 0) argc = 1;
    argv[argc] = NULL;
    kc_opts o;
    int rc = kc_cli_parse_args(argc, argv, &o);
    if (rc != 0 && rc != 2) abort();
    if (rc == 0) {
        if (o.jobs < 0 || o.jobs > KC_MAX_SHARDS || o.shard_n < 1 || o.shard_k < 0 || o.shard_k >= o.shard_n ||
            o.npatterns < 0 || o.npatterns >= argc || o.nrecords > KC_MAX_RECORD_FILES || o.ndevices > KC_MAX_DEVLIST ||
            o.threads < 0 || o.timeout_s < 0)
            abort();
    }
    kc_opts_free(&o);
    free(buf);
    return 0;
}
