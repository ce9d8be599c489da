/* sanitize_batch.h — the sanitizer gate over several :sanitize items at once
 * (sanitize_batch.c): racecheck in batches. */
#ifndef KC_SANITIZE_BATCH_H
#define KC_SANITIZE_BATCH_H
#include "item.h"
#include "result.h"
#include "run_options.h"
#include "sanitize_session.h"

/* The sanitizer gate for n :sanitize items at once (n <= KC_SAN_BATCH_ITEMS,
 * sanitize_target.h), their verdicts into outs[0..n): memcheck for each,
 * then racecheck for those whose racecheck runs on their edge shapes in one
 * batch request (kc_run_batch_launches: half the wall of one a request on an
 * H100), then initcheck and synccheck for each. A batch's clean window
 * stands for every item of it; any report, failure, time limit or end of
 * the session sends each item of it to racecheck alone, which decides it,
 * and reports of the batch that the items' runs alone do not account for
 * (kc_sanitizer_unmatched, kc_sanitizer_count: each report of theirs
 * accounts for one) FAIL every one not failed by its own run (as a report
 * out of order does in a session, sanitize_session.h).
 * Controls are never in a batch (their sessions are their own,
 * kc_sanitize_item). Without a pool, with n == 1, with a control among
 * them, or with KC_SANITIZE_BATCH=0 (kc_san_batches_on): kc_sanitize_item
 * for each in turn. Each result's seconds: the item's own tool runs, and an
 * equal share of its batch request's wall. */
void kc_sanitize_batch(const kc_item *const *its, int n, const kc_opts *o, kc_san_pool *pool, kc_item_result *outs);
#endif
