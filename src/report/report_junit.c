/* report_junit.c — --junit FILE: JUnit XML as Jenkins, GitLab and the GitHub
 * test-report actions read it (docs/reports.md): one <testcase> per item,
 * written as the state table says (state.h): FAIL/MISSED/LIMIT/LEAK as
 * <failure>, CRASH/TIMEOUT/NOTRUN as <error>, SKIP as <skipped>; PASS, RED
 * and KNOWN pass (KNOWN keeps its message in <system-out>); a run not
 * trusted, or interrupted, gets one testcase more with an <error>. */
#include <math.h>
#include <string.h>

#include "report_junit.h"
#include "report_text.h"
#include "signame.h"

static kc_junit_as as(kc_state s) { return kc_state_info_of(s)->junit; }
static int is_failure(kc_state s) { return as(s) == KC_JUNIT_FAILURE; }
static int is_error(kc_state s) { return as(s) == KC_JUNIT_ERROR; }
static int is_skipped(kc_state s) { return as(s) == KC_JUNIT_SKIPPED; }

static double secs(double v) { return isfinite(v) && v > 0 ? v : 0; }

/* The element's body: the message, the rerun command, the worker's last lines. */
static void body(FILE *out, const kc_record *r)
{
    kc_xml_text(out, r->res.msg, sizeof r->res.msg, 0);
    if (r->res.rerun[0]) {
        fputs("\nrerun: ", out);
        kc_xml_text(out, r->res.rerun, sizeof r->res.rerun, 0);
    }
    if (r->log_tail[0]) {
        fputs("\n--- last lines ---\n", out);
        kc_xml_text(out, r->log_tail, sizeof r->log_tail, 0);
    }
}

/* One <property name="NAME" value="V"/>. */
static void property(FILE *out, const char *name, const char *v)
{
    fprintf(out, "      <property name=\"%s\" value=\"", name);
    kc_xml_text(out, v, strlen(v), 1);
    fputs("\"/>\n", out);
}

/* The run's <properties>: what a CI reader needs to rerun it or tell two
 * runs apart (the TALLY's fields, as people read them). */
static void properties(FILE *out, const kc_tally *t)
{
    char v[160];
    fputs("    <properties>\n", out);
    snprintf(v, sizeof v, "%llu", (unsigned long long)t->seed);
    property(out, "seed", v);
    snprintf(v, sizeof v, "%016llx", (unsigned long long)t->build);
    property(out, "build", v);
    property(out, "device", t->device[0] ? t->device : "none");
    snprintf(v, sizeof v, "%d.%d", t->cc_major, t->cc_minor);
    property(out, "compute_capability", v);
    snprintf(v, sizeof v, "%d", t->sm_count);
    property(out, "sms", v);
    snprintf(v, sizeof v, "%d/%d", t->shard_k, t->shard_n);
    property(out, "shard", v);
    fputs("    </properties>\n", out);
}

int kc_report_junit(FILE *out, const kc_records *rs, const kc_junit_run *run)
{
    const char *suite_name = run ? run->name : NULL;
    int failures = 0, errors = 0, skipped = 0;
    for (int i = 0; i < rs->n; i++) {
        failures += is_failure(rs->v[i].res.state);
        errors += is_error(rs->v[i].res.state);
        skipped += is_skipped(rs->v[i].res.state);
    }
    /* sessions that could not vouch: one error of the run's own, so that a
     * reader of the report alone does not see it green (tally.h) */
    const int untrusted = run && run->tally && run->tally->untrusted > 0;
    errors += untrusted;
    const int tests = rs->n + untrusted;
    const char *sn = suite_name ? suite_name : "kcontract";
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", out);
    kc_xml_text(out, sn, strlen(sn), 1);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n", tests, failures,
            errors, skipped, secs(rs->wall_s));
    fputs("  <testsuite name=\"", out);
    kc_xml_text(out, sn, strlen(sn), 1);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"", tests, failures,
            errors, skipped, secs(rs->wall_s));
    struct tm tm;
    char when[32];
    if (run && run->started > 0 && localtime_r(&run->started, &tm) && strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm))
        fprintf(out, " timestamp=\"%s\"", when);     /* local time without a zone, as GoogleTest writes it */
    fputs(">\n", out);
    if (run && run->tally) properties(out, run->tally);
    char sig[32];
    if (untrusted && run->interrupted)      /* run_end.c: an interrupted run does not read green */
        fprintf(out, "    <testcase classname=\"kcontract\" name=\"interrupted\" time=\"0.000\">\n"
                     "      <error type=\"INTERRUPTED\" message=\"the run was interrupted by %s before it ended (its "
                     "workers' ends were not seen): the run is not green\"/>\n"
                     "    </testcase>\n", kc_signal_name(run->interrupted, sig, sizeof sig));
    else if (untrusted)
        fprintf(out, "    <testcase classname=\"kcontract\" name=\"sanitizer sessions\" time=\"0.000\">\n"
                     "      <error type=\"UNTRUSTED\" message=\"compute-sanitizer sessions of %ld run%s could not vouch "
                     "for the clean verdicts they gave (the run's kcontract: lines say why): the run is not green\"/>\n"
                     "    </testcase>\n", run->tally->untrusted, run->tally->untrusted == 1 ? "" : "s");
    for (int i = 0; i < rs->n; i++) {
        const kc_record *r = &rs->v[i];
        char family[sizeof r->name];
        kc_family_of(r->name, family, sizeof family);
        fputs("    <testcase classname=\"", out);
        kc_xml_text(out, family, strlen(family), 1);
        fputs("\" name=\"", out);
        kc_xml_text(out, r->name, sizeof r->name, 1);
        fprintf(out, "\" time=\"%.3f\"", secs(r->end_s - r->start_s));
        const char *tag = is_failure(r->res.state) ? "failure" : is_error(r->res.state) ? "error" : is_skipped(r->res.state) ? "skipped" : NULL;
        if (!tag && as(r->res.state) != KC_JUNIT_NOTE && !r->res.cached) {
            fputs("/>\n", out);
            continue;
        }
        fputs(">\n", out);
        if (r->res.cached) {    /* reused from the results cache (result_cache.h): when and by which build */
            char when[32];
            kc_result_cached_when(&r->res, when, sizeof when);
            fprintf(out, "      <properties><property name=\"cached\" value=\"earned %s by build %016llx\"/>"
                    "</properties>\n", when, (unsigned long long)r->res.cached_build);
        }
        if (tag) {
            fprintf(out, "      <%s type=\"%s\" message=\"", tag, kc_state_name(r->res.state));
            kc_xml_text(out, r->res.msg, sizeof r->res.msg, 1);
            fputs("\"", out);
            if (is_skipped(r->res.state)) {
                fputs("/>\n", out);
            } else {
                fputs(">", out);
                body(out, r);
                fprintf(out, "</%s>\n", tag);
            }
        } else if (as(r->res.state) == KC_JUNIT_NOTE) {
            fprintf(out, "      <system-out>%s: ", kc_state_name(r->res.state));
            body(out, r);
            fputs("</system-out>\n", out);
        }
        fputs("    </testcase>\n", out);
    }
    fputs("  </testsuite>\n</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
