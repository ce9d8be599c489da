/* sha256.c — owns SHA-256 through libcrypto (sha256.h): the library and its
 * six EVP functions, resolved once; a digest over bytes or a file. */
#include "sha256.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

/* OpenSSL's EVP interface (openssl/evp.h, 1.1 and 3): opaque contexts. */
typedef struct kc_evp_ctx kc_evp_ctx;
typedef struct kc_evp_md kc_evp_md;
static struct {
    kc_evp_ctx *(*ctx_new)(void);
    void (*ctx_free)(kc_evp_ctx *);
    const kc_evp_md *(*sha256)(void);
    int (*init)(kc_evp_ctx *, const kc_evp_md *, void *engine);
    int (*update)(kc_evp_ctx *, const void *, size_t);
    int (*final)(kc_evp_ctx *, unsigned char *, unsigned int *);
    int ok;
} evp;
static pthread_once_t evp_once = PTHREAD_ONCE_INIT;

static void evp_load(void)
{
    static const char *const names[] = { "libcrypto.so.3", "libcrypto.so.1.1" };
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof names / sizeof names[0]; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    *(void **)&evp.ctx_new = dlsym(h, "EVP_MD_CTX_new");
    *(void **)&evp.ctx_free = dlsym(h, "EVP_MD_CTX_free");
    *(void **)&evp.sha256 = dlsym(h, "EVP_sha256");
    *(void **)&evp.init = dlsym(h, "EVP_DigestInit_ex");
    *(void **)&evp.update = dlsym(h, "EVP_DigestUpdate");
    *(void **)&evp.final = dlsym(h, "EVP_DigestFinal_ex");
    evp.ok = evp.ctx_new && evp.ctx_free && evp.sha256 && evp.init && evp.update && evp.final;
}

/* A context started on SHA-256, or NULL with errno set. */
static kc_evp_ctx *start(void)
{
    pthread_once(&evp_once, evp_load);
    if (!evp.ok) {
        errno = ENOSYS;
        return NULL;
    }
    kc_evp_ctx *c = evp.ctx_new();
    if (c && evp.init(c, evp.sha256(), NULL) == 1) return c;
    if (c) evp.ctx_free(c);
    errno = EIO;
    return NULL;
}

static int finish(kc_evp_ctx *c, int ok, unsigned char out[32])
{
    unsigned int n = 0;
    ok = ok && evp.final(c, out, &n) == 1 && n == 32;
    evp.ctx_free(c);
    if (!ok) errno = EIO;
    return ok ? 0 : -1;
}

int kc_sha256_bytes(const void *p, size_t n, unsigned char out[32])
{
    kc_evp_ctx *c = start();
    return c ? finish(c, evp.update(c, p, n) == 1, out) : -1;
}

int kc_sha256_fd(int fd, unsigned char out[32])
{
    kc_evp_ctx *c = start();
    if (!c) return -1;
    unsigned char buf[1 << 16];
    int ok = 1;
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            evp.ctx_free(c);
            errno = e;
            return -1;
        }
        if (got == 0) break;
        ok = ok && evp.update(c, buf, (size_t)got) == 1;
    }
    return finish(c, ok, out);
}

void kc_sha256_hex(const unsigned char d[32], char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = 0;
}
