/* inflight.c — owns the parent's book of a worker's items in flight and the
 * checks of the result protocol with several items open (inflight.h). */
#include "inflight.h"
#include "item_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kc_inflight_init(kc_inflight *f, int k, char *err, size_t cap)
{
    memset(f, 0, sizeof *f);
    if (k < 1 || k > KC_INFLIGHT_MAX) {
        snprintf(err, cap, "items in flight: %d, expected 1 to %d", k, KC_INFLIGHT_MAX);
        return -1;
    }
    f->k = k;
    return 0;
}

/* The lane holding item `name` (not FREE), or -1. */
static int lane_of(const kc_inflight *f, const char *name, size_t len)
{
    for (int i = 0; i < f->k; i++)
        if (f->lane[i].phase != KC_LANE_FREE && strlen(f->lane[i].name) == len && memcmp(f->lane[i].name, name, len) == 0)
            return i;
    return -1;
}

int kc_inflight_hand(kc_inflight *f, const char *name, char *err, size_t cap)
{
    size_t len = strlen(name);
    if (!len || len >= KC_INFLIGHT_NAME || strpbrk(name, "\t\r\n")) {
        snprintf(err, cap, "item name '%.80s' (%zu bytes): expected 1 to %d bytes, no tab or newline", name, len,
                 KC_INFLIGHT_NAME - 1);
        return -1;
    }
    if (lane_of(f, name, len) >= 0) {
        snprintf(err, cap, "item %s is in flight already", name);
        return -1;
    }
    for (int i = 0; i < f->k; i++)
        if (f->lane[i].phase == KC_LANE_FREE) {
            f->lane[i].phase = KC_LANE_RUNNING;
            memcpy(f->lane[i].name, name, len + 1);
            f->lane[i].nonce[0] = 0;
            f->open++;
            return i;
        }
    snprintf(err, cap, "item %s handed to a worker with its %d lane%s open", name, f->k, f->k == 1 ? "" : "s");
    return -1;
}

int kc_inflight_done(kc_inflight *f, const char *line, char *answer, size_t answer_cap, char *err, size_t cap)
{
    size_t dn = strlen(KC_RESULT_DONE);
    char shown[200];
    kc_result_shown(line, shown, sizeof shown);
    if (strncmp(line, KC_RESULT_DONE, dn) != 0 || line[dn] != '\t') {
        snprintf(err, cap, "not a DONE line: '%s'", shown);
        return -1;
    }
    const char *name = line + dn + 1;
    int i = lane_of(f, name, strlen(name));
    if (i < 0) {
        snprintf(err, cap, "DONE for an item not in flight: '%s'", shown);
        return -1;
    }
    kc_lane *l = &f->lane[i];
    if (l->phase != KC_LANE_RUNNING) {
        snprintf(err, cap, "a second DONE for %s", l->name);
        return -1;
    }
    if (kc_result_nonce(l->nonce)) {
        snprintf(err, cap, "DONE for %s that could not be sealed (no random nonce)", l->name);
        return -1;
    }
    int n = snprintf(answer, answer_cap, "%s\t%s\n", l->name, l->nonce);
    if (n < 0 || (size_t)n >= answer_cap) {
        snprintf(err, cap, "the answer for %s does not fit in %zu bytes", l->name, answer_cap);
        memset(l->nonce, 0, sizeof l->nonce);
        return -1;
    }
    l->phase = KC_LANE_SEALING;
    return i;
}

/* The item a result body "R\t<name>\t..." names: its start and length (0
 * when the line has no such field). */
static size_t claimed_name(const char *body, const char **name)
{
    *name = "";
    if (strncmp(body, "R\t", 2) != 0) return 0;
    *name = body + 2;
    return strcspn(*name, "\t");
}

int kc_inflight_take(kc_inflight *f, const char *line, const char **body, char *err, size_t cap)
{
    char shown[200];
    kc_result_shown(line, shown, sizeof shown);
    *body = NULL;
    for (int i = 0; i < f->k; i++) {
        kc_lane *l = &f->lane[i];
        if (l->phase != KC_LANE_SEALING) continue;
        const char *b = kc_result_unseal(line, l->nonce);
        if (!b) continue;
        const char *name;
        size_t len = claimed_name(b, &name);
        if (len != strlen(l->name) || memcmp(name, l->name, len) != 0) {
            snprintf(err, cap, "a result for '%.*s' sealed with the nonce of %s: '%s'", (int)(len < 200 ? len : 200),
                     name, l->name, shown);
            return -1;
        }
        *body = b;
        return i;
    }
    /* No open seal fits: say what the line claims. */
    const char *tab = strchr(line, '\t'), *name = "";
    size_t len = tab ? claimed_name(tab + 1, &name) : 0;
    int i = len ? lane_of(f, name, len) : -1;
    if (i >= 0 && f->lane[i].phase == KC_LANE_RUNNING)
        snprintf(err, cap, "a result for %s before it said DONE: '%s'", f->lane[i].name, shown);
    else if (i >= 0)
        snprintf(err, cap, "a result for %s without its nonce: '%s'", f->lane[i].name, shown);
    else if (len)
        snprintf(err, cap, "a result for '%.*s', an item not in flight: '%s'", (int)(len < 200 ? len : 200), name, shown);
    else
        snprintf(err, cap, "a line that is no sealed result: '%s'", shown);
    return -1;
}

void kc_inflight_close(kc_inflight *f, int lane)
{
    if (lane < 0 || lane >= f->k || f->lane[lane].phase == KC_LANE_FREE) return;
    memset(&f->lane[lane], 0, sizeof f->lane[lane]);
    f->open--;
}

int kc_inflight_undecided(const kc_inflight *f, const char **names, int cap)
{
    int n = 0;
    for (int i = 0; i < f->k; i++)
        if (f->lane[i].phase != KC_LANE_FREE) {
            if (n < cap) names[n] = f->lane[i].name;
            n++;
        }
    return n;
}

/* n of a "AHEAD<n>" marker word (1 to 99), else 0. */
static int ahead_count(const char *word)
{
    const size_t k = strlen(KC_REQUEST_AHEAD);
    if (strncmp(word, KC_REQUEST_AHEAD, k) != 0) return 0;
    word += k;
    size_t digits = strspn(word, "0123456789");
    if (digits < 1 || digits > 2 || word[digits]) return 0;
    return atoi(word);
}

const char *kc_request_ahead_mark(char *buf, int n)
{
    if (n > 99) n = 99;
    if (n > 0) snprintf(buf, KC_REQUEST_AHEAD_CAP, "\t%s%d", KC_REQUEST_AHEAD, n);
    else buf[0] = 0;
    return buf;
}

unsigned kc_request_marks(char *line, int *ahead)
{
    unsigned got = 0;
    *ahead = 0;
    for (char *tab; (tab = strrchr(line, '\t'));) {
        int n = ahead_count(tab + 1);
        if (n > 0) {
            got |= KC_REQUEST_AHEAD_BIT;
            *ahead = n;
        } else if (strcmp(tab + 1, KC_INFLIGHT_ALONE) == 0) {
            got |= KC_REQUEST_ALONE_BIT;
        } else if (strcmp(tab + 1, KC_REQUEST_OPEN) == 0) {
            got |= KC_REQUEST_OPEN_BIT;
        } else if (strcmp(tab + 1, KC_REQUEST_GO) == 0) {
            got |= KC_REQUEST_GO_BIT;
        } else {
            break;
        }
        *tab = 0;
    }
    return got;
}

int kc_inflight_worker_line(const char *line, char *name, size_t name_cap, char *nonce, char *err, size_t cap)
{
    const char *tab = strchr(line, '\t');
    size_t len = tab ? (size_t)(tab - line) : strlen(line);
    if (!len || len >= name_cap) {
        snprintf(err, cap, "expected an item name (1 to %zu bytes), got '%.80s'", name_cap - 1, line);
        return -1;
    }
    memcpy(name, line, len);
    name[len] = 0;
    if (!tab) return 0;
    if (strlen(tab + 1) != KC_NONCE_LEN || strspn(tab + 1, "0123456789abcdef") != KC_NONCE_LEN) {
        snprintf(err, cap, "expected the nonce of %s (%d hex digits), got '%.40s'", name, KC_NONCE_LEN, tab + 1);
        return -1;
    }
    memcpy(nonce, tab + 1, KC_NONCE_LEN + 1);
    return 1;
}

int kc_inflight_admits(const kc_item *it, char *why, size_t cap)
{
    const char *alone = NULL;
    switch (it->kind) {
    case KC_KIND_KERNEL:
    case KC_KIND_CONTROL:
        if (it->contract && it->contract->library) alone = "a library kernel (the CUDA runtime's legacy stream and allocations)";
        else if (kc_item_runs_sanitizer(it)) alone = "a control planted for the sanitizer (a compute-sanitizer process)";
        else if (it->kind == KC_KIND_CONTROL && it->control && it->control->gate == 1)
            alone = "a control planted for gate 1 (a fault there ends the CUDA context, and with it every item in "
                    "flight beside it)";
        else if (!it->contract) alone = "an item without a contract";
        break;
    case KC_KIND_SANITIZE: alone = "a sanitizer item (a compute-sanitizer process)"; break;
    case KC_KIND_LIMIT: alone = "a :limits item (the registry's process-wide problem list)"; break;
    case KC_KIND_SUITE: alone = "a suite (it checks the whole process)"; break;
    default: alone = "an item of an unknown kind"; break;
    }
    if (alone) snprintf(why, cap, "%s runs alone: %s", it->name, alone);
    else if (cap) why[0] = 0;
    return alone == NULL;
}

int kc_inflight_final(const kc_item *it, const kc_item_result *r)
{
    if (r->context_lost) return 0;
    return it->kind == KC_KIND_CONTROL ? r->state == KC_RED : r->state == KC_PASS;
}
