/* result_line.h — the line a work-queue worker writes on its result pipe
 * (fd 3) for each item, and the parent parses (worker.h has the protocol):
 *     R <name> <STATE> <gate> <seconds> <peak_rss_kib> <limit_problems> <stale>
 *       <lost> <inputs_s> <gpu_s> <reference_s> <checks_s> <inputs_made_gpu>
 *       <inputs_made_host> <inputs_reused> <message>
 * one tab between fields, the message last with its tabs and newlines turned
 * into spaces. Before any, the worker writes KC_RESULT_READY. */
#ifndef KC_RESULT_LINE_H
#define KC_RESULT_LINE_H
#include <stddef.h>
#include "item.h"

#define KC_RESULT_FD 3              /* the worker's result pipe (KC_SUP_RESULT_FD) */
#define KC_RESULT_READY "READY"     /* the worker's first line on it: it takes items now */

/* One parsed result line. */
typedef struct kc_result_line {
    char name[192];
    kc_state state;
    int gate;
    double seconds;
    long peak_rss_kib;
    int limit_problems, stale, lost;
    kc_time_split time;
    char msg[2048];
} kc_result_line;

/* Writes a result line (with its '\n') into buf; returns the length or -1. */
int kc_result_format(const kc_result_line *r, char *buf, size_t cap);
/* Parses one (without its '\n'). 0, or -1 with the reason in err. */
int kc_result_parse(const char *line, kc_result_line *r, char *err, size_t cap);
#endif
