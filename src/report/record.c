/* record.c — the run's list of item records (record.h), and its hand-over
 * across the serial runner's re-exec. */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

int kc_records_add(kc_records *rs, const kc_record *r)
{
    if (rs->n == rs->cap) {
        int nc = rs->cap ? rs->cap * 2 : 64;
        kc_record *nv = realloc(rs->v, (size_t)nc * sizeof *nv);
        if (!nv) return -1;
        rs->v = nv;
        rs->cap = nc;
    }
    rs->v[rs->n++] = *r;
    return 0;
}

void kc_records_free(kc_records *rs)
{
    free(rs->v);
    rs->v = NULL;
    rs->n = rs->cap = 0;
}

/* The file: a header, then the kc_record structs as they are (the same
 * binary reads them back after the exec). */
#define KC_RECORDS_MAGIC 0x6b63726563733031ull   /* "kcrecs01" */
typedef struct records_header { unsigned long long magic, record_size, n; } records_header;

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w <= 0) return -1;
        p += w, len -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n <= 0) return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

int kc_records_save_fd(const kc_records *rs)
{
    /* An anonymous file in memory (Linux 3.17+): no directory needs to be
     * writable (a read-only container root, a stale TMPDIR); not
     * close-on-exec, the fresh process reads it. Else a file in TMPDIR. */
    int fd = memfd_create("kcontract-records", 0);
    if (fd < 0) {
        const char *dir = getenv("TMPDIR");
        char path[4096];
        snprintf(path, sizeof path, "%s/kcontract-records.XXXXXX", dir && *dir ? dir : "/tmp");
        fd = mkstemp(path);
        if (fd < 0) return -1;
        unlink(path);
    }
    records_header h = { KC_RECORDS_MAGIC, sizeof(kc_record), (unsigned long long)rs->n };
    if (write_all(fd, &h, sizeof h) || write_all(fd, rs->v, (size_t)rs->n * sizeof *rs->v) ||
        lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int kc_records_load_fd(int fd, kc_records *rs, char *why, size_t cap)
{
    records_header h;
    kc_record r;
    int rc = -1;
    if (read_all(fd, &h, sizeof h) || h.magic != KC_RECORDS_MAGIC || h.record_size != sizeof r) {
        snprintf(why, cap, "descriptor %d does not hold this binary's records", fd);
        goto out;
    }
    for (unsigned long long i = 0; i < h.n; i++) {
        if (read_all(fd, &r, sizeof r)) {
            snprintf(why, cap, "descriptor %d: record %llu of %llu is cut short", fd, i + 1, h.n);
            goto out;
        }
        if (kc_records_add(rs, &r)) {
            snprintf(why, cap, "out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    close(fd);
    return rc;
}

/* The kernel record control r is planted in, or NULL. */
static const kc_record *kernel_of(const kc_records *rs, const kc_record *r)
{
    const char *c = strstr(r->name, ":control.");
    if (!c) return NULL;
    const size_t n = (size_t)(c - r->name);
    for (int i = 0; i < rs->n; i++)
        if (strncmp(rs->v[i].name, r->name, n) == 0 && rs->v[i].name[n] == 0) return &rs->v[i];
    return NULL;
}

int kc_record_red_beside_failure(const kc_records *rs, const kc_record *r)
{
    const kc_record *k = r->res.state == KC_RED ? kernel_of(rs, r) : NULL;
    return k && kc_result_fails(&k->res);
}
