/* mutate_waves.h — the waves of a mutation run (kcontract mutate,
 * docs/mutation.md): the viable mutants run as items of this binary's own
 * `run` (KC_MUTANTS names the manifest, mutant_images.h; the work queue with
 * --jobs, --shard, --timeout), each run's lines printed and read back into
 * the mutants' outcomes. Wave 0 (--every-contract) runs each mutant through
 * every contract of its module; else wave 1 runs it through its first
 * contract and wave 2 the ones wave 1 missed through the module's other
 * contracts that reach them (mutate_route.h). Here too: the manifests the
 * waves run, the options every run of a mutation run gets (the baseline's
 * too, mutate_baseline.h) and a wave's slice of a --shard run. */
#ifndef KC_MUTATE_WAVES_H
#define KC_MUTATE_WAVES_H
#include <stddef.h>

#include "item.h"
#include "mutate_build.h"
#include "mutate_report.h"
#include "mutate_route.h"
#include "run_options.h"
#include "state.h"
#include "strvec.h"

/* The mutants' folder when --mutants-dir is not given: their images, the
 * manifests, the cost table and each wave's JSON report (run-wave<K>.json). */
#define KC_MUT_DEFAULT_DIR "build/mutants"

/* How a child run of mutate (the baseline, a wave) ended, read from its
 * lines (kc_mut_end_line): its TALLY line (tally.h) is printed at its end,
 * so without one the run did not reach it (killed, crashed) and its item
 * lines are not all it ran; untrusted is that line's untrusted= (a
 * sanitizer session that could not vouch, a worker that broke the result
 * protocol or ended unexplained, an interrupted run: run_end.c), whose item
 * lines the run itself does not vouch for. */
typedef struct kc_mut_run_end {
    int tally;              /* a TALLY line that parses was read */
    long untrusted;         /* its untrusted= */
    long control[KC_STATE_COUNT];   /* its control items per state (a mutant's item is a control) */
} kc_mut_run_end;

/* One stdout line of a child run: a TALLY line sets end (tally 0 when it
 * does not parse) and returns 1; any other line 0. */
int kc_mut_end_line(kc_mut_run_end *end, const char *line, size_t len);

/* Whether the verdicts of a child run that ended with wait status ws and
 * lines end can be counted: 0 yes; 1 not trusted (its TALLY says
 * untrusted=); 2 it ended without its TALLY line (killed by a signal,
 * crashed: an exit with no end); 3 it exited 4 after a trusted TALLY: a
 * report it was asked for (--json) could not be written, or its stdout
 * failed (run_end.c, main.c; a run with a failure exits 1 instead). Its
 * lines are whole then (the TALLY comes after them), but its report is not:
 * the baseline, which reads its report, refuses it; a wave, which reads
 * only its lines, counts them (kc_mut_run_wave). Except for 0, why says so
 * ("was killed by signal 9 (SIGKILL) before its TALLY line"; "is not
 * trusted: its TALLY says untrusted=1 (a line above says why)"; "exited 4
 * after its TALLY line: a report of its could not be written (a line above
 * says why)"), for "the mutants' run (wave 1) <why>". */
int kc_mut_run_end_check(const kc_mut_run_end *end, int ws, char *why, size_t cap);

/* What the waves' runs told, kept across the waves (kc_mut_run_wave): the
 * caller sets m and st; each mutant item's line appends an item to
 * items[0..nitems) (grown by realloc, cap its room; the caller frees items;
 * oom set when it could not grow) and raises st[i] of its mutant to the best
 * outcome so far: caught, else timeout, else not run for another reason than
 * a skip, else missed (by this wave's items or, for wave 2, by its first
 * contract in wave 1: st[i].missed), else skipped. end: the current wave's
 * run's end (kc_mut_run_wave resets it). */
typedef struct kc_mut_run_ctx {
    kc_mutants *m;
    kc_mut_status *st;
    kc_mut_item *items;
    int nitems, cap, oom;
    kc_mut_run_end end;
    /* The current wave's mutant item lines (kc_mut_run_wave resets them),
     * for kc_mut_wave_lines_check: per state (kc_state), and those that name
     * a mutant of no item appended (an id this run did not make; the first
     * one's item name). */
    long lines[KC_STATE_COUNT];
    int stray;
    char stray_item[192];
    int reports_failed;     /* a wave whose verdicts count exited 4: a report of its could not be written */
} kc_mut_run_ctx;

/* One (mutant, contract) item a wave was handed: mutant index into m, the
 * contract's name. */
typedef struct kc_mut_pair {
    int mutant;
    const char *contract;
} kc_mut_pair;

/* Whether the mutant item lines a trusted wave printed (rx->items[from..
 * rx->nitems), rx->lines, rx->stray) add up to what it was handed
 * (handed[0..nhanded)) and to its TALLY's control counts (rx->end.control):
 * every line is of an item it was handed, no item has two lines, with whole
 * every item handed has one (a --shard wave's slice is its own: then only
 * the counts tell a line that is missing), and the lines per state are the
 * TALLY's. 0 yes; else 1 with why naming the first item that does not add
 * up (its lines, 1 expected) and both counts ("printed lines that do not add
 * up to its TALLY: item C:mutant.X has 2 lines, 1 expected; the TALLY counts
 * 1 mutant item (MISSED 1), its lines 2 (RED 1, MISSED 1)"), and item (cap
 * icap) that item's name, "" when none is named. */
int kc_mut_wave_lines_check(const kc_mut_run_ctx *rx, int from, const kc_mut_pair *handed, int nhanded, int whole,
                            char *why, size_t cap, char *item, size_t icap);

/* What the routed waves read (kc_mut_run_waves). */
typedef struct kc_mut_waves {
    const kc_opts *o;
    const kc_item *items;
    int n;
    const unsigned char *judge;
    const kc_mut_module *mods;
    int nmods;
    const kc_mutants *m;
    kc_mut_status *st;
    unsigned char *in;      /* the viable mutants; changed to the second wave's */
    const char *absdir, *ext;
    int gate;
} kc_mut_waves;

/* One line of the run's output, when it is a mutant item's line ("[wK] "
 * tag optional): "STATE  <contract>:mutant.<id>  message ...". Sets the
 * state, contract, id and the gate a RED line names ("caught by gate N");
 * returns 1, or 0 for any other line. */
int kc_mutate_parse_line(const char *line, kc_state *state, char *contract, size_t ccap, char *id, size_t icap,
                         int *gate);

/* Writes the manifest (mutant_images.h) at path of the mutants i with in[i],
 * each line with its image DIR/<module>@<id><ext> (kc_mutant_path) and gate
 * `gate` (4, or 5 to go on to the sanitizer); with routes, wave 1 or 2 names
 * on each line the contracts that judge it in that wave (contracts=), and a
 * mutant no contract judges in it has no line. 0, or -1 with err (a file
 * that cannot be written, or judges' names that do not fit in a line). */
int kc_mut_write_manifest(const char *path, const char *dir, const char *ext, const kc_mutants *m,
                          const unsigned char *in, int gate, const kc_mut_routes *routes, const kc_item *items,
                          int wave, char *err, size_t cap);

/* Pushes this binary's `run` with the options a mutation run passes on to
 * each of its runs (the baseline and the waves): --jobs, --timeout when
 * given (else each mutant's limit follows its contract's baseline, costs.h),
 * --seed, --device when given, --inflight above 1. 0, or nonzero when out
 * of memory. */
int kc_mut_push_run(kc_strvec *av, const kc_opts *o);

/* The options that cut a wave's run (1 first contract, 2 the others, 0
 * every contract) into this shard's slice, pushed onto av: `--shard K/N`
 * for waves 0 and 1 of a --shard run (wave 2 runs whole: its manifest holds
 * this shard's mutants only), and `--costs`: the user's table when given,
 * else mutant_costs (the mutants' table under --mutants-dir, for the longest
 * first order), except for a sharded wave, which is then sliced by name so
 * that every shard cuts the same slices. Returns nonzero when out of memory. */
int kc_mutate_wave_slice(const kc_opts *o, int wave, const char *mutant_costs, kc_strvec *av);

/* One run of mutant items through this binary's own `run` (KC_MUTANTS =
 * manifest, set in this process's environment), its lines kept in rx: wave
 * 0 every contract (judge[k] of items[0..n)) of each mutant's module, wave
 * 1 its first contract (routes, mutate_route.h; a mutant it catches is
 * done: cargo-mutants stops at a mutant's first failing test too), wave 2
 * the others that reach the mutants wave 1 missed. Wave 2 runs whole on
 * every shard: its manifest holds only the mutants this shard's wave 1 ran.
 * Its JSON report goes to DIR/run-wave<K>.json. A run whose verdicts
 * cannot be counted (kc_mut_run_end_check: not trusted, or ended without
 * its TALLY line; or kc_mut_wave_lines_check: its lines do not add up to
 * what it was handed and to its TALLY) is said on stderr, and none of its
 * lines count: each mutant of the wave (in[i]) is not run (st why says so;
 * its items are dropped), so the report exits 1, and a run with no end
 * returns 4. A run that exited 4 after a trusted TALLY whose lines add up
 * (its --json report could not be written) counts: mutate reads its lines,
 * never that report; said on stderr, rx->reports_failed set (mutate then
 * exits 4 where it would exit 0 or 3). Returns 0 (also when the wave has no
 * item), or the command's exit status (4, 130). */
int kc_mut_run_wave(const kc_opts *o, const unsigned char *judge, const kc_item *items, int n, const kc_mutants *m,
                    const unsigned char *in, const kc_mut_routes *routes, const char *manifest, int wave,
                    kc_mut_run_ctx *rx);

/* The two waves, each mutant routed to the contracts whose kernels reach it
 * (mutate_route.h): wave 1 its first (mutants-wave1.list), wave 2 the others
 * on the mutants wave 1 missed (mutants-missed.list, under w->absdir); until
 * wave 2 has run them they are undecided, never missed (their st VIABLE
 * again, w->in theirs). 0, or an exit status (4, 130). */
int kc_mut_run_waves(const kc_mut_waves *w, kc_mut_run_ctx *rx);
#endif
