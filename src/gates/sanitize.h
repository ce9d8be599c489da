/* sanitize.h — the sanitizer gate (gate 5, docs/sanitizer-gate.md): a
 * <contract>:sanitize item, and the last check of a control planted for the
 * sanitizer, re-execute this binary as the sanitizer's target (the internal
 * option --sanitize-target: kc_run_exact_launches, buffers of their exact
 * size) under NVIDIA's compute-sanitizer, once per tool (memcheck,
 * racecheck, initcheck, synccheck), each a child of the supervisor
 * (supervisor.h: its own process group, a time limit, what it leaves
 * behind killed); the first error the sanitizer prints becomes the item's
 * line. compute-sanitizer is $KC_COMPUTE_SANITIZER, else the first on PATH,
 * else /usr/local/cuda/bin/compute-sanitizer; where there is none the item is
 * SKIP, saying where it looked. */
#ifndef KC_SANITIZE_H
#define KC_SANITIZE_H
#include <stddef.h>
#include "run_options.h"
#include "item.h"
#include "result.h"
#include "sanitize_session.h"

#define KC_SAN_TOOLS 4                  /* memcheck, racecheck, initcheck, synccheck: the order they run in */
#define KC_SAN_ERROR_EXIT 86            /* --error-exitcode: the sanitizer found an error */
/* One tool's run, at most (KC_SANITIZE_TIMEOUT_S overrides; a contract's
 * larger timeout_s too): four fit in an unmeasured item's limit
 * (KC_TIMEOUT_NO_COST_S, costs.h). */
#define KC_SAN_TIMEOUT_S 120.0
#define KC_SAN_TARGET_OK "kcontract-sanitize-target: ok: "     /* the target's last line when it launched everything */
#define KC_SAN_TARGET_FAIL "kcontract-sanitize-target: FAIL: "
#define KC_SAN_TARGET_SMEM "kcontract-sanitize-target: smem: "       /* the most shared memory of a launch, bytes; -1 unknown (library) */
#define KC_SAN_TARGET_SLOWEST "kcontract-sanitize-target: slowest: " /* <shape> <seconds> */

/* "memcheck", "racecheck", "initcheck", "synccheck" for tool 0..3. */
const char *kc_sanitizer_tool(int tool);

/* The first error of a compute-sanitizer report, in its own words. Each
 * field is "" when the report did not say. */
typedef struct kc_san_error {
    char what[256];       /* "Invalid __global__ read of size 4 bytes", "Error: Race reported between Write access at ..." */
    char kernel[192];     /* "fake_copy_f16", from the first "at <kernel>+0x.. in <file>:<line>" */
    char where[384];      /* "at fake_copy_f16(...)+0x70 in copy.cu:12" (racecheck: both accesses) */
    char thread[64];      /* "(30,0,0)" */
    char block[64];       /* "(0,0,0)" */
    char address[384];    /* "Address 0x7f.. is out of bounds and is 2 bytes after the nearest allocation ..." */
    long errors;          /* the "ERROR SUMMARY: N errors" count; -1 when absent */
} kc_san_error;

/* Parses compute-sanitizer's output (lines starting "========= "; other lines,
 * the target's own, are ignored). Returns 1 and the first error in *e; 0 when
 * the report holds none (e->errors still gets the summary's count). An error
 * is the first report line (one space after the "=========") that is not the
 * banner, a summary, or the sanitizer's note about the target's exit. */
int kc_sanitizer_parse(const char *text, kc_san_error *e);

/* One line for a failure: "<tool>: <what> in kernel <kernel> <where>, thread
 * <t> block <b>, <address> (N errors in all)". */
void kc_sanitizer_describe(const char *tool, const kc_san_error *e, char *buf, size_t cap);

/* Finds compute-sanitizer: $KC_COMPUTE_SANITIZER (which must then be an
 * executable file), else each directory of $PATH, else
 * /usr/local/cuda/bin/compute-sanitizer. 0 with the path; 1 with why
 * ("compute-sanitizer not found (looked in $KC_COMPUTE_SANITIZER, unset; $PATH
 * (14 directories); /usr/local/cuda/bin/compute-sanitizer): install ... or set
 * KC_COMPUTE_SANITIZER=/path/to/compute-sanitizer": $PATH by its count of
 * directories, as every :sanitize item's SKIP line repeats it; or the bad
 * $KC_COMPUTE_SANITIZER) in why. */
int kc_sanitizer_find(char *path, size_t cap, char *why, size_t whycap);

/* Runs item `it` (a :sanitize item, or a control planted for the sanitizer
 * after gates 1-4 passed it) under each tool in turn, stopping at the first
 * that finds an error, and sets out->state and out->msg:
 *   sanitize item: PASS every tool clean; FAIL an error (the parsed line,
 *   then "; sanitizer command: <compute-sanitizer ... --sanitize-target ...>")
 *   or a target that failed or reported nothing; SKIP no compute-sanitizer;
 *   TIMEOUT a tool past its limit; CRASH the sanitizer killed by a signal.
 *   control: RED an error ("caught by gate 5 (sanitizer; ...)"); MISSED every
 *   tool clean; SKIP, TIMEOUT, CRASH as above, never RED.
 * gates_msg is what gates 1-4 said of a control ("" for an item). Each tool
 * runs in pool's session for it (sanitize_session.h: one compute-sanitizer
 * process per tool for every item of this process), trusted to say clean,
 * and to say an error only in a session's first window (all it printed is
 * this item's); anything else, and every tool when pool is NULL or
 * KC_SANITIZE_SESSIONS=0, is a session of this item alone. */
void kc_sanitize_item(const kc_item *it, const kc_opts *o, kc_san_pool *pool, const char *gates_msg, kc_item_result *out);

/* The target's side (--sanitize-target): runs kc_run_exact_launches for the
 * one item named by o->patterns[0] (a :sanitize item or a control; every
 * shape: the command a failure line gives to rerun by hand), or with no
 * pattern serves a session (sanitize_session.h): requests "<item> all|edge"
 * on stdin, each answered between its begin and end lines. Prints
 * KC_SAN_TARGET_SMEM, KC_SAN_TARGET_SLOWEST and KC_SAN_TARGET_OK or
 * KC_SAN_TARGET_FAIL for each item. Returns 0 when every launch ran, 1 when
 * one failed, 3 without a GPU, 2 bad usage. */
int kc_sanitize_target(const kc_opts *o, const kc_item *items, int n);
#endif
