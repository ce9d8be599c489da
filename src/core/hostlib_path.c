/* hostlib_path.c — where the shared libraries of library kernels are
 * looked for (hostlib_path.h). */
#include "hostlib_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proctree.h"
#include "seed.h"

/* Directory of the running binary into buf ("" when /proc is unreadable). */
static void exe_dir(char *buf, size_t cap)
{
    if (kc_self_exe(buf, cap)) return;
    char *slash = strrchr(buf, '/');
    if (slash) *slash = 0;
}

int kc_hostlib_dirs(char dirs[][4096], int max)
{
    int n = 0;
    const char *env = getenv("KC_LIBDIR");
    if (env && *env) {   /* a ':'-separated list, the only place looked in when set */
        for (const char *p = env; *p && n < max;) {
            size_t len = strcspn(p, ":");
            if (len) snprintf(dirs[n++], 4096, "%.*s", (int)len, p);
            p += len + (p[len] == ':');
        }
        return n;
    }
    char exe[4096];
    exe_dir(exe, sizeof exe);
    if (!*exe) return n;
    if (n < max) snprintf(dirs[n++], 4096, "%.4000s/lib", exe);
    if (n < max) snprintf(dirs[n++], 4096, "%.4000s/../lib/kcontract", exe);
    return n;
}

void kc_hostlib_name(const char *library, const char *control, char *buf, size_t cap)
{
    snprintf(buf, cap, "lib%s%s%s.so", library, control ? "@" : "", control ? control : "");
}

void kc_hostlib_path(const char *library, const char *control, char *buf, size_t cap)
{
    char dirs[KC_HOSTLIB_MAX_DIRS][4096], name[600];
    int n = kc_hostlib_dirs(dirs, KC_HOSTLIB_MAX_DIRS);
    if (n == 0) snprintf(dirs[n++], sizeof dirs[0], "lib");
    kc_hostlib_name(library, control, name, sizeof name);
    for (int i = 0; i < n; i++) {
        snprintf(buf, cap, "%s/%s", dirs[i], name);
        if (access(buf, R_OK) == 0) return;
    }
    snprintf(buf, cap, "%s/%s", dirs[0], name);
}

/* Reads the digest file path into digest (16 hex digits and a NUL):
 * 0 when it holds exactly those and a newline (or nothing after them). */
static int read_digest(const char *path, char digest[17])
{
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    char buf[32];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n == 17 && buf[16] == '\n') n = 16;
    if (n != 16) return -1;
    for (int i = 0; i < 16; i++)
        if (!((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f'))) return -1;
    memcpy(digest, buf, 16);
    digest[16] = 0;
    return 0;
}

/* Whether a was modified before b (the digest written before its library
 * was rebuilt: stale). */
static int older(const struct stat *a, const struct stat *b)
{
    if (a->st_mtim.tv_sec != b->st_mtim.tv_sec) return a->st_mtim.tv_sec < b->st_mtim.tv_sec;
    return a->st_mtim.tv_nsec < b->st_mtim.tv_nsec;
}

kc_hostlib_src kc_hostlib_source(const char *library, const char *control, uint64_t *hash)
{
    char path[4200], side[4300], digest[17];
    kc_hostlib_path(library, control, path, sizeof path);
    snprintf(side, sizeof side, "%s.source", path);
    struct stat so, src;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &so) != 0) {
        if (fd >= 0) close(fd);
        *hash = kc_mix64(kc_hash_str("kc_hostlib_source: absent"));
        return KC_HOSTLIB_SRC_ABSENT;
    }
    if (stat(side, &src) == 0 && !older(&src, &so) && read_digest(side, digest) == 0) {
        close(fd);
        *hash = kc_mix64(kc_fnv1a64(digest, 16, kc_hash_str("kc_hostlib_source: digest")));
        return KC_HOSTLIB_SRC_DIGEST;
    }
    uint64_t h = kc_hash_str("kc_hostlib_source: bytes");
    unsigned char buf[16384];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) h = kc_hash_block(buf, (size_t)n, h);
    if (n < 0) {
        int e = errno;
        h = kc_fnv1a64(&e, sizeof e, h);
    }
    close(fd);
    *hash = kc_mix64(h);
    return KC_HOSTLIB_SRC_BYTES;
}
