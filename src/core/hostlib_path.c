/* hostlib_path.c — where the shared libraries of library kernels are
 * looked for (hostlib_path.h). */
#include "hostlib_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctree.h"
#include "seed.h"
#include "sha256.h"

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

/* Reads the .so.source file path (hostlib_path.h: its one line) into
 * digest (16 hex digits and a NUL) and sha (the 32 bytes its 64 hex digits
 * spell): 0 when it holds exactly those, one space between them, and a
 * newline or nothing after; else -1 (missing, malformed, or of the format
 * before the bytes, the digest alone). */
static int read_record(const char *path, char digest[17], unsigned char sha[32])
{
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    char buf[KC_HOSTLIB_RECORD_LEN + 2];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n == KC_HOSTLIB_RECORD_LEN + 1 && buf[KC_HOSTLIB_RECORD_LEN] == '\n') n = KC_HOSTLIB_RECORD_LEN;
    if (n != KC_HOSTLIB_RECORD_LEN || buf[16] != ' ') return -1;
    int nib[KC_HOSTLIB_RECORD_LEN];
    for (int i = 0; i < KC_HOSTLIB_RECORD_LEN; i++) {
        if (i == 16) continue;
        char c = buf[i];
        if (c >= '0' && c <= '9') nib[i] = c - '0';
        else if (c >= 'a' && c <= 'f') nib[i] = c - 'a' + 10;
        else return -1;
    }
    memcpy(digest, buf, 16);
    digest[16] = 0;
    for (int i = 0; i < 32; i++) sha[i] = (unsigned char)(nib[17 + 2 * i] << 4 | nib[18 + 2 * i]);
    return 0;
}

kc_hostlib_src kc_hostlib_source(const char *library, const char *control, uint64_t *hash)
{
    char path[4200], side[4300], digest[17];
    kc_hostlib_path(library, control, path, sizeof path);
    snprintf(side, sizeof side, "%s.source", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *hash = kc_mix64(kc_hash_str("kc_hostlib_source: absent"));
        return KC_HOSTLIB_SRC_ABSENT;
    }
    /* One read of the .so: its sha256 checks the record, else stands for it. */
    unsigned char sha[32], want[32];
    int rc = kc_sha256_fd(fd, sha), e = errno;
    close(fd);
    if (rc == 0 && read_record(side, digest, want) == 0 && memcmp(sha, want, sizeof sha) == 0) {
        *hash = kc_mix64(kc_fnv1a64(digest, 16, kc_hash_str("kc_hostlib_source: digest")));
        return KC_HOSTLIB_SRC_DIGEST;
    }
    uint64_t h = kc_fnv1a64(sha, sizeof sha, kc_hash_str("kc_hostlib_source: bytes"));
    if (rc != 0 && e == ENOSYS) {       /* no libcrypto (sha256.h): the bytes by our own hash, no record checked */
        h = kc_hash_str("kc_hostlib_source: bytes without libcrypto");
        fd = open(path, O_RDONLY | O_CLOEXEC);
        unsigned char buf[1 << 16];
        ssize_t got;
        while (fd >= 0 && ((got = read(fd, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)))
            if (got > 0) h = kc_fnv1a64(buf, (size_t)got, h);
        if (fd < 0 || got < 0) h = kc_fnv1a64(&e, sizeof e, h);
        if (fd >= 0) close(fd);
    } else if (rc != 0)
        h = kc_fnv1a64(&e, sizeof e, h);    /* unreadable: no bytes to count */
    *hash = kc_mix64(h);
    return KC_HOSTLIB_SRC_BYTES;
}
