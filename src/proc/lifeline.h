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
 * The mechanism: a sentinel per child and a cookie per run (Jenkins's
 * ProcessTreeKiller model).
 *   - The cookie. Every child the supervisor starts (kc_sup_start) gets this
 *     process's token appended to KC_RUN_COOKIE in its environment:
 *     "PID.START.RANDOM" (pid, start time in clock ticks, 64 random bits),
 *     ':'-separated after any outer run's. The environment is inherited by
 *     whatever the child starts, exec'd or only forked, whatever group or
 *     session it moves to; /proc/PID/environ shows it (the environment a
 *     process started with, which a fork copies).
 *   - The sentinel. Each --parent child, as its first act
 *     (kc_jobs_child_guard -> kc_lifeline_start), makes one tiny process: a
 *     copy of itself (clone without SIGCHLD, so wait(), waitpid(-1) and the
 *     item's leak check never see it) that leaves the child's process group,
 *     closes every descriptor (so the supervisor never finds it holding the
 *     child's pipes), moves to / and sleeps in sigtimedwait. It wakes when its parent,
 *     the worker, dies (PR_SET_PDEATHSIG, and a look at getppid() every 2 s
 *     in case a signal was missed: no other wakeup). Then:
 *       - the run's parent is alive: the worker crashed, was stopped or
 *         ended; the supervisor ends and names what it left, as before. The
 *         sentinel exits at once (it would otherwise be the parent's orphan
 *         to end and name).
 *       - the parent is gone too (not alive, a zombie, or its pid now
 *         another process's: its start time is compared): SIGKILL, in rounds
 *         until a round finds none (at most ~1 s), to every process that
 *         carries the parent's token in its environment, every member of the
 *         worker's process group (when it leads one, as the supervisor's
 *         children do; started before the worker died), and every holder of
 *         the worker's stdout or stderr pipe (only pipes the parent held
 *         when the worker started, and only when the cookie says the parent
 *         is a supervisor, which made them and kept only its reading ends: a
 *         pipe from a shell, a test or make may have holders that are none
 *         of the run's); then it exits.
 *     A killed parent's workers die at once (PDEATHSIG), so their sentinels
 *     sweep within milliseconds of the parent's death; every sentinel of the
 *     run sweeps for the same token, so one suffices. A sentinel overwrites
 *     the cookie in its own environment, so the run's other sentinels do not
 *     kill it mid-sweep.
 * Cost: one clone per worker start and one sleeping process per worker;
 * nothing per item, no polling (one wakeup per 2 s). After a re-exec (a
 * serial run's fresh CUDA context) the process keeps its sentinel
 * (KC_LIFELINE names it).
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
 *   - A lifeline pipe's end of file is not a death notice: any process an
 *     item forks without exec keeps the write end open.
 * Limits: a process that clears its environment (env -i, or a privileged
 * exec that makes /proc/PID/environ unreadable) AND leaves the worker's
 * process group AND closes the worker's pipes escapes, as under Jenkins; so
 * does anything another user owns. A worker that dies while its parent
 * lives is the supervisor's business; if the parent is then killed within
 * the supervisor's leak timeout (0.5 s), what that worker left is found
 * only by the sentinels of the run's other workers (same token). */
#ifndef KC_LIFELINE_H
#define KC_LIFELINE_H
#include <stddef.h>
#include <sys/types.h>

#define KC_RUN_COOKIE_VAR "KC_RUN_COOKIE"     /* the run's cookie: tokens, ':'-separated, innermost run last */
#define KC_LIFELINE_VAR "KC_LIFELINE"         /* this process's sentinel (for a re-exec'd image of it) */
#define KC_LIFELINE_WAKE_S 2                  /* the sentinel's look at getppid(), besides PDEATHSIG */

/* This process's token, "PID.START.RANDOM" (computed once per process). */
const char *kc_lifeline_token(void);
/* The environment for a child this process starts: environ, with this
 * process's token appended to KC_RUN_COOKIE (or KC_RUN_COOKIE=TOKEN added).
 * A malloc'd array of environ's own strings but one, freed by
 * kc_lifeline_env_free; NULL with errno ENOMEM. */
char **kc_lifeline_env(void);
void kc_lifeline_env_free(char **envp);
/* In a child of `parent` (which started it through kc_sup_start, so its
 * environment's last KC_RUN_COOKIE token is the parent's), as its first act:
 * starts the sentinel, or keeps the one an earlier image of this process
 * started (KC_LIFELINE). Returns its pid, or -1 after writing why into why
 * (the run goes on without one). */
pid_t kc_lifeline_start(pid_t parent, char *why, size_t cap);
#endif
