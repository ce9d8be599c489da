/* sha256.h — SHA-256 (FIPS 180-4) of bytes and of a file's bytes, as
 * sha256sum prints it: what a build rule records of a file with the shell's
 * sha256sum (or CMake's file(SHA256)) can be checked here without a
 * library. Used by the build identity to check that a library kernel's
 * .so.source was written for the .so beside it (hostlib_path.h). */
#ifndef KC_SHA256_H
#define KC_SHA256_H
#include <stddef.h>
#include <stdint.h>

typedef struct kc_sha256 {
    uint32_t h[8];
    uint64_t len;              /* bytes so far */
    unsigned char buf[64];     /* the partial block */
    size_t nbuf;
} kc_sha256;

void kc_sha256_init(kc_sha256 *s);
void kc_sha256_update(kc_sha256 *s, const void *data, size_t n);
/* The digest into out; s is spent (init it again to reuse it). */
void kc_sha256_final(kc_sha256 *s, unsigned char out[32]);
/* The digest of everything read from fd to its end into out: 0, or -1 with
 * errno when a read fails (out is then the digest of what was read). */
int kc_sha256_fd(int fd, unsigned char out[32]);
/* d as 64 lowercase hex digits and a NUL, as sha256sum prints it. */
void kc_sha256_hex(const unsigned char d[32], char hex[65]);
#endif
