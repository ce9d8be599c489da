/* cache_runs.c — test support: runs of the fixture binary with a results
 * cache of their own (cache_runs.h). */
#include "cache_runs.h"

#include <criterion/criterion.h>
#include <stdio.h>

#include "run_output.h"

void kc_cache_new(kc_cache_dir *c, const char *tag)
{
    kc_tmp_dir(c->dir, sizeof c->dir, tag);
    snprintf(c->env, sizeof c->env, "KC_CACHE_DIR=%s", c->dir);
}

kc_proc kc_cache_run_line(char **args, char **env, const char *state, const char *item)
{
    kc_proc p = kc_run_fake(args, env, 60);
    char line[2048];
    cr_expect(kc_out_item_line(p.out, state, item, line, sizeof line), "no %s line for %s:\n%s%s", state, item, p.out,
              p.err);
    return p;
}

void kc_cache_expect_reused(char **args, char **env, long want, const char *what)
{
    kc_tally t;
    kc_proc p = kc_run_fake(args, env, 60);
    kc_out_tally(p.out, &t);
    cr_expect_eq(p.status, 0, "the run after it: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_eq(t.cached, want, "the run after it reused %ld verdicts, want %s:\n%s", t.cached, what, p.out);
    kc_proc_free(&p);
}

kc_proc kc_cache_run_tallied(char **args, char **env, kc_tally *t)
{
    kc_proc p = kc_run_fake(args, env, 60);
    kc_out_tally(p.out, t);
    return p;
}
