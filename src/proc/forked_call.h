/* forked_call.h — runs a function in a forked child and takes its answer
 * back on a pipe: for work that loads code which may end the process it runs
 * in (a CUDA driver library whose constructor calls exit or _exit), so that
 * such an end ends the child, not the run (issue 21). No exec: the child is
 * a copy of this process, which must not yet hold threads or a CUDA context. */
#ifndef KC_FORKED_CALL_H
#define KC_FORKED_CALL_H
#include <stddef.h>

/* Forks; the child runs *rc = fn(ctx, out), writes rc and out[0..size) to
 * the parent and _exits. Returns 0 with *rc and out filled; -1 when the child
 * ended without answering, with its waitpid status in *wstatus; 1 when no
 * child could be made (then fn ran here, in this process, as a fallback).
 * The child dies with this process (PR_SET_PDEATHSIG, SIGKILL): one that
 * hangs never outlives the run that waited for it. */
int kc_forked_call(int (*fn)(void *ctx, void *out), void *ctx, void *out, size_t size, int *rc, int *wstatus);
#endif
