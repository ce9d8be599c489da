/* proctree.h — processes looked up in /proc (Linux), for what a child or an
 * item leaves behind:
 *   - the supervisor (supervisor.h), after a child exited: the members of its
 *     process group and the processes still holding one of its pipes;
 *   - the process that runs items (item_run.c), after each item: its own
 *     children, which are every process the item left running, since it
 *     adopts orphaned descendants (PR_SET_CHILD_SUBREAPER, Linux 3.4+);
 *   - the lifeline's sentinel (lifeline.h), after a --jobs parent died: the
 *     processes carrying the run's cookie in their environment.
 * Every lookup is a snapshot: processes come and go while /proc is read, so
 * callers look again after killing. Processes of other users that /proc does
 * not show are not found. The lookups allocate nothing (getdents64 into
 * buffers on the stack).
 *
 * Not every child is something left behind. A process's own (the run's
 * sentinel, a child of the run's parent: kc_proc_own) and, in the process
 * that runs items, those that were there before its first item — forked
 * before main by a library's constructor (LD_PRELOAD), or their orphans —
 * or before the current item are no item's doing: they are never listed by
 * kc_proc_children, waited for, reaped or killed by kc_proc_end_leftovers
 * (nor so by kc_sup_end_orphans), so they never make an item LEAK. Nor is
 * a child an item left ending (every thread in the kernel's exit path):
 * not listed, waited for or killed from then on; only reaped when it ends
 * (kc_proc_end_leftovers, kc_proc_ending_overdue). */
#ifndef KC_PROCTREE_H
#define KC_PROCTREE_H
#include <stddef.h>
#include <sys/types.h>

#define KC_PROC_MAX 64              /* processes named or killed per lookup, at most */
/* How long processes left behind get to end by themselves before they are
 * killed: after an item (kc_proc_end_leftovers), and after a child of the
 * supervisor exited while something still held its pipes or its process
 * group. cargo-nextest's leak timeout (100 ms there, for one test process
 * per test); longer here, as a worker's output may still be in flight. */
#define KC_LEAK_TIMEOUT_MS 500
/* How long a child an item left ending (every thread of it in the
 * kernel's exit path, kc_proc_life_of) may take to end before it is named
 * (kc_proc_ending_overdue). A process that held a CUDA context is ending
 * while the driver tears the context down: measured on H100s, a
 * compute-sanitizer target was still there 500 ms after its control in 7
 * of 31 runs (docs/receipts/2026-12-05-stall-hunt), and was
 * named as left running, its control's RED kept out of the results cache.
 * Such a process runs none of the item's code, and killing it changes
 * nothing, so it is no item's leftover. 5 s is a bound chosen well above
 * what was seen, not measured. */
#define KC_ENDING_GRACE_MS 5000

/* Makes this process the reaper of its orphaned descendants, so a process an
 * item started is this process's child even after its own parent exited.
 * Its first call in a process image also takes the run's start: the children
 * running now, and the time, before which no item's process can have
 * started (what kc_proc_children leaves out). Returns 0, or -1 with errno
 * (the caller goes on: such orphans then go to init and only pipe holders
 * are found). */
int kc_proc_adopt_orphans(void);
/* Before each item (item_run.c): while children that are no item's run
 * (those of the run's start, see above), the children running now are
 * taken as no item's too: what exists before an item is not its doing
 * (e.g. an orphan of such a child, adopted between items). Costs nothing
 * when there are none: one /proc scan per item otherwise. Not while other
 * items run in this process (beside: a worker's items in flight, whose
 * leftovers are children here too, and would so be no item's): what the
 * list holds is kept as it is, and an orphan adopted meanwhile is taken
 * for an item's (blamed, rather than a leftover let go). */
void kc_proc_item_begin(int beside);
/* Child pid is this process's own (the run's sentinel, lifeline.h): never
 * listed, waited for, reaped or killed as an item's or a worker's leftover. */
void kc_proc_own(pid_t pid);

/* How a process's threads stand, from /proc/PID/task/TID/stat (state and
 * flags): RUNNING when one of them runs (neither a zombie nor in the
 * kernel's exit path, PF_EXITING 0x4 of include/linux/sched.h, set by
 * do_exit); so is a process whose main thread ended (its /proc/PID/stat
 * says Z) while another runs on. ENDING when every one has exited or is
 * exiting (e.g. closing the GPU driver's files: a context's teardown), or
 * it is a zombie not yet reaped. GONE when none can be read. */
typedef enum kc_proc_life { KC_PROC_GONE, KC_PROC_RUNNING, KC_PROC_ENDING } kc_proc_life;
/* Whether the thread whose /proc/PID/task/TID/stat text is `stat` runs:
 * 1 runs, 0 a zombie or in the exit path (PF_EXITING in its flags, the
 * ninth field), -1 when it does not parse. */
int kc_proc_task_runs(const char *stat);
/* pid's kc_proc_life; wchan (cap > 0) gets the kernel function a thread
 * that is not a zombie waits in (/proc/PID/task/TID/wchan: "0" or "" when
 * not shown), "" when none. */
kc_proc_life kc_proc_life_of(pid_t pid, char *wchan, size_t cap);

/* The live children of this process (a zombie whose other threads run is
 * live: kc_proc_life_of) that may be an item's
 * (not its own, nor there before the run or the current item): up to max
 * pids into out. Returns how many there are (may exceed max), or -1 when
 * /proc cannot be read. */
int kc_proc_children(pid_t *out, int max);
/* The live processes whose parent is `parent` (any process's children, a
 * zombie whose other threads run included): up to max pids into out; how
 * many (may exceed max), or -1 when /proc cannot be read. */
int kc_proc_children_of(pid_t parent, pid_t *out, int max);
/* The live children that are no item's (its own aside): there before the
 * run's first item, or before the current one. Up to max pids into out;
 * how many, or -1 when /proc cannot be read. */
int kc_proc_predating(pid_t *out, int max);

/* Processes other than this one that are in process group pgid (pgid > 0),
 * or hold an open descriptor on one of the pipes whose inode numbers are
 * ino[0..nino) (as fstat gives them; /proc shows "pipe:[INO]"), and started
 * no later than born_by (kc_proc_boot_ticks; 0: any): what a child that
 * ended at born_by left behind cannot have started after it, so a process
 * that reused its pid or group id since is never taken for one. Zombies
 * hold nothing and are left out, but for one whose main thread ended while
 * another runs on (kc_proc_life_of): its descriptors are read through that
 * thread. Up to max pids into out; returns how many
 * were found (may exceed max), or -1 when /proc cannot be read. */
int kc_proc_find(pid_t pgid, const unsigned long *ino, int nino, unsigned long long born_by, pid_t *out, int max);
/* Processes other than this one whose environment (/proc/PID/environ: the
 * one they were started with, or a forked copy's) holds variable `var`
 * with `token` among its ':'-separated words (lifeline.h's cookie). Zombies
 * are left out (one whose other threads run is read through one of them,
 * as kc_proc_find); so are processes whose environment cannot be read (other
 * users', undumpable ones). Up to max pids into out; how many (may exceed
 * max), or -1 when /proc cannot be read. */
int kc_proc_find_cookie(const char *var, const char *token, pid_t *out, int max);
/* From /proc/PID/stat: state (R, S, Z, ...), parent, process group and start
 * time (kc_proc_boot_ticks). 0, or -1 when it is gone or does not parse. */
int kc_proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp, unsigned long long *start);
/* Now, in the clock ticks since boot that /proc/PID/stat's start times use. */
unsigned long long kc_proc_boot_ticks(void);

/* Calls fn(v, dirfd, ctx) for every entry of directory `path` whose name is
 * a number v (the processes of /proc, the descriptors of /proc/PID/fd),
 * until fn returns nonzero. getdents64 into a stack buffer: no malloc. 0,
 * or -1 when the directory cannot be opened. (proctree.c and
 * proctree_describe.c share it.) */
int kc_proc_each_number(const char *path, int (*fn)(long v, int dirfd, void *ctx), void *ctx);
/* "pid 123 (sleep), pid 456 (sh)" for pids[0..n) (names from /proc/PID/comm,
 * "?" when gone), cut to cap with "..." when it does not fit. One ending
 * (kc_proc_life_of) says so, with its wait channel when /proc shows it:
 * "pid 77 (kcontract: every thread in the kernel's exit path, in
 * os_acquire_rwlock_write)" (the supervisor's leak lines and the worker's
 * notes name such a process alike). */
void kc_proc_describe(const pid_t *pids, int n, char *buf, size_t cap);

/* The live descendants of root (its children, theirs, ...; zombies left
 * out, but those whose other threads run), parents before their
 * children: up to max pids into out. How many
 * were found (may exceed max), or -1 when /proc cannot be read. At most
 * KC_PROC_TABLE processes of the machine are looked at (a snapshot), in a
 * table of proctree_describe.c's: one caller at a time (a run's parent, between
 * polls). */
#define KC_PROC_TABLE 8192
int kc_proc_descendants(pid_t root, pid_t *out, int max);
/* What root's descendants are doing, for a line about an item stopped at its
 * time limit: "pid 12 compute-sanitizer --tool memcheck (S, 58.3 s), pid 15
 * kcontract run --sanitize-target (S, 58.1 s)": each one's program (the
 * base name of its first argument) and next two arguments, its state and
 * how long since it started; "none" when it has none, "unknown (/proc
 * cannot be read)". Cut to cap with "..." when it does not fit. */
void kc_proc_describe_tree(pid_t root, char *buf, size_t cap);

/* After an item, in the process that ran it (which has adopted orphans):
 * waits up to timeout_ms for its children that may be the item's
 * (kc_proc_children) to exit by themselves (reaping them; no wait and no
 * /proc scan when it has no child running at all, the usual case). Those
 * then ending (KC_PROC_ENDING) are no leftover: from then on they are no
 * item's, reaped when they end (by this call or kc_proc_item_begin), and
 * named once if overdue (kc_proc_ending_overdue); but their descendants
 * that run are the item's. A child reads as ending only when two readings
 * 2 ms apart agree and the second lists no new thread; one on the list that
 * runs after all is taken off it, a child like any other again (so a
 * process whose threads replace themselves, which on a loaded machine can
 * race both readings, about 1 in 80 tries, is named by the next item's
 * check, and blamed on that item: late, never not at all). Then sends
 * SIGKILL to every child (and descendant of an ending one) still running,
 * and to its process group when it leads one,
 * and again to any orphan that killing adopts, until none is left (a
 * bounded number of rounds). Returns the number of processes found running
 * at the timeout, 0 when there were none; *what then names them ("pid 123
 * (sleep)"). Never blocks longer than timeout_ms plus about 200 ms. The
 * children in keep[0..nkeep) are not the item's (the sanitizer gate's
 * sessions, sanitize_session.h): neither waited for, reaped nor killed.
 * One caller at a time (it uses kc_proc_descendants' table): a worker's
 * lanes call it from the worker's main thread. */
int kc_proc_end_leftovers(int timeout_ms, const pid_t *keep, int nkeep, char *what, size_t cap);
/* The children items left ending (kc_proc_end_leftovers) still there
 * after_ms or more after they were found so, and not named before: how
 * many, and *what names them ("pid 77 (kcontract: every thread in the
 * kernel's exit path, in os_acquire_rwlock_write)": its wait channel when
 * /proc shows it). Each is named once; none is killed (it would change
 * nothing) and no item is blamed. Those that ended are reaped first. At
 * most KC_PROC_MAX a call; the rest, if any, by the next. */
int kc_proc_ending_overdue(int after_ms, char *what, size_t cap);
/* As a process ends: waits (reaping) until each child items left ending
 * has ended or has been ending after_ms. At most after_ms; no wait when
 * there are none. */
void kc_proc_ending_settle(int after_ms);
/* The absolute path of this process's binary (/proc/self/exe resolved:
 * what a child started as "/proc/self/exe" runs, and where library kernels
 * are looked for beside it) into buf. 0; or -1 when /proc cannot be read or
 * the path does not fit cap (buf then ""). */
int kc_self_exe(char *buf, size_t cap);
#endif
