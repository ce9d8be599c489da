/* child_run.h — one command run to its end under the supervisor
 * (supervisor.h): make for the mutants' builds, this binary's `run` for
 * their runs (mutate), a known finding's faulting case run alone (gates).
 * Its stdout and stderr lines go to a callback. */
#ifndef KC_CHILD_RUN_H
#define KC_CHILD_RUN_H
#include <stddef.h>

/* One line of the child's stdout (err 0) or stderr (err 1), without newline. */
typedef void (*kc_child_line_fn)(void *ctx, int err, const char *line, size_t len);

/* Runs path with argv (NULL-terminated) and this process's environment,
 * waits for its end; lines to fn. Returns its waitpid status (>= 0), or -1
 * with err (it could not start, or the wait failed). Interrupted (SIGINT,
 * SIGTERM): the child is stopped and *interrupted set to the signal's
 * number (0: not interrupted). */
int kc_child_run(const char *path, char *const argv[], kc_child_line_fn fn, void *ctx, int *interrupted, char *err,
                 size_t cap);
#endif
