/* supervisor.h — every child process kcontract starts: the work queue's
 * workers (queue.c) and the static schedule's shards (jobs.c). One place
 * starts them, keeps their state, reaps them, passes SIGINT and SIGTERM on,
 * stops them (a signal, then SIGKILL after a grace) and ends what they leave
 * behind. Modelled on git's run-command (a child with pipes, its owner called
 * back for its output and its end) and on cargo-nextest's leak timeout.
 *
 * A child is started with posix_spawn in a process group of its own (a
 * signal to the group reaches whatever it starts), with default signal
 * dispositions, an empty signal mask and no descriptor of this process but
 * its own: stdin a pipe (KC_SUP_STDIN) or /dev/null, stdout and stderr pipes,
 * and a result pipe on fd 3 (KC_SUP_RESULT); its environment is this
 * process's with this process's token added to the run's cookie
 * (KC_RUN_COOKIE, lifeline.h), which whatever it starts inherits. A child
 * started with --parent (a run's worker or shard) is also told to the run's
 * sentinel (lifeline.h), started with the first one, which ends everything
 * the run started if this process is killed; and forgotten when GONE.
 *
 * Its states:
 *   STARTING  spawned; its owner makes it IDLE once it is ready, or RUNNING;
 *   IDLE, RUNNING  set by the owner (waiting for work / working);
 *   STOPPING  the supervisor signalled its group (kc_sup_stop, or SIGINT /
 *             SIGTERM passed on); SIGKILL follows at the deadline;
 *   EXITED    its exit status came: that, not end of file on its pipes, is its
 *             end. Whatever still holds its pipes or is in its process group
 *             gets KC_LEAK_TIMEOUT_MS (proctree.h) to go; then the group and
 *             every process holding one of its pipes get SIGKILL and
 *             `leak` names them; pipes still open KC_SUP_DRAIN_MS after that
 *             are closed (what they held is lost, and `leak` says so);
 *   GONE      exited, its pipes closed: the owner's gone() is called, once.
 *             Also the state of a slot never started.
 *
 * SIGINT and SIGTERM to this process (a self-pipe, sigpipe.h) are passed on
 * to every live child's group, with SIGKILL after KC_SUP_GRACE_MS; a second
 * one sends SIGKILL at once. So whatever its children do, an interrupted run
 * has every child GONE within KC_SUP_GRACE_MS + KC_LEAK_TIMEOUT_MS +
 * KC_SUP_DRAIN_MS (3 s). One supervisor per process (the self-pipe). */
#ifndef KC_SUPERVISOR_H
#define KC_SUPERVISOR_H
#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#include "linebuf.h"
#include "sigpipe.h"

#define KC_SUP_GRACE_MS 2000        /* a stop's signal to its SIGKILL; also after SIGINT/SIGTERM */
#define KC_SUP_DRAIN_MS 500         /* after killing what held a child's pipes, until they are closed anyway */
#define KC_SUP_RESULT_FD 3          /* the result pipe's descriptor in the child */

/* kc_sup_start flags */
#define KC_SUP_STDIN 1              /* stdin is a pipe the owner writes (else /dev/null) */
#define KC_SUP_RESULT 2             /* a third pipe on fd 3 */

typedef enum kc_child_state {
    KC_CHILD_GONE = 0, KC_CHILD_STARTING, KC_CHILD_IDLE, KC_CHILD_RUNNING, KC_CHILD_STOPPING, KC_CHILD_EXITED
} kc_child_state;

enum { KC_SUP_OUT, KC_SUP_ERR, KC_SUP_RES, KC_SUP_STREAMS };   /* a child's streams */

typedef struct kc_child {
    int slot;                       /* its index in the supervisor (the owner's worker or shard) */
    pid_t pid;                      /* also its process group; 0: never started */
    kc_child_state state;
    int in;                         /* write end of its stdin pipe, -1 none or closed */
    int fd[KC_SUP_STREAMS];         /* read ends; -1 none or closed */
    kc_linebuf lb[KC_SUP_STREAMS];
    double started, exited;         /* monotonic seconds (kc_sup_now): spawned, exit status seen */
    unsigned long long exited_ticks; /* the exit in kc_proc_boot_ticks: what it left started before */
    int wstatus;                    /* its waitpid status, once EXITED */
    int stop_signal;                /* the first signal the supervisor sent it, 0 none */
    int killed;                     /* the supervisor sent its group SIGKILL */
    double kill_at;                 /* SIGKILL to its group then; 0 not armed */
    double leak_at, drain_at;       /* EXITED: the leak timeout's end; then closing its pipes anyway */
    int leaked;                     /* processes it left behind were killed (how many) */
    int run_child;                  /* started with --parent: the run's sentinel knows it (lifeline.h) */
    char leak[512];                 /* which, and what became of its pipes; "" none */
} kc_child;

typedef struct kc_sup kc_sup;

/* The owner's callbacks (ctx is kc_sup_init's). */
typedef struct kc_sup_ops {
    /* One line of stream s of c (KC_SUP_OUT, _ERR or _RES), without its
     * newline and NUL-terminated; `cut` bytes past KC_LINE_MAX were dropped. */
    void (*line)(void *ctx, kc_sup *s, kc_child *c, int stream, const char *line, size_t len, size_t cut);
    /* c is GONE: wstatus, exited, killed, stop_signal and leak say how it
     * ended. The owner may start the slot again from here. */
    void (*gone)(void *ctx, kc_sup *s, kc_child *c);
    /* SIGINT or SIGTERM arrived and was passed on to `signalled` children
     * (again: a repeat, passed on as SIGKILL). May be NULL. */
    void (*interrupted)(void *ctx, kc_sup *s, int signo, int again, int signalled);
} kc_sup_ops;

struct kc_sup {
    kc_child *c;                    /* [n] */
    int n;
    const kc_sup_ops *ops;
    void *ctx;
    kc_sigpipe sp;
    int interrupted;                /* the first SIGINT or SIGTERM, 0 none */
    struct pollfd *pf;              /* [1 + n * KC_SUP_STREAMS] */
    int *who;                       /* pollfd -> slot * KC_SUP_STREAMS + stream */
};

/* Monotonic seconds. */
double kc_sup_now(void);
/* n child slots (GONE), the self-pipe and the signal handlers (SIGINT,
 * SIGTERM, SIGCHLD; SIGPIPE ignored when ignore_sigpipe, for an owner that
 * writes to its children). Returns 0, or -1 with errno. */
int kc_sup_init(kc_sup *s, int n, const kc_sup_ops *ops, void *ctx, int ignore_sigpipe);
/* Kills (SIGKILL to the group) and reaps any child not GONE, closes every
 * pipe and puts the signal dispositions back. */
void kc_sup_free(kc_sup *s);
/* For an owner whose children outlive one task (the sanitizer gate's
 * sessions, sanitize_session.h): kc_sup_pause puts this process's signal
 * dispositions back while the children live on with their pipes (SIGINT and
 * SIGTERM then act on this process as without a supervisor; nothing is
 * reaped); kc_sup_resume installs them again before the next kc_sup_wait,
 * which reaps what ended meanwhile. 0, or -1 with errno. */
void kc_sup_pause(kc_sup *s);
int kc_sup_resume(kc_sup *s, int ignore_sigpipe);
/* Starts slot `slot` (which must be GONE) as the program at path (the
 * owners' is "/proc/self/exe": this binary) with argv (argv[0] as the child
 * sees it) and this process's environment with the cookie; flags KC_SUP_STDIN |
 * KC_SUP_RESULT. STARTING on success; returns 0, or -1 with errno
 * (posix_spawn's: an exec that failed is reported here). Refused (EINTR)
 * once interrupted. */
int kc_sup_start(kc_sup *s, int slot, const char *path, char *const argv[], int flags);
/* The owner's states: STARTING -> IDLE or RUNNING, IDLE <-> RUNNING; any
 * other change is ignored (a stopping or dead child stays so). */
void kc_sup_mark(kc_child *c, kc_child_state st);
/* Sends signo to c's process group and, unless signo is SIGKILL, SIGKILL
 * grace_ms later (an earlier deadline is kept). STOPPING. Nothing for a
 * child that has exited. */
void kc_sup_stop(kc_sup *s, kc_child *c, int signo, int grace_ms);
/* Writes len bytes to c's stdin; 0, or -1 (it is dying, or has no stdin:
 * its exit settles it). */
int kc_sup_write(kc_child *c, const char *buf, size_t len);
/* Closes c's stdin (end of input). */
void kc_sup_close_stdin(kc_child *c);
/* Reads what stream k of c (KC_SUP_OUT, _ERR) holds now, without waiting,
 * and dispatches its whole lines (the owner's line callback), as the next
 * waits would: an owner about to print what c said on another stream (its
 * result pipe) first takes the lines c wrote before it, so they come first
 * in the run's output too. A partial line stays buffered. */
void kc_sup_drain(kc_sup *s, kc_child *c, int k);
/* Children not GONE. */
int kc_sup_live(const kc_sup *s);
/* Swaps the children of slots a and b (each keeps its process, pipes,
 * state and unread lines; only its slot changes): an owner that started a
 * child ahead in a slot of its own hands it to the slot of one that ended.
 * Between waits, or from a callback after its last use of the child it was
 * given: the poll table is rebuilt at each wait, and children are found by
 * pid. */
void kc_sup_swap(kc_sup *s, int a, int b);
/* One round: waits until a child's output, a signal, a supervisor deadline or
 * `until` (kc_sup_now seconds; 0: no owner deadline), then dispatches lines,
 * reaps, fires stops and leak timeouts, and calls gone() for children that
 * became GONE. Returns 0, or -1 when poll fails (errno). */
int kc_sup_wait(kc_sup *s, double until);
/* For an owner that adopts orphans (kc_proc_adopt_orphans), once c is GONE:
 * ends what c left running outside its process group and pipes, which this
 * process adopted (a child's own children in groups of their own: the
 * sanitizer gate's sessions of a worker killed by SIGKILL, which it could not
 * end): timeout_ms to end by themselves, then SIGKILL (kc_proc_end_leftovers).
 * Kept: the other children and the members of their process groups; nothing
 * is done while another child's leak timeout runs (what holds its pipes is
 * the supervisor's to end in its name; that child's end calls this again).
 * Returns how many were running at the timeout (then `what` names them), 0
 * none. */
int kc_sup_end_orphans(kc_sup *s, const kc_child *c, int timeout_ms, char *what, size_t cap);
/* The wstatus of a child whose status another waitpid of this process took
 * (reap found ECHILD): it ended, how is unknown. Not a status waitpid gives
 * (a signal 127 with the core bit), and neither exit 0 nor a clean end for
 * any caller (WIFEXITED is false): a wait that would have polled for it
 * forever ends, and the end counts as abnormal. */
#define KC_SUP_STATUS_TAKEN 0xffff
/* "killed by signal 9 (SIGKILL)", "exited with status 2", or for
 * KC_SUP_STATUS_TAKEN that the status is unknown. */
void kc_sup_describe_status(int wstatus, char *buf, size_t cap);
#endif
