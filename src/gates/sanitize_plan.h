/* sanitize_plan.h — internal to the sanitizer gate (sanitize.c, and the
 * batches of sanitize_batch.c): one item's plan for its tool runs (the
 * command's words, what the target's runs told), a tool's run through the
 * pool's session or alone, and its verdict. Not public: gates.h does not
 * include it. */
#ifndef KC_SANITIZE_PLAN_H
#define KC_SANITIZE_PLAN_H
#include <stddef.h>

#include "harness.h"
#include "item.h"
#include "rerun_env.h"
#include "result.h"
#include "run_options.h"
#include "sanitize_session.h"
#include "shell_words.h"

/* What one item's sanitizer runs share: the command's fixed words, and what
 * the runs so far learned from the target. */
typedef struct san_plan {
    const kc_item *it;
    const kc_contract *c;
    const char *san, *self;
    const kc_opts *o;           /* the target's seed and device (kc_child_argv) */
    kc_env_get_fn env_get;      /* what the sanitizer command carries (rerun_env.h) */
    char ecode[16], workers[24];
    char exclude[KC_HARNESS_KERNELS][96];   /* "kne=<harness kernel>" */
    int nedge, nshapes;
    char race_left[200];        /* the edge shapes racecheck need not run (kc_shape.no_racecheck), "" none */
    long smem;                  /* the target's "smem:" line (memcheck's run); -2 not yet known */
    char race_note[600];        /* why racecheck was not run, or "" */
    char times[600];            /* "memcheck 0.6 s, racecheck 1.1 s (edge shapes), ..." */
    char slowest[200];          /* "slowest launch qwen.len512 27.1 s (racecheck)" */
    char watchdog[300];         /* the target's "watchdog:" line, "" none (a module without one) */
    double slowest_s;
    unsigned known_hit;         /* bit i: the contract's known[i] (gate 5) matched a tool's report */
    int known_now;              /* the last judge_tool's report was a known finding */
    char known_note[1200];      /* "memcheck: <its error> [reason]; ..." */
    int own_pool;               /* the sessions are the item's own (a control's): kc_sanitize_item ends them */
} san_plan;

/* The plan for item it: the words every session shares (this binary, seed,
 * device, exit code, racecheck's threads, the harness kernels left out) and
 * the item's shapes (its edge shapes, those racecheck need not run). */
void kc_san_plan_init(san_plan *p, const kc_item *it, const kc_opts *o, const char *san, const char *self);
/* The target's "smem:" and "slowest:" lines after tool t's run. */
void kc_san_plan_learn(san_plan *p, int t, const char *out, double secs);
/* One tool's verdict from its run r (a window, or a run of the item
 * alone): 1 when the item is decided (out set: a report, a time limit, a
 * crash, a failed target); 0 when the tool was clean, or reported a known
 * finding only (noted in p), and the next one runs. */
int kc_san_judge_tool(san_plan *p, int t, const kc_san_window *r, double limit, const char *cmd,
                      const char *gates_msg, const char *planted, kc_item_result *out, char *target_ok, size_t okcap);
/* Tool t for the item, its command lines built here: through the pool's
 * session when there is one and its window is clean; otherwise the item
 * alone decides (sanitize_session.h). 1 when the item is decided (out set). */
int kc_san_run_tool(san_plan *p, kc_san_pool *pool, int t, double limit, const char *gates_msg, const char *planted,
                    kc_san_window *w, kc_item_result *out, char *target_ok, size_t okcap);
/* The command line of tool t's session, appended to words: the
 * sanitizer's own words, then the target's (kc_child_argv: this binary, run,
 * --sanitize-target, the seed and the device). With `item`, the command that
 * runs that item alone by hand (every shape; the one a failure line gives);
 * without, a session that reads its items from stdin. 0, or -1 (out of
 * memory). */
int kc_san_tool_argv(const san_plan *p, int t, const char *item, kc_strvec *words);
/* One tool run's time limit for item it, seconds: KC_SANITIZE_TIMEOUT_S,
 * else the larger of KC_SAN_TIMEOUT_S and the contract's timeout_s. */
double kc_san_tool_limit_s(const kc_item *it);
/* Whether racecheck runs, after memcheck's run told the shared memory. */
int kc_san_race_runs(san_plan *p);
/* racecheck on the edge shapes only: shared memory belongs to one block, so a
 * race is in the path one block takes (tile counts, tails), which the edge
 * shapes are written to cover; the model shape adds blocks on the same
 * paths, and racecheck's cost grows with every shared-memory access of every
 * block (H200: 28 s and 190 CPU seconds for attn_prefill's model shape, under
 * 1 s for its six edge shapes; docs/sanitizer-gate.md). The target skips
 * the model shape when asked ("<item> edge"), and the edge shapes the
 * contract says racecheck need not run (kc_shape.no_racecheck): racecheck's
 * own --launch-count was no way to do it (on the H200 it hid
 * smem_reuse_race's hazards even where the count covered the launch that
 * has them). */
int kc_san_race_edges_only(const san_plan *p);
/* Starts the session of every tool in `tools` (a bit per tool) that has
 * none in pool: their starts overlap what runs next. Nothing without a
 * pool, with KC_SANITIZE_SESSIONS=0, or when a session cannot start (its
 * request then says why). */
void kc_san_warm_tools(const san_plan *p, kc_san_pool *pool, unsigned tools);
/* Whether a session's window shows tool t clean for the item: its end line
 * came, the target ran every launch, and no report line fell between (all
 * of it read: past what is kept, only the item's own run, whose exit status
 * counts its errors, decides). */
int kc_san_window_clean(const kc_san_window *w);
/* The verdict when every tool that ran was clean (or reported a known
 * finding only). */
void kc_san_all_clean(const san_plan *p, const char *gates_msg, const char *target_ok, kc_item_result *out);
#endif
