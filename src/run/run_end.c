/* run_end.c — the one way every run ends (run_end.h). */
#include "run_end.h"

#include <stdio.h>
#include <time.h>

#include "costs.h"
#include "progname.h"
#include "reporter.h"
#include "report.h"
#include "report_summary.h"
#include "signame.h"

int kc_run_exit_status(int counts, int interrupted, int untrusted, int reports_failed)
{
    if (interrupted) return 128 + interrupted;
    if (counts == 1) return 1;
    if (untrusted) return 1;
    if (reports_failed) return 4;
    return counts;
}

int kc_run_end_write(const kc_run_end *e)
{
    const kc_opts *o = e->o;
    char line[4096], sb[32];
    /* the TALLY says so too: a merge of this run's output with others' must
     * not read green (tally.h, untrusted) */
    kc_tally tally = *e->tally;
    if (e->untrusted && !tally.untrusted) tally.untrusted = 1;
    /* the cost table records what the run itself could not vouch for; an
     * interrupt leaves the items it finished as they ended (its NOTRUN ones
     * failed), so that --rerun-failed retries what it did not finish */
    const int costs_untrusted = tally.untrusted != 0;
    /* An interrupted run did not reach its end: its workers' ends were never
     * seen, yet every item may have a verdict (a signal while a worker tears
     * down its CUDA context, or runs an exit handler). Its TALLY must not
     * read green then, or a merge of its log would exit 0 where the run
     * exited 128 + the signal; so it counts as not trusted, and the
     * interrupted line below says why. */
    if (e->interrupted && !tally.untrusted) tally.untrusted = 1;
    kc_report_run_end();
    if (e->interrupted) {
        int fin = 0;
        for (int i = 0; e->records && i < e->records->n; i++) fin += e->records->v[i].res.state != KC_NOTRUN;
        kc_report_note(stdout, "interrupted by %s: %d of %d items finished, %d not run\n",
               kc_signal_name(e->interrupted, sb, sizeof sb), fin, e->items, e->items - fin);
    }
    if (kc_tally_format(&tally, line, sizeof line) < 0) {
        kc_report_note(stderr, "internal error: the TALLY does not fit\n");
        return 4;
    }
    /* --costs: what each item cost, so a later --jobs run orders its queue
     * (or --shard K/N partitions) by it; written before the TALLY, so a
     * problem with it is said before the run's result. */
    if (e->write_costs && e->records) kc_costs_save_run(o->costs, e->records, costs_untrusted, stdout);
    else if (e->record_verdicts && e->records) kc_costs_save_verdicts(o->costs, e->records, costs_untrusted, stdout);
    kc_report_line(stdout, "%s\n", line);
    kc_summary_format(&tally, line, sizeof line);
    kc_report_line(stdout, "%s  (%.1f s)\n", line, e->wall_s);
    if (e->records && e->figures == KC_FIGURES_SERIAL) kc_report_serial(stdout, e->records);
    if (e->records && e->figures == KC_FIGURES_WORKERS) kc_report_workers(stdout, e->records);
    if (e->records && e->no_gpu_why && e->figures != KC_FIGURES_NONE) kc_report_no_gpu(stdout, e->records, e->no_gpu_why);
    if (e->records) kc_report_controls_beside_failures(stdout, e->records, e->merged);
    if (e->records && e->records->ran_again && e->figures != KC_FIGURES_NONE)
        fprintf(stdout, KC_RAN_AGAIN_LINE "%d item%s whose first verdict was not known to be %s own (a line above "
                "names each and why); the SUMMARY counts the runs alone\n", e->records->ran_again,
                e->records->ran_again == 1 ? "" : "s", e->records->ran_again == 1 ? "its" : "their");
    fflush(stdout);
    kc_junit_run jr = { .name = kc_prog(), .tally = &tally, .interrupted = e->interrupted,
                        .started = e->merged ? 0 : time(NULL) - (time_t)(e->wall_s + 0.5) };
    kc_records rr;
    if (e->records) {           /* a view of them that carries the TALLY's untrusted into the reports */
        rr = *e->records;
        rr.untrusted = tally.untrusted;
    }
    int wr = e->write_reports && e->records ? kc_reports_write(&rr, o->json, o->junit, o->timeline, &jr) : 0;
    return kc_run_exit_status(kc_tally_exit_status(&tally), e->interrupted, e->untrusted, wr != 0);
}
