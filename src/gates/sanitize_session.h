/* sanitize_session.h — compute-sanitizer sessions for the sanitizer gate
 * (sanitize.h): one compute-sanitizer process per tool serving many items,
 * so a process running N :sanitize items starts the sanitizer (and a CUDA
 * context under it) once per tool instead of N times. On the H200 that
 * start is what the items cost: 0.5 s a tool alone, about 2 s under a
 * --jobs 8 run, where 92 items took 782 of the run's 1019 worker-seconds
 * (docs/sanitizer-gate.md).
 *
 * A session is `compute-sanitizer --tool T ... <this binary> run
 * --sanitize-target --seed S --device D` with no item: the target serves
 * requests from its stdin, one a line, "<item> all|edge" (edge: the edge
 * shapes only), and answers each between two lines of its own,
 *     kcontract-sanitize-target: begin <item>
 *     ... its launches' lines, and the sanitizer's reports of them ...
 *     kcontract-sanitize-target: end <item>
 * The sanitizer prints a kernel's report before that kernel's launch returns
 * to the target (seen on the H200: memcheck's report precedes the target's
 * own line about the failed launch), so what falls between the two lines is
 * that item's. The gate trusts a window to say "clean", and to say an error
 * only in a session's first window (nothing printed before it was another
 * item's: w->earlier 0); anything else (an error after earlier items, a
 * failed launch, a session that died) is decided by a session of that one
 * item alone (kc_san_once), and a window error that the item's own session
 * does not reproduce fails the item. A session's summary at its end must
 * count no error that no window held (kc_san_pool_free).
 *
 * Every session is a child of a supervisor (supervisor.h) that this process
 * installs only while it waits on a session: between items SIGINT and SIGTERM
 * act on this process as without one, and a session whose stdin closes
 * (this process ended) ends itself. */
#ifndef KC_SANITIZE_SESSION_H
#define KC_SANITIZE_SESSION_H
#include <stddef.h>
#include <sys/types.h>

#define KC_SAN_TARGET_BEGIN "kcontract-sanitize-target: begin "
#define KC_SAN_TARGET_END "kcontract-sanitize-target: end "
#define KC_SAN_OUT_MAX (256 * 1024)     /* output kept per window; the first error comes early */
#define KC_SAN_POOL_TOOLS 4
/* One tool's run, at most (KC_SANITIZE_TIMEOUT_S overrides; a contract's
 * larger timeout_s too): four fit in an unmeasured item's limit
 * (KC_TIMEOUT_NO_COST_S, costs.h). */
#define KC_SAN_TIMEOUT_S 120.0

/* What one request got: the lines of its window (or of a whole one-item
 * session), and how the session stands. */
typedef struct kc_san_window {
    char *out;                  /* [KC_SAN_OUT_MAX]: stdout and stderr lines in arrival order, NUL-terminated */
    size_t len, dropped;        /* dropped: bytes of lines past what is kept (the target's lines and the summary are kept) */
    int ended;                  /* the target's end line for this request came */
    int gone;                   /* the session ended: wstatus, killed, leak say how */
    int wstatus, killed;
    int timed_out;              /* the limit passed first; the session was stopped */
    int earlier;                /* requests its session answered before this one (0: a fresh session; what
                                 * the session it replaced printed last is never in its window) */
    char leak[512];             /* what it left behind (supervisor.h); "" none */
} kc_san_window;

/* The sessions of one process, one slot per tool; none started yet. */
typedef struct kc_san_pool kc_san_pool;

/* A pool with no session. NULL when out of memory. */
kc_san_pool *kc_san_pool_new(void);

/* Sends `request` ("<item> all|edge") to tool's session, starting it as argv
 * (argv[0] the sanitizer, NULL-terminated) when it is not running, and reads
 * until the target's end line for that item, the session's end, or limit_s
 * seconds (then the session is stopped: timed_out). w->out must hold
 * KC_SAN_OUT_MAX bytes. Returns 0; -1 when no session could start (why). A
 * SIGINT or SIGTERM meanwhile ends every session and is raised again. */
int kc_san_ask(kc_san_pool *p, int tool, char *const argv[], const char *request, double limit_s, kc_san_window *w,
               char *why, size_t cap);

/* Starts tool's session as argv when none runs, with no request: the
 * sanitizer's start and the CUDA context its target opens under it (1-2 s
 * under a --jobs run on the H200) overlap what this process does next. What
 * the session prints before its first request opens that request's window.
 * 0 (also when one runs already), or -1 when it could not start (why). */
int kc_san_warm(kc_san_pool *p, int tool, char *const argv[], char *why, size_t cap);

/* The sanitizer's variables, checked strictly before a run (main.c), as
 * KC_CUDA_SCHED is: KC_SANITIZE_SESSIONS and KC_SANITIZE_BATCH are 0 or 1,
 * KC_SANITIZE_TIMEOUT_S seconds above 0 up to KC_SAN_TIMEOUT_MAX_S; each
 * empty is unset. 0, or -1 with why naming the first bad one, its value and
 * what it expects. */
int kc_san_env_check(char *why, size_t cap);
#define KC_SAN_TIMEOUT_MAX_S 1e7

/* 0 when KC_SANITIZE_SESSIONS=0: every item runs alone under each tool, and
 * no process keeps sessions; else 1 (unset, empty or 1). */
int kc_san_sessions_on(void);

/* 0 when sessions are off (kc_san_sessions_on) or KC_SANITIZE_BATCH=0:
 * every :sanitize item runs racecheck in a request of its own
 * (kc_sanitize_batch, sanitize_batch.h); else 1. */
#define KC_SAN_BATCH_ENV "KC_SANITIZE_BATCH"
int kc_san_batches_on(void);

/* $KC_SANITIZE_TIMEOUT_S: a tool's time limit in seconds (sanitize.h), and
 * how long kc_san_pool_free waits for all its sessions to end; 0 when unset
 * or empty (then KC_SAN_TIMEOUT_S), or not what kc_san_env_check takes (a
 * run refuses that before anything runs). */
double kc_san_timeout_env_s(void);

/* Ends tool's session: end of input, then everything it still prints is
 * appended to w (NULL: dropped) until it exits (at most limit_s seconds, then
 * it is killed). When it ended already, what it printed after its last
 * window is appended to w; nothing when none ran. */
void kc_san_end(kc_san_pool *p, int tool, double limit_s, kc_san_window *w);

/* One item alone: a session started as argv, sent `request`, its input
 * closed, read to its end (at most limit_s seconds). What a session of many
 * items cannot decide, and every item of a process without a pool. 0, or -1
 * when it could not start (why). */
int kc_san_once(char *const argv[], const char *request, double limit_s, kc_san_window *w, char *why, size_t cap);

/* At most this many spares wait in one pool (kc_san_pool_keep_spare): a
 * serial run starts the sessions of the controls planted for the sanitizer
 * that come within its next items (kc_sanitize_ahead), and four back to back
 * is what the bundled library has (scan's). Each is a CUDA context and up to
 * 1 GiB of host memory (racecheck) while it waits. */
#define KC_SAN_SPARES_MAX 4

/* At most this many decided controls' killed pools wait to be reaped beside
 * one pool (kc_san_pool_let_end); one more reaps the oldest. */
#define KC_SAN_ENDING_MAX 4

/* At most this many sessions run for one pool: its own, its spares' and
 * those ending. */
#define KC_SAN_POOL_PIDS ((1 + KC_SAN_SPARES_MAX + KC_SAN_ENDING_MAX) * KC_SAN_POOL_TOOLS)

/* The pids of its running sessions, its spares' and those ending, into
 * out[KC_SAN_POOL_PIDS]: the children an item's leftover check leaves to the
 * pool (kc_proc_end_leftovers). Returns how many (0 for NULL). */
int kc_san_pool_pids(const kc_san_pool *p, pid_t *out);

/* A spare: a pool whose sessions were started ahead (kc_san_warm), none
 * asked yet, for an item that takes sessions of its own (a control planted
 * for the sanitizer, sanitize.c). p keeps its spares in line, the first kept
 * the first taken (kc_san_pool_take_spare), counts their sessions among its
 * pids, and frees them with itself. A spare given while p keeps
 * KC_SAN_SPARES_MAX already, or one that keeps spares itself, is freed. */
void kc_san_pool_keep_spare(kc_san_pool *p, kc_san_pool *spare);
/* p's first spare, now the caller's (kc_san_pool_free); NULL when it has none. */
kc_san_pool *kc_san_pool_take_spare(kc_san_pool *p);
/* How many spares p keeps (0 for NULL). */
int kc_san_pool_spares(const kc_san_pool *p);

/* `done`'s sessions are killed (SIGKILL to each one's process group) and
 * not waited for: p keeps `done` among its pids (the leftover check leaves
 * them be) and reaps them when it is freed itself, or when
 * KC_SAN_ENDING_MAX are ending already, the oldest first; nothing they
 * printed after their last window is read. For the pool of a control
 * already RED (sanitize.c): its sessions served that control alone, so
 * their summaries decide nothing (kc_san_pool_free's check is for clean
 * verdicts), and waiting for their end, each target's CUDA context torn
 * down under its tool, was the control's. NULL p, or a `done` that keeps
 * spares or ending pools itself: freed at once (kc_san_pool_free). NULL
 * `done`: nothing. */
void kc_san_pool_let_end(kc_san_pool *p, kc_san_pool *done);

/* Marks the pool's clean verdicts untrusted (the first why is kept, and
 * kc_san_pool_free returns it): a session counted errors that belong to no
 * item it served, seen before its end (NULL p: nothing). */
void kc_san_pool_distrust(kc_san_pool *p, const char *why);

/* Room for a pool's why (kc_san_pool_free, kc_san_pool_distrust): a
 * distrust line names up to a batch's items and a report before its verdict
 * and remedy, which a shorter buffer cut off. */
#define KC_SAN_WHY_MAX 1700
/* Ends every session, its spare's first, and frees the pool (NULL: nothing):
 * all within one time limit (kc_san_timeout_env_s); one that served no
 * request ran no item's kernel and is stopped at once (SIGKILL), its output
 * unread; the killed pools beside it (kc_san_pool_let_end) are reaped,
 * their output unread. Returns 0; -1 when a session's summary (also that of one that
 * ended before) counted errors that no window held (why names the tool and
 * the count), or kc_san_pool_distrust was called (its why): the items it
 * called clean are then not to be trusted. */
int kc_san_pool_free(kc_san_pool *p, char *why, size_t cap);
#endif
