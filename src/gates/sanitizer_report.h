/* sanitizer_report.h — NVIDIA's compute-sanitizer as the sanitizer gate
 * reads it (sanitizer_report.c): its four tools by name, and the first
 * error of its report. Both the gate (sanitize.h) and its sessions
 * (sanitize_session.h) read reports. */
#ifndef KC_SANITIZER_REPORT_H
#define KC_SANITIZER_REPORT_H
#include <stddef.h>

#define KC_SAN_TOOLS 4                  /* memcheck, racecheck, initcheck, synccheck: the order they run in */

/* "memcheck", "racecheck", "initcheck", "synccheck" for tool 0..3. */
const char *kc_sanitizer_tool(int tool);

/* The first error of a compute-sanitizer report, in its own words. Each
 * field is "" when the report did not say. */
typedef struct kc_san_error {
    char what[256];       /* "Invalid __global__ read of size 4 bytes", "Error: Race reported between Write access at ..." */
    char kernel[192];     /* "fake_copy_f16", from the first "at <kernel>+0x.. in <file>:<line>" */
    char where[384];      /* "at fake_copy_f16(...)+0x70 in copy.cu:12" (racecheck: both accesses) */
    char thread[64];      /* "(30,0,0)" */
    char block[64];       /* "(0,0,0)" */
    char address[384];    /* "Address 0x7f.. is out of bounds and is 2 bytes after the nearest allocation ..." */
    long errors;          /* the "ERROR SUMMARY: N errors" count; -1 when absent */
} kc_san_error;

/* Parses compute-sanitizer's output (lines starting "========= "; other lines,
 * the target's own, are ignored). Returns 1 and the first error in *e; 0 when
 * the report holds none (e->errors still gets the summary's count). An error
 * is the first report line (one space after the "=========") that is not the
 * banner, a summary, or the sanitizer's note about the target's exit. */
int kc_sanitizer_parse(const char *text, kc_san_error *e);

/* A report: an error line as kc_sanitizer_parse finds errors (an unindented
 * report line that is not a note), trimmed, with racecheck's second access
 * ("and Read access at ...") when the next line is one, without its hazard
 * count ("[2292 hazards]": it changes from run to run). How many text holds. */
int kc_sanitizer_count(const char *text);
/* How many reports of text no report of `known` accounts for, each of
 * known's accounting for one equal report at most (a report with a line past
 * 4095 characters, cut, accounts for none and is accounted for by none); the
 * first of them into dst. For a racecheck batch (sanitize_batch.c): the
 * batch's reports against its items' runs alone; one item's report explains
 * one of the batch's, never two, and a report that shares only its first
 * access explains none. */
int kc_sanitizer_unmatched(const char *text, const char *known, char *dst, size_t cap);

/* One line for a failure: "<tool>: <what> in kernel <kernel> <where>, thread
 * <t> block <b>, <address> (N errors in all)". */
void kc_sanitizer_describe(const char *tool, const kc_san_error *e, char *buf, size_t cap);

/* The last line of a run's output that starts with prefix (the target's own
 * lines among the sanitizer's, e.g. KC_SAN_TARGET_OK), after the prefix and
 * trimmed, into dst: 1; 0 when none does. */
int kc_sanitizer_last_line(const char *out, const char *prefix, char *dst, size_t cap);
#endif
