/* safe_file.c — temporary and lock files that never follow a symbolic link
 * (safe_file.h). */
#include "safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"

/* 32 bits no other process can predict: getrandom, else the clock mixed
 * with a counter (splitmix64's finalizer). */
static uint32_t unguessable(void)
{
    static uint64_t counter;
    uint32_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t z = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 20) ^ ++counter;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (uint32_t)(z ^ (z >> 31));
}

int kc_temp_beside(const char *path, char *tmp, size_t cap)
{
    for (int attempt = 0; attempt < 64; attempt++) {
        int w = snprintf(tmp, cap, "%s.tmp.%ld.%08x", path, (long)getpid(), unguessable());
        if (w < 0 || (size_t)w >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;   /* EEXIST 64 times: someone is filling the directory with our names */
}

int kc_lock_file_open(const char *path, int cloexec, char *err, size_t cap)
{
    /* O_NONBLOCK: a FIFO planted at the name must not hang the open. */
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | (cloexec ? O_CLOEXEC : 0), 0666);
    if (fd < 0) {
        if (errno == ELOOP)
            return kc_errf(err, cap, "%s is a symbolic link: refusing to follow it; remove it (a lock file is "
                           "kcontract's own, a plain file)", path);
        return kc_errf(err, cap, "cannot open the lock file %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return kc_errf(err, cap, "%s is not a regular file: refusing to use it as a lock file; remove it", path);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}
