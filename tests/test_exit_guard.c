/* test_exit_guard.c — the exit guard (src/proc/exit_guard.h) with an item
 * on a thread of its own: an exit() there is said with that thread's words,
 * one on another thread with the process's, and the status is replaced as
 * armed. Each case runs in a forked child whose stderr is read here. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit_guard.h"

static void *exit_on_item_thread(void *arg)
{
    kc_exit_guard_thread_what("running item fam.k:oob_write");
    if (arg) exit(0);                  /* the item's exit(0) */
    return NULL;
}

/* In a child: arm (zero_status 4), start a thread that names its item and,
 * when exit_there, exits; else the main thread exits after it. Returns the
 * child's status and its stderr in err. */
static int child(int exit_there, char *err, size_t cap)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        kc_exit_guard_arm("between items (worker)", 4);
        pthread_t t;
        pthread_create(&t, NULL, exit_on_item_thread, exit_there ? (void *)1 : NULL);
        pthread_join(t, NULL);
        exit(0);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(p[0], err + n, cap - 1 - n)) > 0) n += (size_t)r;
    err[n] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return st;
}

Test(exit_guard, an_exit_on_an_items_thread_is_said_with_its_words)
{
    char err[1024];
    int st = child(1, err, sizeof err);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 4, "status %d, expected exit 4 (exit(0) replaced)", st);
    cr_expect(strstr(err, "exit(0) called while running item fam.k:oob_write"), "stderr: %s", err);
}

Test(exit_guard, an_exit_on_another_thread_is_said_with_the_processs_words)
{
    char err[1024];
    int st = child(0, err, sizeof err);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 4, "status %d, expected exit 4", st);
    cr_expect(strstr(err, "exit(0) called while between items (worker)"), "stderr: %s", err);
}
