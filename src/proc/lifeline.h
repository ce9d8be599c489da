/* lifeline.h — nothing a run started survives its parent's SIGKILL.
 *
 * The problem. A --jobs parent's children (the work queue's workers, the
 * static shards; and, once serial runs go through a supervised worker, every
 * run's items) die with it: PR_SET_PDEATHSIG (kc_jobs_child_guard). What an
 * item started does not: a helper, a daemon that double-forked or left the
 * process group with setsid(), is reparented to init when its worker dies
 * and lives on for as long as it likes. The supervisor (supervisor.h) and
 * the item's leak check (item_run.c) end such processes, but both live in
 * processes that a SIGKILL of the parent takes away first.
 *
 * The mechanism: a cookie per run and one sentinel per run (Jenkins's
 * ProcessTreeKiller model, with a watcher that outlives the parent).
 *   - The cookie. Every child the supervisor starts (kc_sup_start) gets this
 *     process's token appended to KC_RUN_COOKIE in its environment:
 *     "PID.START.RANDOM" (pid, start time in clock ticks, 64 random bits),
 *     ':'-separated after any outer run's. The environment is inherited by
 *     whatever the child starts, exec'd or only forked, whatever group or
 *     session it moves to; /proc/PID/environ shows it (the environment a
 *     process started with, which a fork copies).
 *   - The sentinel. The first child a process starts with --parent (a run's
 *     worker or shard: kc_sup_start calls kc_lifeline_started) makes that
 *     process a run's parent, and it starts the run's sentinel: this binary
 *     exec'd as "kc-lifeline --kc-lifeline-sentinel SPEC" (a constructor
 *     takes it before the program's others), a child of the parent without
 *     an exit signal (waitpid(-1) never sees it), registered as the
 *     parent's own (kc_proc_own: never taken for an orphan of a worker), in
 *     a process group of its own (a kill of the parent's group spares it),
 *     with no descriptor but a socket from the parent, its cwd /. The parent
 *     writes on the socket each --parent child it starts ("+PID N INO INO":
 *     its process group and its stdout and stderr pipes) and each that is
 *     gone ("-PID"); when it exits normally, it kills and reaps the sentinel
 *     (atexit). The sentinel sleeps in ppoll on the socket; it wakes for
 *     those lines, at the end of file (the parent's end is close-on-exec and
 *     no child inherits it) and when it is reparented (PR_SET_PDEATHSIG).
 *     Then:
 *       - the parent is still its parent a second after the end of file (it
 *         exec'd): it exits.
 *       - it was reparented, so the parent died: SIGKILL, in rounds until
 *         a round finds none (at most ~1 s), to every process that carries
 *         the parent's token in its environment, every member of a live
 *         child's process group and every holder of a live child's stdout
 *         or stderr pipe (the parent made them and kept only its reading
 *         ends: once it is dead, every holder is of the run); then it
 *         exits. The children themselves die at once (PDEATHSIG).
 * Cost: one process per run (not per worker: on a 2-core VM a process
 * start costs ~15 ms of CPU, a sentinel per worker made a --jobs 8 run of
 * short items 10% slower), a short write per child start and end, nothing
 * per item, no periodic wakeup.
 *
 * Why not something else:
 *   - A PID namespace (the kernel kills every process in it when its init
 *     dies: the strongest guarantee) needs CAP_SYS_ADMIN or unprivileged
 *     user namespaces, which Debian/Ubuntu AppArmor policies, Docker's
 *     default seccomp profile and many Slurm sites refuse; and inside one,
 *     every pid the run sees differs from the host's, so NVML's per-process
 *     GPU memory (gpu_state.h, the per-item GPU figures) matches nothing. It
 *     could only be an optional extra, with this as the fallback everywhere
 *     it is refused.
 *   - A cgroup v2 with cgroup.kill needs a delegated, writable cgroup (a
 *     systemd user slice; rarely in containers or Slurm steps), and someone
 *     alive after the parent to write to it: a sentinel again.
 *   - A sentinel per worker (a child of each worker, watching it): as safe,
 *     but a process per worker start, and, a worker's orphan once the
 *     worker ends, one the parent must tell from a leftover.
 *   - The workers' end of a pipe as the death notice: any process an item
 *     forks without exec keeps it open. The parent forks nothing but its
 *     children through posix_spawn, so its end is a reliable one.
 * Limits: a process that clears its environment (env -i, or a privileged
 * exec that makes /proc/PID/environ unreadable) AND leaves its worker's
 * process group AND closes its worker's pipes escapes, as under Jenkins; so
 * does anything another user owns. A child started by hand with --parent
 * (no supervisor) has no sentinel. */
#ifndef KC_LIFELINE_H
#define KC_LIFELINE_H
#include <stddef.h>
#include <sys/types.h>

#define KC_RUN_COOKIE_VAR "KC_RUN_COOKIE"     /* the run's cookie: tokens, ':'-separated, innermost run last */

/* This process's token, "PID.START.RANDOM" (computed once per process). */
const char *kc_lifeline_token(void);
/* The environment for a child this process starts: environ, with this
 * process's token appended to KC_RUN_COOKIE (or KC_RUN_COOKIE=TOKEN added).
 * A malloc'd array of environ's own strings but one, freed by
 * kc_lifeline_env_free; NULL with errno ENOMEM. */
char **kc_lifeline_env(void);
void kc_lifeline_env_free(char **envp);
/* This process started child `pid` with --parent (a run's worker or shard),
 * in a process group of its own, with stdout and stderr on the pipes
 * ino[0..nino): the run's sentinel is started if it is not yet (once per
 * process image), and told. 0; or -1 after writing why into why (the run
 * goes on without it). */
int kc_lifeline_started(pid_t pid, const unsigned long *ino, int nino, char *why, size_t cap);
/* That child is gone (exited, its pipes closed): the sentinel forgets it. */
void kc_lifeline_gone(pid_t pid);
/* The run's sentinel, 0 none started (for tests). */
pid_t kc_lifeline_sentinel(void);
#endif
