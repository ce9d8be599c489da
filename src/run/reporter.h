/* reporter.h — the one reporter between a run and the terminal
 * (reporter.c): the lines of items, with their state words coloured and
 * filtered by --status-level. */
#ifndef KC_REPORTER_H
#define KC_REPORTER_H
#include "result.h"
#include "state.h"

/* The one printer of an item's line, on stdout after clearing the progress
 * line: `STATE  NAME  MESSAGE  (SECONDS s)[  rerun: COMMAND]`, then the
 * lines of detail (the gates' indented lines, kc_lines: whole, with the cut
 * marker; NULL none) and of log_tail (a dead worker's last lines, each as
 * `    | LINE`; NULL none). Everything is escaped on the way (line_text.h:
 * the message, the command, each line), so the item is one line, each line
 * under it one line too, and the next line of the run starts a line of its
 * own, whatever the item's text holds. kc_item_run (a serial run, a --jobs
 * worker) and kc_finish_item (the --jobs parent's CRASH, TIMEOUT and NOTRUN
 * lines) print through it. */
void kc_item_print(const char *name, const kc_item_result *r, double seconds, const char *detail, const char *log_tail);
/* --status-level: the lines kc_item_print prints from now on in this process
 * (state.h, kc_state_shown: a failing line always; the default all). A line
 * not shown goes with the lines under it. Set once, by main. */
void kc_item_print_level(kc_status_level l);
#endif
