/* result_cache.h — the results cache (issue 23, after Bazel's test cache):
 * an item whose inputs have not changed since it last passed is not run
 * again; its verdict, gate and message are reused and its line says so.
 *
 * The key of an item holds everything that decides its verdict:
 *   - the item: its name, kind, control, launch record, suite;
 *   - its contract's definition (build_id.h, kc_contract_hash);
 *   - the host code behind it: references, generators, launch functions and
 *     the harness (host_code.h: the binary's code and data, less the images);
 *   - its module images (fatbin.h): every image of its contract's module and
 *     of its device reference's, and the harness's own (a GPU suite: the
 *     harness's own, the only module its session reaches); each by its bytes;
 *   - its library kernels' shared objects (hostlib.h: lib<library>.so, a
 *     control's lib<library>@<control>.so), by their bytes;
 *   - the run's seed and --reference mode;
 *   - kcontract's ABI version (kcontract.h) and the cache format;
 *   - the GPU: its name, compute capability, SM count, and the driver's
 *     version ("none" without one: a host-only suite's pass is reused
 *     without a GPU too; GPU items are SKIP there, which is never reused);
 *   - for items that run compute-sanitizer (:sanitize, a control planted
 *     for the sanitizer): the tool's resolved path and its executable's
 *     bytes, and KC_SANITIZE_SESSIONS, KC_SANITIZE_TIMEOUT_S and
 *     KC_SANITIZE_BATCH;
 *   - the values of LD_PRELOAD, KC_LIBCUDA and KC_LIBDIR, and of the
 *     variables the CUDA stack reads: CUDA_* (but CUDA_VISIBLE_DEVICES, whose
 *     device is keyed), CUBLAS*, NVIDIA_TF32_OVERRIDE.
 * What the key cannot see runs the item: the cache is off for the whole run
 * with KC_CACHE_DIR=off, and while a KC_FAULT_* test hook is set; it is off
 * when the binary's code cannot be read, and for a --jobs run over GPUs of
 * different models. Not seen (a change there alone reuses a pass;
 * `--no-cache` reruns): the system's shared libraries (libc; the CUDA
 * libraries a library kernel links, such as cuBLAS, by the driver's version
 * only), and the host's CPU.
 *
 * --no-cache reuses no verdict, but what runs refreshes the cache, as Bazel's
 * --nocache_test_results does: a pass is kept, and the latest verdict on an
 * input decides: an item that ran to a verdict the cache may not keep (a
 * FAIL, a clean window its session could not vouch for) on the inputs of a
 * kept pass removes that pass, so the run after it runs the item (without
 * that, a failure the key cannot see, run with --no-cache as the docs say,
 * would be followed by a green cached run).
 *
 * Only passing verdicts are reused: PASS (a kernel's gates, a limit item, a
 * suite, a sanitizer check) and RED (a control caught by the gate it was
 * planted for, reused with that gate and its line), and only when the item
 * has no stale known finding, no limit problem and left nothing behind (a
 * control may have lost the CUDA context: a fault is its catch);
 * never FAIL, KNOWN, MISSED, LIMIT, LEAK, SKIP, CRASH, TIMEOUT or NOTRUN.
 * Under --timeout, a verdict is reused only when the run that earned it took
 * no longer than that (else it would be a TIMEOUT now).
 *
 * Where: KC_CACHE_DIR when set, else "<binary>.cache" beside the binary
 * (build/kcontract.cache/ for build/kcontract): one per binary. One file per
 * item (16 hex digits of the item name's hash), written to a new temporary
 * file and renamed into place (safe_file.h), so concurrent workers, shards
 * and runs never leave a torn entry; each entry carries a checksum, and one
 * that does not read back (corrupt, another format, another item's) is
 * ignored with a warning on stderr and replaced when the item passes. */
#ifndef KC_RESULT_CACHE_H
#define KC_RESULT_CACHE_H
#include <stdint.h>
#include <stdio.h>

#include "costs.h"
#include "item.h"
#include "kcontract.h"
#include "record.h"
#include "result.h"
#include "run_options.h"

typedef struct kc_rcache kc_rcache;

/* Entries kept per item, one per key (its inputs: a seed, a GPU, a build):
 * a CI that alternates seeds or machines finds each one's passes, as
 * Bazel's cache keeps every action key's result; past this many the oldest
 * go (result_cache.c, prune). */
#define KC_RCACHE_KEYS_PER_ITEM 8

/* The GPU the run's items run on (name NULL or "none": no GPU). */
typedef struct kc_rcache_gpu {
    const char *name;
    int cc_major, cc_minor, sm_count;
    int driver_version;              /* cuDriverGetVersion's, 0 without a driver */
} kc_rcache_gpu;

/* Opens this binary's cache for a run with settings o on gpu; under
 * o->no_cache to refresh it only (kc_rcache_lookup finds nothing). NULL when
 * the cache is off: by choice (KC_CACHE_DIR=off), silently; for a reason the
 * user should know (a KC_FAULT_* hook set, the binary unreadable, the
 * directory not usable), after one line on out saying why and that every
 * item runs; under --no-cache that the cache is not refreshed (a hook's
 * run, silently: its verdicts are the hook's, evidence of nothing). */
kc_rcache *kc_rcache_open(const kc_opts *o, const kc_rcache_gpu *gpu, FILE *out);
/* kc_rcache_open on the devices a run's workers go on, dev[0..ndevs) (none:
 * no GPU): NULL, after a line on out, when they are of different models
 * (name, compute capability or SM count), since an item's key holds one
 * (under --no-cache the line says the cache is not refreshed). */
kc_rcache *kc_rcache_open_on(const kc_opts *o, const kc_device *dev, int ndevs, int driver_version, FILE *out);
/* Whether it holds a reusable verdict for it under the current key: 1 with
 * *r filled (state, gate, message with "[cached: ...]" after it, cached,
 * cached_at, cached_build; seconds 0), else 0. c NULL or --no-cache: 0
 * (the key is still taken, before the item runs: its verdict is kept or
 * evicted under it). */
int kc_rcache_lookup(kc_rcache *c, const kc_item *it, kc_item_result *r);
/* Whether r is a verdict the cache may keep (see above). */
int kc_rcache_reusable(const kc_item *it, const kc_item_result *r);
/* Keeps r for it when reusable and not itself reused (c NULL: nothing);
 * when not reusable, removes the pass kept for the same inputs (above; not
 * after a SKIP or NOTRUN, nor after a TIMEOUT under a time limit the kept
 * pass took longer than). A write that fails is said once on stderr; the
 * run goes on. */
void kc_rcache_store(kc_rcache *c, const kc_item *it, const kc_item_result *r);
/* The verdict of an item that ran in compute-sanitizer sessions
 * (kc_item_runs_sanitizer) is held, not kept: a session's summary, checked
 * only when the sessions end (kc_san_pool_free), may count errors no item's
 * window held, and then the items it called clean are not trusted; kept
 * then, a later run would reuse a clean verdict this one could not vouch
 * for, and be green where this run was not. owner: the pid of the process
 * whose sessions served it (a worker, or a static shard's run). A copy of
 * r is kept; `it` must outlive c. Not reusable: as kc_rcache_store (the
 * pass kept for the same inputs removed). c NULL: nothing. */
void kc_rcache_hold(kc_rcache *c, const kc_item *it, const kc_item_result *r, int owner);
/* How the sessions that gave held verdicts ended. */
typedef enum kc_rcache_sessions {
    KC_SESSIONS_VOUCHED,        /* their summaries counted no error that no window held, and they ended as asked */
    KC_SESSIONS_UNVOUCHED,      /* their process ended otherwise (killed, crashed, interrupted): no word either way */
    KC_SESSIONS_DISTRUSTED,     /* found not to vouch (kc_san_pool_free; a worker's KC_WORKER_UNTRUSTED) */
} kc_rcache_sessions;
/* The sessions of owner ended: its held verdicts are kept (VOUCHED,
 * kc_rcache_store) or dropped; DISTRUSTED also removes the passes kept for
 * their inputs (evidence against them), UNVOUCHED leaves those as they are.
 * Verdicts still held at kc_rcache_close are dropped as UNVOUCHED. c NULL:
 * nothing. */
void kc_rcache_release(kc_rcache *c, int owner, kc_rcache_sessions how);
/* The cost table the run's time limits come from (kc_item_time_limit, with
 * the run's --timeout): a kept pass that took longer than its item's limit
 * is not reused (it would be a TIMEOUT now: the item runs). costs must
 * outlive c; NULL (the default): none, so the limits are --timeout, the
 * contracts' timeout_s or KC_TIMEOUT_NO_COST_S, as in a run that reads no
 * table. c NULL: nothing. */
void kc_rcache_limits(kc_rcache *c, const kc_costs *costs);
/* The pass this run kept for it, under the key its inputs had before it
 * ran, is removed (a later finding against the process that earned it:
 * queue_deaths.c); an entry of other inputs stays. A removal that fails is
 * said on stderr. c NULL: nothing. */
void kc_rcache_forget(kc_rcache *c, const kc_item *it);
/* Every control RED in rs beside its own kernel's failure
 * (kc_record_red_beside_failure) is forgotten as kc_rcache_forget does, its
 * item found by name among items[0..n): such a RED may be the kernel's own
 * failure (a wrong reference), not the contract catching the planted bug,
 * and a run that reused it once the kernel passes would read green on a
 * control it never saw caught. Called at a run's end, when every verdict is
 * known. c NULL: nothing. */
void kc_rcache_forget_beside_failures(kc_rcache *c, const kc_records *rs, const kc_item *items, int n);
/* Item it is about to run in this very process (kc_run: a static shard,
 * where a crash under the item leaves no verdict for the cache to act on;
 * a serial run is a queue of one worker, whose parent settles a crash):
 * under --no-cache, the pass kept for its inputs is removed now, and kept
 * again only when the item passes, so a shard that dies under it leaves
 * none for the next run to reuse. The cost: a shard stopped or interrupted
 * with no verdict loses that pass too, and the passes of the sanitizer
 * checks it ran whose sessions never vouched. c NULL or not --no-cache:
 * nothing. */
void kc_rcache_item_starts(kc_rcache *c, const kc_item *it);
void kc_rcache_close(kc_rcache *c);

/* The verdicts a run reuses, by item index (items[0..n)). */
typedef struct kc_rcache_hits {
    kc_item_result **by_item;   /* [n]: the reused result, NULL: the item runs; NULL when none */
    int n;                      /* items with a reused verdict */
} kc_rcache_hits;
/* Looks up every selected item items[sel[0..ns)] (c NULL: none), making
 * each one's key now (kc_rcache_lookup): before any of them runs. 0; or -1
 * when out of memory for the table (h then holds nothing); a verdict that
 * finds no memory is a miss (the item runs: always safe). */
int kc_rcache_lookup_all(kc_rcache *c, const kc_item *items, int nitems, const int *sel, int ns, kc_rcache_hits *h);
void kc_rcache_hits_free(kc_rcache_hits *h, int nitems);
#endif
