/* edge_shapes.c — owns edge shapes derived from a model shape and a rule
 * (kc_edge_shapes, kc_derive_edges, KC_EDGE_SHAPES in kcontract.h): the
 * sizes just off a kernel's tile, around its first tile and around the
 * model's own size, filtered by the kernel's precondition, named after the
 * model they came from. Issue 25: a team wrote these lists by hand for every
 * contract. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "kcontract.h"
#include "progname.h"

/* How far a candidate refused by the rule's predicate moves looking for one
 * it keeps (K % 8 == 0 needs at most 7 steps; 4096 covers any power-of-two
 * alignment a kernel asks of a dim up to the page). */
#define EDGE_SEARCH_STEPS 4096

static const char *name_of(const kc_shape *s) { return s && s->name ? s->name : "(unnamed)"; }

static int same_dims(const kc_shape *a, const kc_shape *b)
{
    return memcmp(a->d, b->d, sizeof a->d) == 0;
}

/* The value nearest `start` in direction `step` (+1 or -1) that is off the
 * tile, in [lo, hi] and kept by the predicate; 0 if none within the search. */
static int64_t nearest_kept(const kc_shape *model, const kc_edge_rule *r, int64_t start, int step, int64_t lo,
                            int64_t hi)
{
    kc_shape c = *model;
    for (int64_t v = start, i = 0; i < EDGE_SEARCH_STEPS && v >= lo && v <= hi; v += step, i++) {
        if (v % r->tile == 0) continue;
        c.d[r->dim] = v;
        if (!r->keep || r->keep(&c)) return v;
    }
    return 0;
}

int kc_edge_shapes(kc_shape *list, int cap, const kc_shape *model, const kc_edge_rule *rule, char *why,
                   size_t why_cap)
{
    if (!list || !model || !rule)
        return kc_errf(why, why_cap, "kc_edge_shapes: %s is NULL (expected a shape list, a model shape and a rule)",
                       !list ? "the list" : !model ? "the model shape" : "the rule");
    if (rule->dim < 0 || rule->dim >= KC_MAX_DIMS)
        return kc_errf(why, why_cap, "edge shapes of %s: dim %d is outside [0, %d)", name_of(model), rule->dim,
                       KC_MAX_DIMS);
    const int64_t model_v = model->d[rule->dim];
    if (rule->tile < 1)
        return kc_errf(why, why_cap, "edge shapes of %s: tile %" PRId64 " along d[%d] (expected >= 1)",
                       name_of(model), rule->tile, rule->dim);
    if (model_v < 1)
        return kc_errf(why, why_cap, "edge shapes of %s: its d[%d] is %" PRId64 " (expected >= 1 to vary)",
                       name_of(model), rule->dim, model_v);
    const int64_t lo = rule->min > 0 ? rule->min : 1, hi = rule->max > 0 ? rule->max : INT64_MAX - 1;
    if (rule->min < 0 || rule->max < 0 || lo > hi)
        return kc_errf(why, why_cap, "edge shapes of %s: bounds [%" PRId64 ", %" PRId64 "] of d[%d] (expected "
                       "0 <= min <= max, 0 meaning no bound)", name_of(model), rule->min, rule->max, rule->dim);
    int n = 0;
    while (n < cap && list[n].name) n++;
    if (n >= cap)
        return kc_errf(why, why_cap, "edge shapes of %s: the list of %d entries has no {0} terminator within it",
                       name_of(model), cap);

    /* 1 upwards; the first tile's ends and the model size's neighbours away from them. */
    const struct { int64_t start; int step; } cand[] = {
        { 1, +1 },
        { rule->tile - 1, -1 },
        { rule->tile + 1, +1 },
        { model_v - 1, -1 },
        { model_v + 1, +1 },
    };
    kc_shape fresh[sizeof cand / sizeof cand[0]];
    int added = 0, derived = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        if (cand[i].start < lo || cand[i].start > hi) continue;
        const int64_t v = nearest_kept(model, rule, cand[i].start, cand[i].step, lo, hi);
        if (!v) continue;
        derived++;
        kc_shape s = *model;
        s.cls = KC_SHAPE_EDGE;
        s.d[rule->dim] = v;
        int dup = 0;
        for (int j = 0; j < n && !dup; j++) dup = same_dims(&list[j], &s);
        for (int j = 0; j < added && !dup; j++) dup = same_dims(&fresh[j], &s);
        if (!dup) fresh[added++] = s;
    }
    /* All or nothing: the list is left as it was when it has no room. */
    if (n + added >= cap)
        return kc_errf(why, why_cap, "edge shapes of %s: the list of %d entries has room for %d more, and the rule "
                       "derives %d new ones along d[%d] (give it room for up to 5 a rule, and the {0})",
                       name_of(model), cap, cap - n - 1, added, rule->dim);
    for (int i = 0; i < added; i++) {
        char name[256];
        snprintf(name, sizeof name, "edge.%s.d%d=%" PRId64, name_of(model), rule->dim, fresh[i].d[rule->dim]);
        if (!(fresh[i].name = strdup(name))) {
            while (i--) free((char *)fresh[i].name);
            return kc_errf(why, why_cap, "edge shapes of %s: out of memory for the name %s", name_of(model), name);
        }
    }
    for (int i = 0; i < added; i++) list[n++] = fresh[i];
    memset(&list[n], 0, sizeof list[n]);
    if (!derived) {
        char top[32] = "no bound";
        if (rule->max > 0) snprintf(top, sizeof top, "%" PRId64, hi);
        return kc_errf(why, why_cap, "edge shapes of %s: no value of d[%d] off the tile %" PRId64 " within [%" PRId64
                       ", %s] %s near 1, %" PRId64 " or %" PRId64 " (the rule derives nothing)", name_of(model),
                       rule->dim, rule->tile, lo, top, rule->keep ? "meets its predicate" : "lies", rule->tile,
                       model_v);
    }
    return added;
}

void kc_derive_edges(kc_shape *list, int cap, int model, const kc_edge_rule *rule, const char *what)
{
    char why[400];
    int n = 0;
    while (list && n < cap && list[n].name) n++;
    if (!list || model < 0 || model >= n) {
        kc_prog_set_before_main();      /* a constructor's refusal: the binary's own name, not "kcontract" */
        kc_say(stderr, "edge shapes of %s: model index %d is not an entry of the list (it has %d)\n",
               what ? what : "(unnamed)", model, n);
        exit(2);
    }
    if (kc_edge_shapes(list, cap, &list[model], rule, why, sizeof why) < 0) {
        kc_prog_set_before_main();
        kc_say(stderr, "%s: %s\n", what ? what : "(unnamed)", why);
        exit(2);
    }
}
