/* merge.h — what each shard of a --jobs run produced, as the parent saw it,
 * and the merge of the shards' TALLY lines into the whole run's tally. Pure:
 * no processes, so tests feed it results directly.
 *
 * The merge fails, naming the shard and the reason, when a shard printed no
 * TALLY (crashed, killed, fell silent), two, a malformed one (the parser's
 * reason), or one for another shard, N, seed, filter or binary; when it left
 * processes behind (its pipes or process group held after it exited); when its exit
 * status is not the one its counts explain; when shards ran on different
 * devices (GPU model, compute capability or SM count; unless
 * allow_mixed_gpus); when shards ran with different options that change
 * verdicts (the TALLY's block=, reference=, timeout=: --block-size,
 * --reference, --timeout); when a shard was cut from another cost table than the
 * run's (naming the table as the cause); or when the shards' item sets do not add up to the filtered set
 * (each slice's count and digest, and their sums). */
#ifndef KC_MERGE_H
#define KC_MERGE_H
#include <stddef.h>
#include <stdint.h>
#include "tally.h"

/* One shard's outcome. */
typedef struct kc_shard_out {
    int k;                  /* the shard it was started as */
    int tallies;            /* lines starting with "TALLY" on its stdout */
    int have;               /* tally holds its first well-formed TALLY */
    kc_tally tally;
    char bad[256];          /* the first malformed TALLY's reason, "" if none */
    char leak[512];         /* processes it left behind, killed (supervisor.h); "" none */
    int ended;              /* reaped */
    int exited, status;     /* exited normally, with this status */
    int signo;              /* killed by this signal (0: exited) */
    int stopped;            /* the parent signalled it before it ended */
    int need_seal;          /* a static schedule's shard: finished only with its end seal (jobs.c) */
    int sealed;             /* it printed its end seal after its run's end */
} kc_shard_out;

void kc_shard_out_init(kc_shard_out *s, int k);
/* Classifies one line of the shard's stdout (without its newline; cut: the
 * line was longer than the parent keeps and `line` is its start). */
void kc_shard_out_line(kc_shard_out *s, const char *line, int cut);
/* Records how the process ended (a waitpid status). */
void kc_shard_out_ended(kc_shard_out *s, int wstatus);
/* Finished: exited by itself and printed a TALLY (whatever its counts say),
 * and its end seal where one is needed (need_seal). */
int kc_shard_out_finished(const kc_shard_out *s);
/* Why the shard did not finish ("killed by signal 11 (SIGSEGV)", "exited with
 * status 0 without a TALLY"), "" when it finished. */
void kc_shard_out_why(const kc_shard_out *s, char *buf, size_t cap);

/* What the merged run must add up to. */
typedef struct kc_merge_want {
    int n;                          /* shards */
    uint64_t seed, filter, build;   /* the run's identity (build: build_id.h) */
    long items;                     /* the filtered set */
    uint64_t digest;
    const long *slice_items;        /* each shard's slice [n], or NULL */
    const uint64_t *slice_digest;   /* [n], or NULL */
    uint64_t costs;                 /* the cost table the slices were cut from (TALLY costs=), 0: i % N */
    const char *costs_path;         /* its file, for the refusal (NULL: not named) */
    int allow_mixed_gpus;           /* shards on different GPUs merge (the merged TALLY takes the first's) */
    const char *patterns;           /* the merge's PATTERNs and --exclude as a command line's words, for the
                                     * refusal of another filter (NULL: not named) */
} kc_merge_want;

/* Merges nout outcomes. Returns 0 with the whole run's tally in *out
 * (shard 0/1, the run's identity and the shards' run options, summed
 * counts), or the number of problems
 * (> 0) with one line per problem in err ("shard 2/4: no TALLY: killed by
 * signal 11 (SIGSEGV)"; lines separated by '\n', truncated to fit). */
int kc_merge(const kc_merge_want *w, const kc_shard_out *outs, int nout, kc_tally *out, char *err, size_t errcap);
#endif
