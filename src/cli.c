/* cli.c — command-line parsing and the help text. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void kc_cli_usage(FILE *out)
{
    fputs("usage: kcontract [run] [options] [PATTERN...]   check items (default: all)\n"
          "       kcontract list [PATTERN...]            list items and their kinds\n"
          "       kcontract info                         driver and devices\n"
          "\n"
          "PATTERN is a shell glob over item names, e.g. 'rmsnorm.*' or '*:control.*'.\n"
          "Items: <contract> (gates 1-4), <contract>:limits, <contract>:control.<name>, suites.\n"
          "\n"
          "options:\n"
          "  --seed S      run seed (default 1); every input derives from it and the item's name\n"
          "  --device D    CUDA device ordinal (default 0)\n"
          "  --help        this text\n"
          "\n"
          "Each item prints one line: PASS, FAIL, KNOWN, RED, MISSED, LIMIT or SKIP, ending with\n"
          "its time; then a machine-readable TALLY line and a SUMMARY line (docs/output-format.md).\n"
          "exit status: 0 everything ran and passed; 1 a failure, missed control, limit problem\n"
          "or stale known finding; 2 bad usage; 3 nothing failed but items were skipped (e.g. no\n"
          "GPU); 4 internal error.\n",
          out);
}

int kc_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) return -1;
    *out = v;
    return 0;
}

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "kcontract: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(kcontract --help lists the options)\n");
    return 2;
}

int kc_cli_parse(int argc, char **argv, kc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->argv0 = argc > 0 ? argv[0] : "kcontract";
    o->argv = calloc((size_t)argc + 1, sizeof *o->argv);
    o->patterns = calloc((size_t)argc + 1, sizeof *o->patterns);
    if (!o->argv || !o->patterns) return usage_error("out of memory%s%s", "", "");
    int i = 1;
    o->argv[o->argc++] = argv[0];
    if (i < argc && strcmp(argv[i], "run") == 0) o->argv[o->argc++] = argv[i++];
    else if (i < argc && strcmp(argv[i], "list") == 0) { o->cmd = KC_CMD_LIST; o->argv[o->argc++] = argv[i++]; }
    else if (i < argc && strcmp(argv[i], "info") == 0) { o->cmd = KC_CMD_INFO; o->argv[o->argc++] = argv[i++]; }
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->cmd = KC_CMD_HELP;
            return 0;
        } else if (strcmp(a, "--seed") == 0) {
            if (!v) return usage_error("%s needs a value (a non-negative integer)%s", a, "");
            if (kc_parse_u64(v, UINT64_MAX, &o->seed))
                return usage_error("--seed: expected a non-negative integer below 2^64, got '%s'%s", v, "");
        } else if (strcmp(a, "--device") == 0) {
            if (!v) return usage_error("%s needs a value (a device ordinal, see kcontract info)%s", a, "");
            if (kc_parse_u64(v, 1023, &x))
                return usage_error("--device: expected a device ordinal (0, 1, ...), got '%s'%s", v, "");
            o->device = (int)x;
        } else if (strcmp(a, "--resume-at") == 0) {
            if (!v || kc_parse_u64(v, 1u << 30, &x)) return usage_error("--resume-at: internal option, got '%s'%s", v ? v : "", "");
            o->resume_at = (int)x;
            i++;
            continue;
        } else if (strcmp(a, "--resume-tally") == 0) {
            if (!v) return usage_error("--resume-tally: internal option needs a TALLY line%s%s", "", "");
            o->resume_tally = v;
            i++;
            continue;
        } else if (strcmp(a, "--resume-elapsed") == 0) {
            if (!v) return usage_error("--resume-elapsed: internal option needs seconds%s%s", "", "");
            o->resume_elapsed = atof(v);
            i++;
            continue;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'%s", a, "");
        } else {
            if (o->cmd == KC_CMD_INFO) return usage_error("info takes no patterns, got '%s'%s", a, "");
            o->patterns[o->npatterns++] = argv[i];
            o->argv[o->argc++] = argv[i];
            continue;
        }
        o->argv[o->argc++] = argv[i];
        o->argv[o->argc++] = argv[i + 1];
        i++;
    }
    return 0;
}

void kc_opts_free(kc_opts *o)
{
    free(o->argv);
    free(o->patterns);
    o->argv = NULL;
    o->patterns = NULL;
}
