/* result_line.h — the line a work-queue worker writes on its result pipe
 * (fd 3) for each item, and the parent parses (worker.h has the protocol):
 *     R <name> <STATE> <gate> <seconds> <peak_rss_kib> <limit_problems> <stale>
 *       <lost> <inputs_s> <gpu_s> <reference_s> <checks_s> <inputs_made_gpu>
 *       <inputs_made_host> <inputs_reused> <block_size> <message> [<detail>]
 * one tab between fields, the message with its tabs and newlines turned
 * into spaces; block_size the launch variant of the first failure (0: none,
 * the rerun command's --block-size); the detail is the item's further
 * lines, each escaped (line_text.h) and joined by KC_RESULT_DETAIL_SEP: the
 * parent prints every verdict it takes (item_run.h). Before any, the
 * worker writes KC_RESULT_READY. */
#ifndef KC_RESULT_LINE_H
#define KC_RESULT_LINE_H
#include <stddef.h>
#include "result.h"

#define KC_RESULT_FD 3              /* the worker's result pipe (KC_SUP_RESULT_FD) */
#define KC_RESULT_READY "READY"     /* the worker's first line on it: it takes items now */
#define KC_RESULT_DONE "DONE"       /* "DONE\t<name>": the worker's item is over; the parent answers its nonce */
/* The worker's last line, written only when it ends with status 0 after
 * checking its compute-sanitizer sessions' summaries: they vouch for every
 * clean verdict they gave (worker.h). An exit() or _exit() that ends the
 * worker first (an item's, a thread's, an exit handler's) cannot write it. */
#define KC_RESULT_ENDED "ENDED"
/* Its last line instead, when those summaries do not vouch: it exits
 * KC_WORKER_UNTRUSTED having said why on stdout. The status alone is not
 * its word: an item's leftover thread or exit handler can exit() with the
 * same number (the parent then takes the end for its own, queue_deaths.c). */
#define KC_RESULT_UNTRUSTED "UNTRUSTED"
#define KC_NONCE_LEN 16             /* hex digits of a request's nonce (64 random bits) */
#define KC_RESULT_DETAIL_SEP '\036' /* between the detail field's lines (an escaped line holds no control byte) */
#define KC_RESULT_LINE_CAP (4096 + 4 * 8192)  /* the longest result line: the message and an item's escaped detail */
/* A worker's exit status when its sanitizer sessions are not trusted
 * (sanitize_session.h: kc_san_pool_free failed, at its end or after a
 * context loss): its :sanitize items' PASS is not trusted, it says so on
 * stdout, and the parent's run exits 1. */
#define KC_WORKER_UNTRUSTED 5

/* A fresh nonce: KC_NONCE_LEN hex digits of getrandom(2) into out
 * (KC_NONCE_LEN + 1 bytes). 0, or -1 (errno) when no randomness is had.
 * The parent sends an item's nonce only once the worker said the item is
 * over (KC_RESULT_DONE), and takes only the result line sealed with it
 * (kc_result_unseal): while an item runs its nonce exists nowhere in the
 * worker, so the item cannot seal a result of its own. */
int kc_result_nonce(char *out);
/* The result line `line` sealed for a request: "<nonce>\t<line>" is what
 * the worker writes. Returns the line after the seal when line starts with
 * nonce and a tab, NULL otherwise (or when nonce is NULL: no request). */
const char *kc_result_unseal(const char *line, const char *nonce);
/* A line from a result pipe as it may be shown in a message: escaped
 * (kc_escape_line), at most cap - 1 bytes, "..." when cut. */
void kc_result_shown(const char *line, char *buf, size_t cap);

/* Writes the result line of item `name` (with its '\n') into buf: r's state,
 * gate, seconds, peak RSS, limit problems, stale, context_lost (<lost>),
 * time split and message (not cases or rerun: the parent words the rerun
 * command). Returns the length, or -1 when it does not fit. */
int kc_result_format(const char *name, const kc_item_result *r, char *buf, size_t cap);
/* The same line with the detail field: detail's lines ('\n' between them;
 * NULL or "": none) escaped and joined; when they do not fit, one line
 * saying so in their place. -1 when the line does not fit even so. */
int kc_result_format_detail(const char *name, const kc_item_result *r, const char *detail, char *buf, size_t cap);
/* The detail field of a result line, its lines joined by '\n' again, into
 * buf (cap bytes, cut there); "" when the line has none. */
void kc_result_detail(const char *line, char *buf, size_t cap);
/* Parses one line (without its '\n') into name[0..name_cap) and *r (the
 * fields the line carries; the rest 0). 0, or -1 with the reason in err. */
int kc_result_parse(const char *line, char *name, size_t name_cap, kc_item_result *r, char *err, size_t cap);
#endif
