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
#include "sanitize_target.h"
#include "sanitizer_report.h"

#define KC_SAN_ERROR_EXIT 86            /* --error-exitcode: the sanitizer found an error */

/* Finds compute-sanitizer: $KC_COMPUTE_SANITIZER (which must then be an
 * executable file), else each directory of $PATH, else
 * /usr/local/cuda/bin/compute-sanitizer. 0 with the path; 1 with why
 * ("compute-sanitizer not found (looked in $KC_COMPUTE_SANITIZER, unset; $PATH
 * (14 directories); /usr/local/cuda/bin/compute-sanitizer): install ... or set
 * KC_COMPUTE_SANITIZER=/path/to/compute-sanitizer": $PATH by its count of
 * directories, as every :sanitize item's SKIP line repeats it; or the bad
 * $KC_COMPUTE_SANITIZER; "KC_COMPUTE_SANITIZER=none: no compute-sanitizer"
 * when it is none, a machine without it asked for) in why. */
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

/* Starts spares in pool (sanitize_session.h) until it keeps `want` (at most
 * KC_SAN_SPARES_MAX), each with a memcheck and a racecheck session, for the
 * next controls planted for the sanitizer: kc_sanitize_item gives such a
 * control sessions of its own, which it takes from the first spare, so their
 * start (racecheck's 1.5 s, memcheck's 0.6 s on the H200,
 * docs/receipts/2026-12-03-h200-racecheck) overlaps what runs meanwhile:
 * the items before it (the caller counts the controls it runs soon) and the
 * control's own gates 1-4 (kc_item_run, want 1). Nothing when pool is NULL
 * or keeps want spares, with KC_SANITIZE_SESSIONS=0, or without
 * compute-sanitizer (the control's own line then says why). */
void kc_sanitize_ahead(const kc_opts *o, kc_san_pool *pool, int want);
#endif
