/* report_junit.c — --junit FILE: JUnit XML as Jenkins, GitLab and the GitHub
 * test-report actions read it (docs/reports.md): one <testcase> per item,
 * written as the state table says (state.h): FAIL/MISSED/LIMIT/LEAK as
 * <failure>, CRASH/TIMEOUT/NOTRUN as <error>, SKIP as <skipped>; PASS, RED
 * and KNOWN pass (KNOWN keeps its message in <system-out>). */
#include <math.h>
#include <string.h>

#include "report_junit.h"
#include "report_text.h"

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

int kc_report_junit(FILE *out, const kc_records *rs, const char *suite_name)
{
    int failures = 0, errors = 0, skipped = 0;
    for (int i = 0; i < rs->n; i++) {
        failures += is_failure(rs->v[i].res.state);
        errors += is_error(rs->v[i].res.state);
        skipped += is_skipped(rs->v[i].res.state);
    }
    const char *sn = suite_name ? suite_name : "kcontract";
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", out);
    kc_xml_text(out, sn, strlen(sn), 1);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n", rs->n, failures,
            errors, skipped, secs(rs->wall_s));
    fputs("  <testsuite name=\"", out);
    kc_xml_text(out, sn, strlen(sn), 1);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n", rs->n, failures,
            errors, skipped, secs(rs->wall_s));
    for (int i = 0; i < rs->n; i++) {
        const kc_record *r = &rs->v[i];
        fprintf(out, "    <testcase classname=\"%s\" name=\"", kc_kind_name(r->kind));
        kc_xml_text(out, r->name, sizeof r->name, 1);
        fprintf(out, "\" time=\"%.3f\"", secs(r->end_s - r->start_s));
        const char *tag = is_failure(r->res.state) ? "failure" : is_error(r->res.state) ? "error" : is_skipped(r->res.state) ? "skipped" : NULL;
        if (!tag && as(r->res.state) != KC_JUNIT_NOTE) {
            fputs("/>\n", out);
            continue;
        }
        fputs(">\n", out);
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
        } else {
            fprintf(out, "      <system-out>%s: ", kc_state_name(r->res.state));
            body(out, r);
            fputs("</system-out>\n", out);
        }
        fputs("    </testcase>\n", out);
    }
    fputs("  </testsuite>\n</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
