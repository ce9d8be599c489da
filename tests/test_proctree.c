/* test_proctree.c — /proc lookups and the end of an item's leftover
 * processes (src/proc/proctree.c), with real processes: no children means
 * nothing to do; a child that ends within the timeout is no leftover; one
 * that does not is named and killed, and so is an orphaned grandchild
 * adopted by this process, and a child whose main thread ended while
 * another runs on; a child held in the kernel's exit path (a traced
 * thread its tracer has not reaped, as a GPU context's teardown holds
 * one) is ending: no leftover, reaped when it ends, named once when it is
 * overdue; group members, pipe holders and a process's children are
 * found. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proctree.h"
#include "support/live.h"

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A child running `sleep secs` (its name in /proc: sleep). */
static pid_t start_sleep(const char *secs)
{
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        execl("/bin/sleep", "sleep", secs, (char *)NULL);
        _exit(127);
    }
    return p;
}

Test(proctree, no_children_is_nothing_to_end)
{
    char what[256] = "x";
    double t0 = mono();
    cr_expect_eq(kc_proc_end_leftovers(500, NULL, 0, what, sizeof what), 0);
    cr_expect_lt(mono() - t0, 0.1, "no wait without children");
    cr_expect_str_eq(what, "");
}

Test(proctree, a_child_ending_within_the_timeout_is_no_leftover, .timeout = 10)
{
    start_sleep("0.05");
    char what[256];
    cr_expect_eq(kc_proc_end_leftovers(2000, NULL, 0, what, sizeof what), 0, "%s", what);
}

/* A kept child (a sanitizer session, which its supervisor reaps) is neither
 * waited for, killed nor reaped; the item's other child is. */
Test(proctree, kept_children_are_left_to_their_owner, .timeout = 10)
{
    pid_t keep = start_sleep("30"), other = start_sleep("30");
    usleep(50000);
    char what[256], want[64];
    cr_expect_eq(kc_proc_end_leftovers(200, &keep, 1, what, sizeof what), 1);
    snprintf(want, sizeof want, "pid %ld (sleep)", (long)other);
    cr_expect_str_eq(what, want);
    cr_expect_eq(kill(keep, 0), 0, "the kept child was killed");
    int st;
    cr_expect_eq(waitpid(keep, &st, WNOHANG), 0, "the kept child is still running and not reaped");
    cr_expect_eq(kc_proc_end_leftovers(100, &keep, 1, what, sizeof what), 0, "only the kept child is left: %s", what);
    kill(keep, SIGKILL);
    cr_expect_eq(waitpid(keep, &st, 0), keep, "its owner reaps it");
}

Test(proctree, a_child_still_running_is_named_and_killed, .timeout = 10)
{
    pid_t p = start_sleep("30");
    usleep(50000);              /* exec'd: named sleep */
    char what[256], want[64];
    double t0 = mono();
    cr_expect_eq(kc_proc_end_leftovers(200, NULL, 0, what, sizeof what), 1);
    cr_expect_lt(mono() - t0, 1.5);
    snprintf(want, sizeof want, "pid %ld (sleep)", (long)p);
    cr_expect_str_eq(what, want);
    cr_expect(!kc_alive(p), "pid %ld lives on", (long)p);
    cr_expect_eq(kc_proc_children(NULL, 0), 0, "children left");
}

Test(proctree, an_orphaned_grandchild_is_adopted_and_killed, .timeout = 10)
{
    cr_assert_eq(kc_proc_adopt_orphans(), 0);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t c = fork();
    cr_assert_geq(c, 0);
    if (c == 0) {               /* starts a session-leading grandchild, tells its pid, exits */
        pid_t g = fork();
        if (g == 0) {
            setsid();
            execl("/bin/sleep", "sleep", "30", (char *)NULL);
            _exit(127);
        }
        if (write(p[1], &g, sizeof g) != sizeof g) _exit(1);
        _exit(0);
    }
    pid_t g = 0;
    cr_assert_eq(read(p[0], &g, sizeof g), (ssize_t)sizeof g);
    close(p[0]);
    close(p[1]);
    usleep(50000);
    char what[256];
    cr_expect_eq(kc_proc_end_leftovers(100, NULL, 0, what, sizeof what), 1, "%s", what);
    cr_expect(strstr(what, "(sleep)"), "%s", what);
    cr_expect(!kc_alive(g), "grandchild %ld lives on", (long)g);
}

/* The inode number of the pipe fd is an end of (as /proc shows "pipe:[INO]"). */
static unsigned long pipe_ino(int fd)
{
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    return (unsigned long)st.st_ino;
}

Test(proctree, group_members_and_pipe_holders_are_found, .timeout = 10)
{
    int pp[2];
    cr_assert_eq(pipe(pp), 0);
    pid_t a = fork();
    cr_assert_geq(a, 0);
    if (a == 0) {               /* a group of its own, holding no pipe */
        setpgid(0, 0);
        close(pp[0]);
        close(pp[1]);
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    pid_t b = fork();
    cr_assert_geq(b, 0);
    if (b == 0) {               /* this group, holding the pipe's write end */
        close(pp[0]);
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    close(pp[1]);
    usleep(100000);
    unsigned long ino = pipe_ino(pp[0]);
    pid_t found[8];
    cr_expect_eq(kc_proc_find(a, NULL, 0, 0, found, 8), 1);
    cr_expect_eq(found[0], a);
    cr_expect_eq(kc_proc_find(0, &ino, 1, 0, found, 8), 1, "the holder (not this process, which holds the read end)");
    cr_expect_eq(found[0], b);
    char d[256], want[128];
    kc_proc_describe(found, 1, d, sizeof d);
    snprintf(want, sizeof want, "pid %ld (sleep)", (long)b);
    cr_expect_str_eq(d, want);
    cr_expect_eq(kc_proc_find(a, &ino, 1, kc_proc_boot_ticks(), found, 8), 2, "both started before now");
    cr_expect_eq(kc_proc_find(a, &ino, 1, 1, found, 8), 0, "neither started in the first tick after boot");
    kill(a, SIGKILL);
    kill(b, SIGKILL);
    waitpid(a, NULL, 0);
    waitpid(b, NULL, 0);
    close(pp[0]);
}

Test(proctree, describe_cuts_a_long_list)
{
    pid_t many[40];
    for (int i = 0; i < 40; i++) many[i] = 4000000 + i;     /* beyond pid_max: "?" names */
    char d[100];
    kc_proc_describe(many, 40, d, sizeof d);
    cr_expect_lt(strlen(d), sizeof d);
    cr_expect(strstr(d, "pid 4000000 (?)"), "%s", d);
    cr_expect_eq(strcmp(d + strlen(d) - 3, "..."), 0, "%s", d);
}

/* What a timed-out worker was doing (kc_proc_describe_tree): its
 * descendants, grandchildren too, each with its program and first
 * arguments, state and age; "none" for a process without any. */
Test(proctree, describe_tree_names_every_descendant_with_its_arguments, .timeout = 15)
{
    pid_t root = fork();
    cr_assert_geq(root, 0);
    if (root == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", "/bin/sleep 30 & /bin/sh -c '/bin/sleep 31; :' & wait", (char *)NULL);
        _exit(127);
    }
    pid_t d[8];
    int n = 0;
    for (double t0 = mono(); mono() - t0 < 5 && n < 3; usleep(20000)) n = kc_proc_descendants(root, d, 8);
    cr_expect_eq(n, 3, "sleep 30, sh -c and its sleep 31: %d", n);
    char buf[600];
    kc_proc_describe_tree(root, buf, sizeof buf);
    cr_expect(strstr(buf, " sleep 30 (S, "), "%s", buf);
    cr_expect(strstr(buf, " sleep 31 (S, "), "the grandchild: %s", buf);
    cr_expect(strstr(buf, " sh -c /bin/sleep 31; : (S, "), "%s", buf);
    char leaf[100];
    kc_proc_describe_tree(d[0], leaf, sizeof leaf);
    cr_expect_str_eq(leaf, "none");
    char small[60];
    kc_proc_describe_tree(root, small, sizeof small);
    cr_expect_eq(strcmp(small + strlen(small) - 3, "..."), 0, "cut: %s", small);
    kill(-root, SIGKILL);
    waitpid(root, NULL, 0);
}

static void *sleep_on(void *arg)
{
    (void)arg;
    for (;;) pause();
    return NULL;
}

static int gone(pid_t p)
{
    return kill(p, 0) == -1 && errno == ESRCH;
}

/* Issue 23's stop-49 receipts: a process whose main thread ended reads Z in
 * /proc/PID/stat while its other threads run. It is live: named and killed,
 * not "children that /proc does not list" left running (which every later
 * item of the process would then be blamed for). */
Test(proctree, a_child_whose_main_thread_ended_while_another_runs_is_named_and_killed, .timeout = 10)
{
    pid_t c = fork();
    cr_assert_geq(c, 0);
    if (c == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, sleep_on, NULL)) _exit(1);
        pthread_exit(NULL);
    }
    usleep(100000);
    cr_expect_eq(kc_proc_life_of(c, NULL, 0), KC_PROC_RUNNING);
    pid_t p[4];
    cr_expect_eq(kc_proc_children(p, 4), 1, "a zombie main thread with a live thread is a live child");
    char what[256], want[64];
    cr_expect_eq(kc_proc_end_leftovers(200, NULL, 0, what, sizeof what), 1);
    snprintf(want, sizeof want, "pid %ld (", (long)c);
    cr_expect(strncmp(what, want, strlen(want)) == 0, "want '%s...', got '%s'", want, what);
    cr_expect(gone(c), "pid %ld lives on", (long)c);
    kill(c, SIGKILL);           /* failed: not left to outlive the test holding its pipes */
}

/* The flags field (the ninth of /proc/PID/task/TID/stat) decides: a thread
 * asleep in the exit path (a GPU context's teardown) does not run. */
Test(proctree, a_thread_in_the_exit_path_does_not_run)
{
    cr_expect_eq(kc_proc_task_runs("77 (kcontract) S 1 77 77 0 -1 4194560 0 0"), 1);
    cr_expect_eq(kc_proc_task_runs("77 (kcontract) D 1 77 77 0 -1 4194564 0 0"), 0, "PF_EXITING (0x4) set");
    cr_expect_eq(kc_proc_task_runs("77 (kcontract) R 1 77 77 0 -1 4194308 0 0"), 0, "PF_EXITING, running its exit");
    cr_expect_eq(kc_proc_task_runs("77 (kcontract) Z 1 77 77 0 -1 4194560 0 0"), 0, "a zombie");
    cr_expect_eq(kc_proc_task_runs("77 (a) Z (b) S 1 77 77 0 -1 4194560 0 0"), 1, "the fields after the last ')'");
    cr_expect_eq(kc_proc_task_runs("77 (kcontract"), -1);
    cr_expect_eq(kc_proc_life_of(getpid(), NULL, 0), KC_PROC_RUNNING, "this process");
    cr_expect_eq(kc_proc_life_of(2147483647, NULL, 0), KC_PROC_GONE, "beyond any pid_max (2^22 at most)");
}

typedef struct ending_child {
    pid_t child, tracer;
} ending_child;

/* A child held in the kernel's exit path for hold_ms: its second thread is
 * traced by a process of this test's (its own: kc_proc_own), which reaps
 * that thread's exit only after hold_ms, so until then every thread of the
 * child has exited and the child cannot be reaped (/proc: Z, flags with
 * PF_EXITING). Returns once the child has exited. */
static int tid_fd = -1;                 /* in the child: where its second thread writes its id */

static void *tell_tid_and_sleep(void *arg)
{
    (void)arg;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    if (write(tid_fd, &tid, sizeof tid) != sizeof tid) _exit(1);
    for (;;) pause();
    return NULL;
}

static ending_child start_ending(int hold_ms)
{
    int tid_pipe[2], ready_pipe[2], exit_pipe[2];
    cr_assert_eq(pipe(tid_pipe) | pipe(ready_pipe) | pipe(exit_pipe), 0);
    pid_t c = fork();
    cr_assert_geq(c, 0);
    if (c == 0) {
        pthread_t t;
        tid_fd = tid_pipe[1];
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);     /* Yama's ptrace_scope 1: a sibling may trace it */
        if (pthread_create(&t, NULL, tell_tid_and_sleep, NULL)) _exit(1);
        char x;
        if (read(exit_pipe[0], &x, 1) != 1) _exit(1);
        _exit(0);                               /* every thread exits; the traced one waits for its tracer */
    }
    pid_t tid = 0;
    cr_assert_eq(read(tid_pipe[0], &tid, sizeof tid), (ssize_t)sizeof tid);
    pid_t h = fork();
    cr_assert_geq(h, 0);
    if (h == 0) {
        char x = ptrace(PTRACE_SEIZE, tid, 0, 0) == 0;
        if (write(ready_pipe[1], &x, 1) != 1 || !x) _exit(1);
        usleep((useconds_t)hold_ms * 1000);
        int st;
        waitpid(tid, &st, __WALL);
        _exit(0);
    }
    kc_proc_own(h);
    char ok = 0;
    cr_assert_eq(read(ready_pipe[0], &ok, 1), 1);
    cr_assert(ok, "ptrace(PTRACE_SEIZE) of the child's thread %ld failed", (long)tid);
    cr_assert_eq(write(exit_pipe[1], "x", 1), 1);
    for (int i = 0; i < 200 && kc_proc_life_of(c, NULL, 0) == KC_PROC_RUNNING; i++) usleep(5000);
    int fds[] = { tid_pipe[0], tid_pipe[1], ready_pipe[0], ready_pipe[1], exit_pipe[0], exit_pipe[1] };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) close(fds[i]);
    return (ending_child){ c, h };
}

static void end_ending(ending_child e)
{
    int st;
    waitpid(e.tracer, &st, 0);
    waitpid(e.child, &st, 0);
}

/* An ending child is no leftover: no wait beyond the leak timeout, not
 * named, not counted; reaped once it ends, by a later call. */
Test(proctree, an_ending_child_is_no_leftover_and_is_reaped_when_it_ends, .timeout = 15)
{
    ending_child e = start_ending(800);
    cr_expect_eq(kc_proc_life_of(e.child, NULL, 0), KC_PROC_ENDING);
    char d[200], want[96];
    kc_proc_describe(&e.child, 1, d, sizeof d);
    snprintf(want, sizeof want, "pid %ld (", (long)e.child);
    cr_expect(strncmp(d, want, strlen(want)) == 0 && strstr(d, ": every thread in the kernel's exit path)"),
              "an ending process described as '%s'", d);
    int st;
    cr_expect_eq(waitpid(e.child, &st, WNOHANG), 0, "not reapable while its thread is held");
    char what[256];
    double t0 = mono();
    cr_expect_eq(kc_proc_end_leftovers(100, NULL, 0, what, sizeof what), 0, "%s", what);
    cr_expect_lt(mono() - t0, 0.4, "it waited for the ending child");
    cr_expect_str_eq(what, "");
    cr_expect_eq(kc_proc_end_leftovers(100, NULL, 0, what, sizeof what), 0, "blamed on a later item: %s", what);
    usleep(1000000);            /* its tracer has let it end */
    kc_proc_item_begin(0);
    cr_expect(gone(e.child), "the ending child was not reaped once it ended");
    cr_expect_eq(kc_proc_ending_overdue(0, what, sizeof what), 0, "named though it ended: %s", what);
    t0 = mono();
    kc_proc_ending_settle(5000);
    cr_expect_lt(mono() - t0, 0.05, "a process's end waited with nothing ending");
    end_ending(e);
}

/* One still ending past the grace is named once, and never killed or
 * blamed; a process's end names every one not named yet. */
Test(proctree, an_ending_child_past_the_grace_is_named_once, .timeout = 15)
{
    ending_child e = start_ending(2500);
    char what[256];
    cr_expect_eq(kc_proc_end_leftovers(100, NULL, 0, what, sizeof what), 0, "%s", what);
    cr_expect_eq(kc_proc_ending_overdue(300, what, sizeof what), 0, "named before it was overdue: %s", what);
    double t0 = mono();
    kc_proc_ending_settle(300);     /* as a process ends: until it is overdue */
    double took = mono() - t0;
    cr_expect(took > 0.15 && took < 1.0, "waited %.2f s for a child ending 300 ms", took);
    cr_expect_eq(kc_proc_ending_overdue(300, what, sizeof what), 1, "%s", what);
    char want[64];
    snprintf(want, sizeof want, "pid %ld (", (long)e.child);
    cr_expect(strncmp(what, want, strlen(want)) == 0, "want '%s...', got '%s'", want, what);
    cr_expect(strstr(what, ": every thread in the kernel's exit path"), "%s", what);
    cr_expect_eq(kc_proc_ending_overdue(300, what, sizeof what), 0, "named twice: %s", what);
    cr_expect_eq(kc_proc_ending_overdue(0, what, sizeof what), 0, "named again at the end: %s", what);
    end_ending(e);
}

/* kc_proc_children_of: what an ending child's running children are found by. */
Test(proctree, children_of_a_process_are_found, .timeout = 10)
{
    int pp[2];
    cr_assert_eq(pipe(pp), 0);
    pid_t c = fork();
    cr_assert_geq(c, 0);
    if (c == 0) {
        pid_t g = fork();
        if (g == 0) {
            execl("/bin/sleep", "sleep", "30", (char *)NULL);
            _exit(127);
        }
        if (write(pp[1], &g, sizeof g) != sizeof g) _exit(1);
        pause();
        _exit(0);
    }
    pid_t g = 0;
    cr_assert_eq(read(pp[0], &g, sizeof g), (ssize_t)sizeof g);
    pid_t found[4];
    cr_expect_eq(kc_proc_children_of(c, found, 4), 1);
    cr_expect_eq(found[0], g);
    cr_expect_eq(kc_proc_children_of(g, found, 4), 0);
    kill(g, SIGKILL);
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    close(pp[0]);
    close(pp[1]);
}

static int among(pid_t p, const pid_t *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] == p) return 1;
    return 0;
}

/* A process whose main thread ended holds its descriptors, group and
 * environment through its other threads: the supervisor's leak check (group
 * and pipe holders) and the sentinel's cookie search find it. */
Test(proctree, a_process_whose_main_thread_ended_is_found_by_group_pipe_and_environment, .timeout = 10)
{
    int pp[2];
    cr_assert_eq(pipe(pp), 0);
    pid_t c = fork();
    cr_assert_geq(c, 0);
    if (c == 0) {               /* a group of its own, holding the pipe's write end */
        setpgid(0, 0);
        close(pp[0]);
        pthread_t t;
        if (pthread_create(&t, NULL, sleep_on, NULL)) _exit(1);
        pthread_exit(NULL);
    }
    close(pp[1]);
    usleep(100000);
    unsigned long ino = pipe_ino(pp[0]);
    pid_t found[8];
    cr_expect_eq(kc_proc_find(c, NULL, 0, 0, found, 8), 1, "by its group");
    cr_expect_eq(kc_proc_find(0, &ino, 1, 0, found, 8), 1, "by the pipe it holds");
    cr_expect_eq(found[0], c);
    static pid_t all[8192];
    const char *path = getenv("PATH");
    cr_assert(path && path[0], "no PATH");
    char word[256];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(path, ":"), path);
    int n = kc_proc_find_cookie("PATH", word, all, 8192);
    cr_expect(among(c, all, n < 8192 ? n : 8192), "pid %ld, whose PATH holds %s, was not found (%d found)", (long)c,
              word, n);
    pid_t d[8];
    cr_expect_eq(kc_proc_descendants(getpid(), d, 8), 1, "a live descendant");
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    close(pp[0]);
}

static void *churn(void *arg)
{
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    while (pthread_create(&t, &a, churn, arg)) {}   /* a successor, then this one exits */
    return NULL;
}

/* A process whose main thread ended and whose threads each start a
 * successor and exit runs. Two readings can still take it for ending, now
 * and then, on a loaded machine (its threads' listing in /proc raced; seen
 * in 2 of about 160 trials of the whole suite under --jobs 2); then the
 * next item's check, one reading that runs, takes it off the ending list
 * and names it. So it is never left running unnamed: named within a few
 * checks, killed, and never on the ending list at the end. A single
 * reading, or two without the new-thread rule, misses it in most runs. */
Test(proctree, a_process_whose_threads_replace_themselves_is_never_taken_for_ending, .timeout = 60)
{
    int late = 0;
    for (int trial = 0; trial < 40; trial++) {
        pid_t c = fork();
        cr_assert_geq(c, 0);
        if (c == 0) {
            pthread_t t;
            pthread_attr_t a;
            pthread_attr_init(&a);
            pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
            while (pthread_create(&t, &a, churn, NULL)) {}    /* EAGAIN on a loaded machine: again */
            pthread_exit(NULL);
        }
        usleep(2000);
        char what[256];
        int n = 0, checks = 0;
        while (n == 0 && checks < 5) {
            n = kc_proc_end_leftovers(1, NULL, 0, what, sizeof what);
            checks++;
        }
        late += checks > 1;
        int st = 0;
        kill(c, SIGKILL);
        pid_t w = waitpid(c, &st, 0);
        cr_assert_eq(n, 1, "trial %d: pid %ld not named in %d checks: '%s'; waitpid %ld, %s %d", trial, (long)c, checks,
                     what, (long)w, WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        cr_assert(strstr(what, "pid "), "trial %d: %s", trial, what);
        cr_assert_eq(kc_proc_ending_overdue(0, what, sizeof what), 0, "trial %d: left as ending: %s", trial, what);
    }
    cr_expect_lt(late, 10, "%d of 40 trials took it for ending first", late);
}
