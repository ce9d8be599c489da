/* result_cache.c — owns the results cache (result_cache.h): the key of an
 * item, its entry file (written atomically, read strictly), and what may be
 * reused. */
#include "result_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "costs.h"
#include "cuda_env.h"
#include "fatbin.h"
#include "host_code.h"
#include "hostlib.h"
#include "item_run.h"
#include "mutant_images.h"
#include "errmsg.h"
#include "progname.h"
#include "proctree.h"
#include "safe_file.h"
#include "sanitize.h"
#include "seed.h"
#include "strict_num.h"

#define FORMAT_LINE "kcontract results cache 1"
#define ENTRY_MAX 8192

struct kc_rcache {
    char dir[PATH_MAX - 32];     /* room for "/" and the entry's name */
    uint64_t global;            /* what every item's key holds (result_cache.h) */
    uint64_t gpu;               /* the GPU's identity: in the key of an item that needs one only (item_key) */
    uint64_t *image;            /* per image (fatbin.h index): its bytes' hash, 0 not yet */
    int nimage;
    double timeout_s;           /* --timeout; 0 none */
    const kc_costs *costs;      /* the table the run's time limits come from (kc_rcache_limits); NULL none */
    unsigned block_size;        /* --block-size; 0 none: in a contract item's key only (item_key) */
    uint64_t sanitizer;         /* compute-sanitizer's identity; 0 not yet */
    int write_failed;           /* said once */
    int refresh;                /* --no-cache: nothing is reused, what runs still keeps or evicts (result_cache.h) */
    struct held {               /* verdicts waiting on their sessions' summaries (kc_rcache_hold) */
        const kc_item *it;
        kc_item_result r;
        int owner;
    } *held;
    int nheld, capheld;
    struct keyed {              /* each item's key as it was before it ran (key_before_run) */
        const kc_item *it;
        uint64_t key;
        int unearned;           /* a library it loads was replaced after this process loaded it */
    } *keys;
    int nkeys, capkeys;
};

static uint64_t mix_str(uint64_t h, const char *s)
{
    if (!s) return kc_fnv1a64("\377", 1, h);
    size_t n = strlen(s);
    return kc_fnv1a64(s, n + 1, h);     /* with its NUL: "ab","c" differs from "a","bc" */
}

static uint64_t mix_u64(uint64_t h, uint64_t v) { return kc_fnv1a64(&v, sizeof v, h); }

static const char *env_or_empty(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "";
}

/* A KC_FAULT_* test hook, or a mutation run's KC_MUTANTS (mutant images read
 * from files, whose ids stay the same when the source around them changes),
 * in the environment: they change verdicts the key cannot see. */
static const char *fault_hook(void)
{
    extern char **environ;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "KC_FAULT_", 9) == 0 || strncmp(*e, KC_MUTANTS_ENV "=", sizeof KC_MUTANTS_ENV) == 0) return *e;
    return NULL;
}

/* The directory: KC_CACHE_DIR, else "<binary>.cache". 1: off by choice
 * (KC_CACHE_DIR=off, in any case: a new user's OFF made a folder ./OFF;
 * "./off" names a folder of that name); 2: none for this binary
 * (installed), with why; -1 with why. */
static int cache_dir(char *dir, size_t cap, char *why, size_t whycap)
{
    const char *env = getenv("KC_CACHE_DIR");
    if (env && strcasecmp(env, "off") == 0) return 1;
    if (env && *env) {
        if (snprintf(dir, cap, "%s", env) >= (int)cap) return -1;
        return 0;
    }
    char exe[PATH_MAX];
    if (kc_self_exe(exe, sizeof exe) || snprintf(dir, cap, "%s.cache", exe) >= (int)cap) {
        snprintf(why, whycap, "cannot resolve this binary's path (/proc/self/exe)");
        return -1;
    }
    /* an installed binary ($prefix/bin/kcontract) keeps no cache in its bin
     * folder, even for root, who may write there (the cost table neither) */
    const char *slash = strrchr(exe, '/');
    if (slash && slash - exe >= 4 && strncmp(slash - 4, "/bin", 4) == 0) {
        snprintf(why, whycap, "%.700s is installed (in a bin folder); KC_CACHE_DIR=DIR gives it a cache", exe);
        return 2;
    }
    return 0;
}

/* The directory exists (made when missing) and is a directory, not a link to one. */
static int dir_ready(const char *dir, char *why, size_t cap)
{
    struct stat st;
    if (mkdir(dir, 0777) && errno != EEXIST) {
        snprintf(why, cap, "cannot create %.700s: %s", dir, strerror(errno));
        return -1;
    }
    if (lstat(dir, &st) || !S_ISDIR(st.st_mode)) {
        snprintf(why, cap, "%.700s is not a directory (a symbolic link or a file?)", dir);
        return -1;
    }
    return 0;
}

kc_rcache *kc_rcache_open(const kc_opts *o, const kc_rcache_gpu *gpu, FILE *out)
{
    char why[1024] = "", dir[PATH_MAX - 32];
    uint64_t host;
    int d = cache_dir(dir, sizeof dir, why, sizeof why);
    if (d == 1) return NULL;
    /* a hook first: with one set no KC_CACHE_DIR gives the run a cache, so
     * an installed binary's hint (KC_CACHE_DIR=DIR) would mislead */
    const char *hook = fault_hook();
    if (hook) {
        if (!o->no_cache)
            kc_say(out, "results cache: off, a test hook or mutation run is set (%.200s); every item runs\n", hook);
        return NULL;
    }
    if (d == 2) {               /* no cache at all: nothing that --no-cache could refresh */
        if (!o->no_cache) kc_say(out, "results cache: off (%s); every item runs\n", why);
        return NULL;
    }
    if (d < 0 || dir_ready(dir, why, sizeof why) || kc_host_code_digest(&host, why, sizeof why)) {
        if (o->no_cache)    /* it promised to refresh: a pass kept there stays, whatever this run finds */
            kc_say(out, "results cache: not refreshed (%s)\n", why[0] ? why : "KC_CACHE_DIR too long");
        else
            kc_say(out, "results cache: off (%s); every item runs\n", why[0] ? why : "KC_CACHE_DIR too long");
        return NULL;
    }
    kc_rcache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    c->timeout_s = o->timeout_s;
    c->block_size = o->block_size;
    c->refresh = o->no_cache;
    c->nimage = kc_fatbin_count();
    c->image = calloc((size_t)(c->nimage ? c->nimage : 1), sizeof *c->image);
    if (!c->image) {
        free(c);
        return NULL;
    }
    uint64_t h = mix_str(KC_FNV_OFFSET, FORMAT_LINE);
    h = mix_u64(mix_u64(h, (uint64_t)KC_ABI_VERSION), host);
    h = mix_u64(mix_u64(h, o->seed), (uint64_t)o->reference);
    /* A host-only suite runs no GPU code: a run that opened no GPU (it
     * selected host suites alone) and one that did key it alike. */
    const char *name = gpu && gpu->name && *gpu->name ? gpu->name : "none";
    uint64_t g = mix_str(KC_FNV_OFFSET, name);
    if (gpu && strcmp(name, "none") != 0) {
        g = mix_u64(mix_u64(g, (uint64_t)gpu->cc_major), (uint64_t)gpu->cc_minor);
        g = mix_u64(mix_u64(g, (uint64_t)gpu->sm_count), (uint64_t)gpu->driver_version);
    }
    c->gpu = kc_mix64(g);
    h = mix_str(mix_str(mix_str(h, env_or_empty("LD_PRELOAD")), env_or_empty("KC_LIBCUDA")), env_or_empty("KC_LIBDIR"));
    h = mix_u64(h, kc_cuda_env_hash());
    c->global = kc_mix64(h);
    return c;
}

kc_rcache *kc_rcache_open_on(const kc_opts *o, const kc_device *dev, int ndevs, int driver_version, FILE *out)
{
    for (int j = 1; j < ndevs; j++)
        if (strcmp(dev[j].name, dev[0].name) || dev[j].cc_major != dev[0].cc_major ||
            dev[j].cc_minor != dev[0].cc_minor || dev[j].sm_count != dev[0].sm_count) {
            kc_say(out, o->no_cache ? "results cache: not refreshed: the devices are of different models (a kept pass "
                                      "stays, whatever this run finds)\n"
                                    : "results cache: off, the devices are of different models; every item runs\n");
            return NULL;
        }
    kc_rcache_gpu g = { .name = ndevs ? dev[0].name : NULL, .driver_version = driver_version };
    if (ndevs) {
        g.cc_major = dev[0].cc_major;
        g.cc_minor = dev[0].cc_minor;
        g.sm_count = dev[0].sm_count;
    }
    return kc_rcache_open(o, &g, out);
}

int kc_rcache_lookup_all(kc_rcache *c, const kc_item *items, int nitems, const int *sel, int ns, kc_rcache_hits *h)
{
    memset(h, 0, sizeof *h);
    if (!c) return 0;
    if (!(h->by_item = calloc((size_t)(nitems ? nitems : 1), sizeof *h->by_item))) return -1;
    kc_item_result r;
    for (int i = 0; i < ns; i++) {
        if (!kc_rcache_lookup(c, &items[sel[i]], &r)) continue;
        if (!(h->by_item[sel[i]] = malloc(sizeof r))) continue;    /* out of memory: a miss, the item runs */
        *h->by_item[sel[i]] = r;
        h->n++;
    }
    return 0;
}

void kc_rcache_hits_free(kc_rcache_hits *h, int nitems)
{
    for (int i = 0; h->by_item && i < nitems; i++) free(h->by_item[i]);
    free(h->by_item);
    memset(h, 0, sizeof *h);
}

void kc_rcache_close(kc_rcache *c)
{
    if (!c) return;
    free(c->held);              /* verdicts never released: never kept (nor evidence against a kept pass) */
    free(c->keys);
    free(c->image);
    free(c);
}

/* ---- the key ---- */

static uint64_t image_hash(kc_rcache *c, int i)
{
    if (c->image[i]) return c->image[i];
    const kc_fatbin *f = kc_fatbin_at(i);
    uint64_t h = mix_str(mix_str(KC_FNV_OFFSET, f->module), f->control);
    h = kc_hash_block(f->start, (size_t)(f->end - f->start), h);
    c->image[i] = h | 1;
    return c->image[i];
}

/* Every image of module (a sum: the order they registered in does not matter). */
static uint64_t module_hash(kc_rcache *c, const char *module)
{
    uint64_t sum = 0;
    if (!module) return 0;
    for (int i = 0; i < c->nimage; i++)
        if (strcmp(kc_fatbin_at(i)->module, module) == 0) sum += image_hash(c, i);
    return kc_mix64(sum ^ kc_hash_str(module));
}

/* A file's bytes (a missing or unreadable one hashes as such: the item
 * then fails to load it, and its failure is never kept). */
static uint64_t file_hash(const char *path, uint64_t h)
{
    h = mix_str(h, path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return mix_u64(h, (uint64_t)errno);
    static unsigned char buf[1 << 20];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) h = kc_hash_block(buf, (size_t)n, h);
    if (n < 0) h = mix_u64(h, (uint64_t)errno);
    close(fd);
    return h;
}

static uint64_t sanitizer_hash(kc_rcache *c)
{
    if (c->sanitizer) return c->sanitizer;
    char path[PATH_MAX], why[512], real[PATH_MAX];
    uint64_t h = mix_str(KC_FNV_OFFSET, "compute-sanitizer");
    if (kc_sanitizer_find(path, sizeof path, why, sizeof why) == 0) {
        if (realpath(path, real)) snprintf(path, sizeof path, "%s", real);
        h = file_hash(path, h);
    } else {
        h = mix_str(h, "not found");
    }
    h = mix_str(mix_str(h, env_or_empty("KC_SANITIZE_SESSIONS")), env_or_empty("KC_SANITIZE_TIMEOUT_S"));
    h = mix_str(h, env_or_empty(KC_SAN_BATCH_ENV));
    c->sanitizer = kc_mix64(h) | 1;
    return c->sanitizer;
}

static uint64_t item_key(kc_rcache *c, const kc_item *it, int *unearned)
{
    uint64_t h = mix_u64(c->global, (uint64_t)it->kind);
    if (it->kind != KC_KIND_SUITE || (it->suite && it->suite->needs_gpu)) h = mix_u64(h, c->gpu);
    h = mix_str(mix_str(h, it->name), it->record);
    h = mix_str(h, it->control ? it->control->name : NULL);
    const kc_contract *k = it->contract;
    if (k) {
        h = mix_u64(h, kc_contract_hash(k));
        /* --block-size: one launch variant of a contract's cases (a contract
         * that lists none fails under it); a suite runs none, so a run with
         * it keeps the suites' passes of a run without */
        h = mix_u64(h, c->block_size);
        h = mix_u64(h, module_hash(c, k->module));
        h = mix_u64(h, module_hash(c, k->device_reference.module));
        h = mix_u64(h, module_hash(c, "harness"));
        if (k->library) {
            char p[PATH_MAX];
            /* dlopen gives a process the file it first loaded from a path:
             * one replaced since is hashed here but not what the item runs */
            kc_hostlib_path(k->library, NULL, p, sizeof p);
            h = file_hash(p, h);
            *unearned |= kc_hostlib_replaced_since_load(p);
            if (it->control) {
                kc_hostlib_path(k->library, it->control->name, p, sizeof p);
                h = file_hash(p, h);
                *unearned |= kc_hostlib_replaced_since_load(p);
            }
        }
    }
    if (it->suite) {
        /* A GPU suite reaches the harness's own module through its session
         * (kc_suite_gpu); no contract's module (the gates load those, and a
         * suite's context offers them no way to). Kernels a suite compiles
         * itself lie in its host code. */
        h = mix_u64(mix_str(h, it->suite->name), (uint64_t)it->suite->needs_gpu);
        if (it->suite->needs_gpu) h = mix_u64(h, module_hash(c, "harness"));
    }
    if (kc_item_runs_sanitizer(it)) h = mix_u64(h, sanitizer_hash(c));
    return kc_mix64(h);
}

/* The item's key when first asked for, which kc_rcache_lookup does before
 * the item runs: its entry is kept under the inputs it ran with. A library
 * or compute-sanitizer replaced while the item ran (a rebuild) would
 * otherwise be read after it, and its pass kept under the new file's key,
 * reused by the next run, which the new file fails. */
static uint64_t key_before_run(kc_rcache *c, const kc_item *it, int *unearned)
{
    int dummy;
    if (!unearned) unearned = &dummy;
    *unearned = 0;
    for (int i = c->nkeys - 1; i >= 0; i--)
        if (c->keys[i].it == it) return *unearned = c->keys[i].unearned, c->keys[i].key;
    uint64_t key = item_key(c, it, unearned);
    if (c->nkeys == c->capkeys) {
        int cap = c->capkeys ? 2 * c->capkeys : 64;
        struct keyed *k = realloc(c->keys, (size_t)cap * sizeof *k);
        if (!k) return key;     /* out of memory: the key of now, as without the memo */
        c->keys = k;
        c->capkeys = cap;
    }
    c->keys[c->nkeys++] = (struct keyed){ .it = it, .key = key, .unearned = *unearned };
    return key;
}

/* Whether the item ran on library bytes no key names, so that no verdict
 * of it may be kept: a library file replaced since this process loaded it
 * (dlopen keeps giving the old one), or one whose bytes hash otherwise now
 * than before the item ran (a rebuild while it ran: which bytes a --jobs
 * worker or a sanitizer target loaded, at a time this process did not
 * see, is not known). */
static int bytes_unknown(kc_rcache *c, const kc_item *it)
{
    int unearned;
    const uint64_t before = key_before_run(c, it, &unearned);
    if (unearned || !it->contract || !it->contract->library) return unearned;
    int changed = 0;
    return item_key(c, it, &changed) != before || changed;
}

/* ---- entries ---- */

/* The folder of item `name`'s entries, one file per key: 16 hex digits of
 * the name's hash under the cache ("" when it does not fit: opens nothing). */
static void item_dir(const kc_rcache *c, const char *name, char *buf, size_t cap)
{
    if (snprintf(buf, cap, "%s/%016llx", c->dir, (unsigned long long)kc_mix64(kc_hash_str(name))) >= (int)cap)
        buf[0] = 0;
}

/* The entry of item `name` under `key`: <item_dir>/<key, 16 hex digits>. */
static void entry_path(const kc_rcache *c, const char *name, uint64_t key, char *buf, size_t cap)
{
    char d[PATH_MAX];
    item_dir(c, name, d, sizeof d);
    if (!d[0] || snprintf(buf, cap, "%s/%016llx", d, (unsigned long long)key) >= (int)cap) buf[0] = 0;
}

/* Makes item `name`'s folder (a file in its place, an entry of the format
 * before one folder per item, is removed first): 0, or -1 with errno. */
static int item_dir_ready(const kc_rcache *c, const char *name)
{
    char d[PATH_MAX];
    struct stat st;
    item_dir(c, name, d, sizeof d);
    if (!d[0]) return errno = ENAMETOOLONG, -1;
    if (lstat(d, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(d)) return -1;
    return mkdir(d, 0777) && errno != EEXIST ? -1 : 0;
}

/* An entry file's age: its modification time in nanoseconds (entries a
 * run writes come many a second), 0 unknown. */
static long long entry_mtime(const char *path)
{
    struct stat st;
    return lstat(path, &st) ? 0 : (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* Item `name` keeps at most KC_RCACHE_KEYS_PER_ITEM entries: past that, the
 * oldest (by modification time) other than `keep` go. A removal that fails
 * leaves an entry more, which is only space. */
static void prune(const kc_rcache *c, const char *name, const char *keep)
{
    char d[PATH_MAX], paths[KC_RCACHE_KEYS_PER_ITEM + 1][PATH_MAX];
    item_dir(c, name, d, sizeof d);
    DIR *dh = d[0] ? opendir(d) : NULL;
    if (!dh) return;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        if (e->d_name[0] == '.' || strlen(e->d_name) != 16) continue;   /* temporaries start with the entry's name */
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", d, e->d_name) >= (int)sizeof p || strcmp(p, keep) == 0) continue;
        if (n < KC_RCACHE_KEYS_PER_ITEM - 1) {      /* the others `keep` leaves room for */
            snprintf(paths[n++], sizeof paths[0], "%s", p);
            continue;
        }
        /* one more than the others may keep: the oldest of them all goes */
        snprintf(paths[n], sizeof paths[0], "%s", p);
        int old = 0;
        for (int i = 1; i <= n; i++)
            if (entry_mtime(paths[i]) < entry_mtime(paths[old])) old = i;
        unlink(paths[old]);
        if (old != n) snprintf(paths[old], sizeof paths[0], "%s", paths[n]);
    }
    closedir(dh);
}

int kc_rcache_reusable(const kc_item *it, const kc_item_result *r)
{
    int ok = it->kind == KC_KIND_CONTROL ? r->state == KC_RED && r->gate > 0 : r->state == KC_PASS;
    /* a control planted for gate 1 may lose the context by design: its RED stands */
    int lost_ok = !r->context_lost || it->kind == KC_KIND_CONTROL;
    return ok && !r->stale && !r->limit_problems && lost_ok && !kc_result_fails(r) &&
           !strstr(r->msg, "; it also left ");
}

static void evict(kc_rcache *c, const kc_item *it, const kc_item_result *r);

void kc_rcache_store(kc_rcache *c, const kc_item *it, const kc_item_result *r)
{
    if (!c || r->cached) return;
    if (!kc_rcache_reusable(it, r)) {
        evict(c, it, r);
        return;
    }
    if (bytes_unknown(c, it)) return;      /* kept under no key */
    const uint64_t key = key_before_run(c, it, NULL);
    char body[ENTRY_MAX], path[PATH_MAX], tmp[PATH_MAX + 64];
    int n = snprintf(body, sizeof body,
                     FORMAT_LINE "\nitem %s\nkey %016llx\nstate %s\ngate %d\ncases %d\nearned %lld\nbuild %016llx\n"
                     "ms %llu\nmsg %s\n",
                     it->name, (unsigned long long)key, kc_state_name(r->state), r->gate, r->cases,
                     (long long)time(NULL), (unsigned long long)kc_build_id(),
                     (unsigned long long)(r->seconds > 0 ? r->seconds * 1000.0 + 0.999 : 0), r->msg);
    if (n < 0 || n >= (int)sizeof body - 32) return;     /* cannot happen with the fields' sizes */
    n += snprintf(body + n, sizeof body - (size_t)n, "check %016llx\n",
                  (unsigned long long)kc_fnv1a64(body, (size_t)n, KC_FNV_OFFSET));
    entry_path(c, it->name, key, path, sizeof path);
    int fd = path[0] && item_dir_ready(c, it->name) == 0 ? kc_temp_beside(path, tmp, sizeof tmp) : -1;
    int ok = fd >= 0;
    if (ok) {
        ok = write(fd, body, (size_t)n) == n;
        ok &= close(fd) == 0;
        if (ok) ok = rename(tmp, path) == 0;
        if (!ok) unlink(tmp);
    }
    if (ok) prune(c, it->name, path);
    if (!ok && !c->write_failed) {
        c->write_failed = 1;
        kc_say(stderr, "results cache: cannot write %s: %s; the passes of this run are not kept\n", path,
               strerror(errno));
    }
}

void kc_rcache_hold(kc_rcache *c, const kc_item *it, const kc_item_result *r, int owner)
{
    if (!c || r->cached) return;
    if (!kc_rcache_reusable(it, r)) {
        evict(c, it, r);
        return;
    }
    if (c->nheld == c->capheld) {
        int cap = c->capheld ? 2 * c->capheld : 16;
        struct held *h = realloc(c->held, (size_t)cap * sizeof *h);
        if (!h) return;         /* out of memory: not kept, which is always safe */
        c->held = h;
        c->capheld = cap;
    }
    c->held[c->nheld++] = (struct held){ .it = it, .r = *r, .owner = owner };
}

void kc_rcache_release(kc_rcache *c, int owner, kc_rcache_sessions how)
{
    if (!c) return;
    int k = 0;
    for (int i = 0; i < c->nheld; i++) {
        if (c->held[i].owner != owner) {
            c->held[k++] = c->held[i];
            continue;
        }
        if (how == KC_SESSIONS_VOUCHED) kc_rcache_store(c, c->held[i].it, &c->held[i].r);
        else if (how == KC_SESSIONS_DISTRUSTED) evict(c, c->held[i].it, NULL);
    }
    c->nheld = k;
}

/* The value of line `key ` in text, into buf; -1 when missing or too long. */
static int field(const char *text, const char *key, char *buf, size_t cap)
{
    size_t kn = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kn) || p[kn] != ' ') continue;
        const char *v = p + kn + 1, *e = strchr(v, '\n');
        size_t n = e ? (size_t)(e - v) : strlen(v);
        if (n >= cap) return -1;
        memcpy(buf, v, n);
        buf[n] = 0;
        return 0;
    }
    return -1;
}

static int parse_hex(const char *s, uint64_t *v)
{
    char *end;
    if (strlen(s) != 16) return -1;
    errno = 0;
    *v = strtoull(s, &end, 16);
    return errno || *end ? -1 : 0;
}

/* Reads the entry at path into text; 1 missing, 0 read, -1 with why. */
static int read_entry(const char *path, char *text, size_t cap, char *why, size_t whycap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) return 1;    /* ENOTDIR: a file of the format before */
    if (fd < 0) return kc_errf(why, whycap, "cannot open it: %s", strerror(errno));
    size_t len = 0;
    ssize_t r;
    while (len + 1 < cap && (r = read(fd, text + len, cap - 1 - len)) > 0) len += (size_t)r;
    close(fd);
    text[len] = 0;
    if (len + 1 >= cap) return kc_errf(why, whycap, "longer than an entry can be");
    if (strlen(text) != len) return kc_errf(why, whycap, "it holds a NUL byte");
    const char *chk = strstr(text, "\ncheck ");
    uint64_t want;
    char hex[32];
    if (!chk || field(chk + 1, "check", hex, sizeof hex) || parse_hex(hex, &want))
        return kc_errf(why, whycap, "no checksum line");
    const char *end = strchr(chk + 1, '\n');       /* the check line is the last, and ends with its newline */
    if (kc_fnv1a64(text, (size_t)(chk + 1 - text), KC_FNV_OFFSET) != want || !end || end[1] != 0)
        return kc_errf(why, whycap, "its checksum does not match its contents");
    if (strncmp(text, FORMAT_LINE "\n", strlen(FORMAT_LINE) + 1) != 0)
        return kc_errf(why, whycap, "not an entry of this format ('" FORMAT_LINE "')");
    return 0;
}

/* Whether entry text's pass of it took longer than the time limit it runs
 * under in this run (kc_item_time_limit: --timeout, else the contract's
 * timeout_s, else from the run's cost table; an entry that does not say how
 * long it took: 1): a TIMEOUT now. */
static int exceeds_timeout(const kc_rcache *c, const kc_item *it, const char *text)
{
    char v[32];
    uint64_t ms;
    const double limit = kc_item_time_limit(it, c->costs, c->timeout_s);
    return field(text, "ms", v, sizeof v) || kc_parse_u64(v, UINT64_MAX, &ms) || (double)ms > limit * 1000.0;
}

/* The latest verdict on an input decides: the item reached one the cache
 * may not keep (r: a FAIL, a MISSED, a TIMEOUT; NULL: a clean verdict its
 * sessions were found not to vouch for) on the very inputs its entry was
 * kept for (key_before_run), so that entry is removed and the next run runs
 * it. Possible only where the item ran although such an entry was kept:
 * under --no-cache, under a time limit shorter than the pass took, or beside
 * an entry the lookup refused (a forged verdict that is never reused). A
 * library file that changed while the item ran (or since this process
 * loaded it) leaves the bytes it ran unknown: then the entry goes whatever
 * its key. Kept: an entry of other inputs (earned on those), one that does
 * not read back (never reused), and the entry after no verdict on its
 * inputs (SKIP, NOTRUN) or after a TIMEOUT the entry itself foretold (the
 * pass took longer than this run's limit; the lookup ran the item for that).
 * A removal that fails is said on stderr. */
static void evict_path(const kc_item *it, const char *path)
{
    if (unlink(path) && errno != ENOENT)
        kc_say(stderr, "results cache: cannot remove %s (%s): it keeps a pass of %s on the inputs this run did not "
               "pass with, and the next cached run reuses it; remove the file\n", path, strerror(errno), it->name);
}

static void evict(kc_rcache *c, const kc_item *it, const kc_item_result *r)
{
    char path[PATH_MAX], text[ENTRY_MAX + 64], why[256], v[64];
    uint64_t key;
    if (r && (r->state == KC_SKIP || r->state == KC_NOTRUN)) return;
    const uint64_t before = key_before_run(c, it, NULL);
    if (bytes_unknown(c, it)) {         /* which inputs it ran is not known: every entry of the item goes */
        char d[PATH_MAX];
        item_dir(c, it->name, d, sizeof d);
        DIR *dh = d[0] ? opendir(d) : NULL;
        struct dirent *e;
        while (dh && (e = readdir(dh)) != NULL)
            if (e->d_name[0] != '.' && snprintf(path, sizeof path, "%s/%s", d, e->d_name) < (int)sizeof path)
                evict_path(it, path);
        if (dh) closedir(dh);
        return;
    }
    entry_path(c, it->name, before, path, sizeof path);
    if (!path[0] || read_entry(path, text, sizeof text, why, sizeof why) || field(text, "key", v, sizeof v) ||
        parse_hex(v, &key) || key != before)
        return;
    if (r && r->state == KC_TIMEOUT && exceeds_timeout(c, it, text)) return;     /* the TIMEOUT it foretold */
    evict_path(it, path);
}

void kc_rcache_forget(kc_rcache *c, const kc_item *it)
{
    if (c) evict(c, it, NULL);
}

void kc_rcache_forget_beside_failures(kc_rcache *c, const kc_records *rs, const kc_item *items, int n)
{
    for (int i = 0; c && i < rs->n; i++) {
        if (!kc_record_red_beside_failure(rs, &rs->v[i])) continue;
        for (int j = 0; j < n; j++)
            if (strcmp(items[j].name, rs->v[i].name) == 0) {
                evict(c, &items[j], NULL);
                break;
            }
    }
}

void kc_rcache_limits(kc_rcache *c, const kc_costs *costs)
{
    if (c) c->costs = costs;
}

void kc_rcache_item_starts(kc_rcache *c, const kc_item *it)
{
    if (c && c->refresh) evict(c, it, NULL);
}

int kc_rcache_lookup(kc_rcache *c, const kc_item *it, kc_item_result *r)
{
    if (!c) return 0;
    char path[PATH_MAX], text[ENTRY_MAX + 64], why[256], v[2048], msg[2048];
    uint64_t now = key_before_run(c, it, NULL);      /* also with no entry yet: the one its pass is kept under */
    if (c->refresh) return 0;                       /* --no-cache: the item runs, and its verdict refreshes */
    entry_path(c, it->name, now, path, sizeof path);
    if (!path[0]) return 0;
    int rc = read_entry(path, text, sizeof text, why, sizeof why);
    if (rc == 1) return 0;
    uint64_t key, build;
    uint64_t gate, cases, earned;
    int sti = -1;
    if (rc == 0) {
        if (field(text, "item", v, sizeof v) || strcmp(v, it->name)) {
            rc = kc_errf(why, sizeof why, "it is another item's ('%.100s')", v);
        } else if (field(text, "key", v, sizeof v) || parse_hex(v, &key) || field(text, "build", v, sizeof v) ||
                   parse_hex(v, &build) || field(text, "state", v, sizeof v) || (sti = kc_state_parse(v)) < 0 ||
                   field(text, "gate", v, sizeof v) || kc_parse_u64(v, 16, &gate) ||
                   field(text, "cases", v, sizeof v) || kc_parse_u64(v, INT_MAX, &cases) ||
                   field(text, "earned", v, sizeof v) || kc_parse_u64(v, INT64_MAX, &earned) ||
                   field(text, "msg", msg, sizeof msg)) {
            rc = kc_errf(why, sizeof why, "a field is missing or malformed");
        }
    }
    if (rc) {
        kc_say(stderr, "results cache: ignoring %s (%s): %s runs\n", path, why, it->name);
        return 0;
    }
    if (key != now) return 0;                   /* its inputs changed: it runs */
    if (exceeds_timeout(c, it, text)) return 0; /* it would be a TIMEOUT here: it runs */
    memset(r, 0, sizeof *r);
    kc_state st = (kc_state)sti;
    r->state = st;
    r->gate = (int)gate;
    r->cases = (int)cases;
    r->peak_rss_kib = -1;
    r->cached = 1;
    r->cached_at = (long long)earned;
    r->cached_build = build;
    if (!kc_rcache_reusable(it, r)) {           /* a forged or edited entry: a verdict never kept */
        kc_say(stderr, "results cache: ignoring %s (state %s is never reused): %s runs\n", path, kc_state_name(st),
               it->name);
        return 0;
    }
    char when[32];
    kc_result_cached_when(r, when, sizeof when);
    snprintf(r->msg, sizeof r->msg, "%.1900s  [cached: earned %s by build %016llx]", msg, when,
             (unsigned long long)build);
    return 1;
}
