/* test_proctree.c — /proc lookups and the end of an item's leftover
 * processes (src/proc/proctree.c), with real processes: no children means
 * nothing to do; a child that ends within the timeout is no leftover; one
 * that does not is named and killed, and so is an orphaned grandchild
 * adopted by this process; group members and pipe holders are found. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
    struct stat st;
    cr_assert_eq(fstat(pp[0], &st), 0);
    unsigned long ino = (unsigned long)st.st_ino;
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
