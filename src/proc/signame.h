/* signame.h — signal names for the lines that say how a process ended
 * ("killed by signal 11 (SIGSEGV)", "interrupted by SIGINT"): the
 * supervisor's, the work queue's, the static shards' and the merge's. */
#ifndef KC_SIGNAME_H
#define KC_SIGNAME_H
#include <stddef.h>

/* "SIGSEGV", "SIGTERM", ... for the signals a run meets; else "signal N",
 * written into buf (cap bytes) and returned. Never NULL. */
const char *kc_signal_name(int signo, char *buf, size_t cap);
#endif
