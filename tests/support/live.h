/* live.h — test support: a kcontract process the test keeps running while it
 * reads its output and sends it signals (the --jobs signal tests). */
#ifndef KC_TEST_LIVE_H
#define KC_TEST_LIVE_H
#include <stddef.h>
#include <sys/types.h>

typedef struct kc_live {
    pid_t pid;
    int fd;                 /* its stdout and stderr */
    char out[1 << 16];
    size_t len;
} kc_live;

/* Starts `bin args...` (args NULL-ended) with KC_LIBCUDA pointing nowhere, its
 * output on l->fd; it dies with the test process (PR_SET_PDEATHSIG). */
void kc_live_start(kc_live *l, const char *bin, char **args);
/* The same with "K=V" entries env[] (NULL-ended; NULL none) put after it,
 * which may set KC_LIBCUDA. */
void kc_live_start_env(kc_live *l, const char *bin, char **args, char *const *env);
/* Reads until pred(l) holds, the stream ends, or secs pass; 0 when it holds. */
int kc_live_read_until(kc_live *l, int (*pred)(const kc_live *), double secs);
/* pid exists and a thread of it runs (kc_proc_life_of: not a zombie, which
 * an orphan is while it waits for init, unless its other threads run on). */
int kc_alive(pid_t pid);
/* waitpid; the exit status, or 128 + the signal. */
int kc_wait_status(pid_t pid);
/* The first n "pid P" numbers the hang fixtures printed; returns how many. */
int kc_live_pids(const kc_live *l, pid_t *pids, int n);
#endif
