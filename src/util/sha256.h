/* sha256.h — SHA-256 of bytes and of a file's bytes, as sha256sum prints
 * it, by OpenSSL's libcrypto (libcrypto.so.3, else libcrypto.so.1.1: its
 * EVP digest functions, whose ABI both keep), loaded with dlopen at first
 * use as libcuda and NVML are, so that building needs no headers of it:
 * what a build rule records of a file with the shell's sha256sum (or
 * CMake's file(SHA256)) is checked here with a well-kept implementation,
 * not one of our own. Used by the build identity to check that a library
 * kernel's .so.source was written for the .so beside it (hostlib_path.h).
 * Without libcrypto every call fails with errno ENOSYS; the caller then
 * counts the file by other means. */
#ifndef KC_SHA256_H
#define KC_SHA256_H
#include <stddef.h>

/* The digest of p[0..n) into out: 0, or -1 with errno ENOSYS (no
 * libcrypto) or EIO (it failed). */
int kc_sha256_bytes(const void *p, size_t n, unsigned char out[32]);
/* The digest of everything read from fd to its end into out: 0, or -1 with
 * errno (ENOSYS no libcrypto; a read's; EIO libcrypto failed). */
int kc_sha256_fd(int fd, unsigned char out[32]);
/* d as 64 lowercase hex digits and a NUL, as sha256sum prints it. */
void kc_sha256_hex(const unsigned char d[32], char hex[65]);
#endif
