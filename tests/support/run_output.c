/* run_output.c — test support: the result lines of a captured run. */
#include "run_output.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
#include <unistd.h>

#include "utf8.h"

#define EACH_LINE(p, text) for (const char *p = (text); p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)

static void copy_line(const char *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*s", (int)strcspn(p, "\n"), p);
}

int kc_out_line(const char *out, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    EACH_LINE(p, out)
        if (strncmp(p, key, kl) == 0) {
            copy_line(p, buf, cap);
            return 0;
        }
    return -1;
}

void kc_out_tally(const char *out, kc_tally *t)
{
    const char *tally = NULL;
    EACH_LINE(p, out) {
        if (strncmp(p, "SUMMARY ", 8) == 0 && tally) break;   /* the TALLY right before the SUMMARY */
        if (strncmp(p, "TALLY ", 6) == 0) tally = p;
    }
    cr_assert(tally, "no TALLY in:\n%s", out);
    char line[4096], why[256];
    copy_line(tally, line, sizeof line);
    cr_assert_eq(kc_tally_parse(line, t, why, sizeof why), 0, "%s: %s", why, line);
}

void kc_out_summary(const char *out, char *buf, size_t cap)
{
    cr_assert_eq(kc_out_line(out, "SUMMARY ", buf, cap), 0, "no SUMMARY in:\n%s", out);
    char *t = strstr(buf, "  (");
    if (t) *t = 0;
}

int kc_out_state_lines(const char *out, const char *name, char *st, size_t cap)
{
    int n = 0;
    size_t nl = strlen(name);
    EACH_LINE(p, out) {
        const char *q = p;
        if (q[0] == '[' && q[1] == 'w') {
            q = strchr(q, ']');
            if (!q || q[1] != ' ') continue;
            q += 2;
        }
        for (int s = 0; s < KC_STATE_COUNT; s++) {
            const char *sn = kc_state_name((kc_state)s);
            size_t sl = strlen(sn);
            if (strncmp(q, sn, sl) != 0 || q[sl] != ' ') continue;
            const char *r = q + sl;
            while (*r == ' ') r++;
            if (strncmp(r, name, nl) == 0 && r[nl] == ' ' && r[nl + 1] == ' ') {
                n++;
                snprintf(st, cap, "%s", sn);
            }
        }
    }
    return n;
}

long kc_out_unclean(const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = kc_utf8_next(s + i, n - i, &cp);
        if ((cp < 0x20 && cp != '\n') || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || (cp == KC_UTF8_BAD && k == 1 && s[i] >= 0x80))
            return (long)i;
        i += k;
    }
    return -1;
}

/* The state word p starts with ("PASS " ...), its length with the spaces
 * after it; 0 when none. */
static size_t state_word(const char *p)
{
    for (int s = 0; s < KC_STATE_COUNT; s++) {
        const char *sn = kc_state_name((kc_state)s);
        size_t sl = strlen(sn);
        if (strncmp(p, sn, sl) == 0 && p[sl] == ' ') {
            while (p[sl] == ' ') sl++;
            return sl;
        }
    }
    return 0;
}

/* Whether the state line p[0..len) (after its state word) is NAME  MESSAGE
 * (SECONDS s)[  rerun: COMMAND]: some "  (<seconds> s)" ends it or comes
 * right before "  rerun: ". */
static int state_line_whole(const char *p, size_t len)
{
    const char *end = p + len;
    for (const char *q = p; (q = strstr(q, "  (")) && q < end; q++) {
        const char *d = q + 3;
        while (d < end && ((*d >= '0' && *d <= '9') || *d == '.')) d++;
        if (d == q + 3 || end - d < 3 || strncmp(d, " s)", 3) != 0) continue;
        d += 3;
        if (d == end || (end - d > 9 && strncmp(d, "  rerun: ", 9) == 0)) return 1;
    }
    return 0;
}

int kc_out_bad_lines(const char *out, char *why, size_t cap)
{
    /* the program's messages start with its own name (progname.h): the real binary's or the fixture's */
    static const char *const top[] = { "kcontract: ", "kcontract-fixture: ", "TALLY ", "SUMMARY ", "    ", NULL };
    static const char *const figures[] = { "peak RSS ", "workers: ", "  worker ", "time in items: ", "input buffers: ",
                                           "slowest items: ", "kcontract: ", "kcontract-fixture: ", NULL };
    int bad = 0, after_summary = 0;
    if (cap) why[0] = 0;
#define BAD(...)                                                                      \
    do {                                                                              \
        if (!bad++ && cap) snprintf(why, cap, __VA_ARGS__);                           \
    } while (0)
    size_t n = strlen(out);
    if (n && out[n - 1] != '\n') BAD("the output does not end with a newline");
    EACH_LINE(p, out) {
        size_t len = strcspn(p, "\n");
        int show = len > 160 ? 160 : (int)len;
        long at = kc_out_unclean(p, len);
        if (at >= 0) BAD("byte 0x%02x at %ld of line '%.*s'", (unsigned char)p[at], at, show, p);
        const char *q = p;
        int worker = p[0] == '[' && p[1] == 'w';
        if (worker) {
            q = strchr(p, ']');
            if (!q || q > p + len || q[1] != ' ') {
                BAD("a worker's line without its '[wK] ' prefix: '%.*s'", show, p);
                continue;
            }
            q += 2;
        }
        size_t sw = state_word(q);
        if (sw) {
            if (!state_line_whole(q + sw, len - (size_t)(q + sw - p)))
                BAD("a state line without its '  (SECONDS s)' end: '%.*s'", show, p);
            continue;
        }
        const char *const *known = after_summary && !worker ? figures : top;
        int ok = 0;
        for (int i = 0; known[i] && !ok; i++)
            ok = strncmp(q, known[i], strlen(known[i])) == 0 && !(worker && known[i][0] != ' ' && known[i][0] != 'k');
        if (!ok) BAD("a line with no known prefix: '%.*s'", show, p);
        if (!worker && strncmp(p, "SUMMARY ", 8) == 0) after_summary = 1;
    }
#undef BAD
    return bad;
}

int kc_out_count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

int kc_out_count_lines(const char *text, const char *prefix)
{
    int n = 0;
    size_t pl = strlen(prefix);
    EACH_LINE(p, text)
        if (strncmp(p, prefix, pl) == 0) n++;
    return n;
}

double kc_out_json_number(const char *report, const char *name, const char *key)
{
    char rec[320], k[64];
    snprintf(rec, sizeof rec, "{\"type\":\"item\",\"name\":\"%s\",", name);
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *l = strstr(report, rec);
    if (!l) return -1;
    const char *eol = strchr(l, '\n'), *v = strstr(l, k);
    return v && (!eol || v < eol) ? atof(v + strlen(k)) : -1;
}

const char *kc_out_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot read %s", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

char *const KC_NO_GPU_ENV[] = { "KC_LIBCUDA=none", NULL };

kc_proc kc_run_fixture_env(char **args, char *const *env_extra, double timeout_s)
{
    char *argv[64] = { (char *)kc_test_fixture_bin() };
    int a = 1;
    for (; args[a - 1] && a < 63; a++) argv[a] = args[a - 1];
    argv[a] = NULL;
    char *env[32];
    int e = 0;
    for (int i = 0; KC_NO_GPU_ENV[i] && e < 31; i++) env[e++] = KC_NO_GPU_ENV[i];
    for (int i = 0; env_extra && env_extra[i] && e < 31; i++) env[e++] = env_extra[i];
    env[e] = NULL;
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, timeout_s, &p), 0, "cannot start %s", argv[0]);
    return p;
}

kc_proc kc_run_fixture(char **args, double timeout_s)
{
    return kc_run_fixture_env(args, NULL, timeout_s);
}

kc_proc kc_run_fake(char **args, char *const *env_extra, double timeout_s)
{
    static char env_cuda[1024];
    const char *lib = getenv("KC_FAKE_CUDA");
    snprintf(env_cuda, sizeof env_cuda, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_cuda.so");
    char *env[16] = { env_cuda };
    int e = 1;
    for (; env_extra && env_extra[e - 1] && e < 15; e++) env[e] = env_extra[e - 1];
    env[e] = NULL;
    char *argv[64] = { (char *)kc_test_fixture_bin() };
    int a = 1;
    for (; args[a - 1] && a < 63; a++) argv[a] = args[a - 1];
    argv[a] = NULL;
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, timeout_s, &p), 0, "cannot start %s", argv[0]);
    return p;
}

const char *kc_out_item_line(const char *out, const char *state, const char *name, char *buf, size_t cap)
{
    char key[256];
    snprintf(key, sizeof key, "%-6s %s  ", state, name);
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *q = p;
        if (*q == '[' && strchr(q, ']') && strchr(q, ']')[1] == ' ') q = strchr(q, ']') + 2;
        if (strncmp(q, key, strlen(key)) != 0) continue;
        const char *e = strchr(q, '\n');
        snprintf(buf, cap, "%.*s", (int)(e ? e - q : (long)strlen(q)), q);
        return buf;
    }
    return NULL;
}

void kc_tmp_path(char *buf, size_t cap, const char *what, const char *tag)
{
    snprintf(buf, cap, "%s/kc-%s-%ld-%s.tsv", kc_test_tmpdir(), what, (long)getpid(), tag);
    unlink(buf);
}

void kc_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

void kc_tmp_dir(char *buf, size_t cap, const char *tag)
{
    snprintf(buf, cap, "%s/kc-%s-%ld-XXXXXX", kc_test_tmpdir(), tag, (long)getpid());
    cr_assert_not_null(mkdtemp(buf), "mkdtemp %s", buf);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void kc_rm_rf(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int kc_dir_entries(const char *dir, char *names, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (cap) names[0] = 0;
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        size_t len = strlen(names);
        if (len < cap) snprintf(names + len, cap - len, "%s%s", n ? " " : "", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

kc_proc kc_run_python3(char *const args[], double timeout_s)
{
    char *argv[18] = { "/usr/bin/env", "python3" };
    int n = 2;
    for (int i = 0; args[i]; i++) {
        cr_assert_lt(n, 17, "kc_run_python3: more than 15 arguments");
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, NULL, timeout_s, &p), 0, "cannot start /usr/bin/env python3");
    if (p.status == 127) {
        kc_proc_free(&p);
        cr_skip_test("python3 not found");
    }
    return p;
}
