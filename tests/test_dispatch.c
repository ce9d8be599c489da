/* test_dispatch.c — the work queue's dispatch policy (run/dispatch.h) and its
 * workers' phases (run/worker_phase.h), on queues built in memory, one test
 * per rule: a serial run's order, the
 * memory admission (wait, or alone), the worker's-last-contract preference,
 * which items a worker wants first (sanitizer sessions kept together, when
 * another worker joins the holders, when one waits), the sanitizer's
 * controls first for a holder, and a holder's batch of :sanitize items. No processes, no clock. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "dispatch.h"
#include "worker_phase.h"

static kc_contract ca, cb, cc;      /* only their addresses matter */

#define NI 8
#define NW 4
typedef struct fixture {
    kc_dispatch_item it[NI];
    kc_dispatch_worker w[NW];
    kc_admit adm;
    kc_dispatch d;
} fixture;

/* n items of contract `c`, 1 s each, 1 byte of host and GPU; nw workers on
 * device slot 0; budgets unknown (everything fits); sessions on. */
static void setup(fixture *f, int n, int nw)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < n; i++) {
        f->it[i].contract = &ca;
        f->it[i].cost = 1;
        f->it[i].host = f->it[i].gpu = 1;
    }
    f->adm.host_budget = SIZE_MAX;
    f->adm.ndevs = 1;
    f->adm.gpu_budget[0] = SIZE_MAX;
    f->d = (kc_dispatch){ .items = f->it, .nitems = n, .workers = f->w, .nworkers = nw, .adm = &f->adm,
                          .sessions_on = 1, .session_start_s = 5 };
}

static void sanitizer(fixture *f, int i, int control, double cost)
{
    f->it[i].sanitizer = 1;
    f->it[i].sanitizer_control = control;
    f->it[i].cost = cost;
}

Test(dispatch, pending_counts_items_not_handed_out)
{
    fixture f;
    setup(&f, 5, 1);
    cr_expect_eq(kc_dispatch_pending(&f.d), 5);
    f.it[1].dispatched = f.it[4].dispatched = 1;
    cr_expect_eq(kc_dispatch_pending(&f.d), 3, "items 1 and 4 were handed out");
}

Test(dispatch, serial_takes_the_selection_order_only)
{
    fixture f;
    setup(&f, 4, 1);
    f.it[0].dispatched = 1;
    f.it[1].contract = &cb;
    f.w[0].last = &ca;                      /* a preference a --jobs worker would follow */
    sanitizer(&f, 2, 1, 100);               /* and a sanitizer control it would take first */
    f.adm.host_budget = 0;                  /* and memory that fits nothing */
    f.d.serial = 1;
    int alone = -1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 1, "serial: the first item not handed out");
    cr_expect_eq(alone, 0);
    for (int i = 0; i < 4; i++) f.it[i].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "nothing left");
}

Test(dispatch, first_in_order_without_a_last_contract)
{
    fixture f;
    setup(&f, 3, 2);
    f.it[0].contract = &cb;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "a fresh worker takes the queue's first item");
    cr_expect_eq(alone, 0);
}

Test(dispatch, prefers_the_contract_of_its_last_item)
{
    fixture f;
    setup(&f, 4, 2);
    f.it[0].contract = &cb;
    f.it[1].contract = &cc;
    f.it[2].contract = &ca;
    f.it[3].contract = &ca;
    f.w[0].last = &ca;
    f.w[1].last = &cc;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 2, "worker 0's inputs of contract a are on its GPU");
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 1, "worker 1's of contract c");
    f.it[2].dispatched = f.it[3].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "none of its contract left: the queue's first");
}

Test(dispatch, waits_for_memory_and_skips_what_does_not_fit)
{
    fixture f;
    setup(&f, 3, 2);
    f.adm.host_budget = 10;
    f.adm.gpu_budget[0] = 10;
    f.it[0].host = 8;                       /* fits the budget, not beside what runs */
    f.it[1].gpu = 9;
    f.it[2].host = 2;
    kc_admit_take(&f.adm, 0, 4, 4);         /* another item runs: host 4, GPU 4 */
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 2, "items 0 (host 12 > 10) and 1 (GPU 13 > 10) wait");
    cr_expect_eq(alone, 0);
    f.it[2].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "nothing pending fits: the worker waits");
    kc_admit_release(&f.adm, 0, 4, 4);
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "once it ended, item 0 fits");
}

Test(dispatch, an_item_that_never_fits_runs_alone)
{
    fixture f;
    setup(&f, 2, 2);
    f.adm.host_budget = 10;
    f.it[0].host = 50;                      /* more than the whole budget */
    kc_admit_take(&f.adm, 0, 1, 1);
    int alone = -1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 1, "item 0 waits while another item runs");
    kc_admit_release(&f.adm, 0, 1, 1);
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "then it runs");
    cr_expect_eq(alone, 1, "alone");
    kc_admit_take(&f.adm, 0, 50, 1);
    f.it[0].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), -1, "nothing beside an item that runs alone");
}

/* A worker's compute-sanitizer sessions hold host memory until it ends
 * (kc_admit_sessions): a worker without them needs room for them beside its
 * first sanitizer item, and while another worker holds sessions an item
 * they would not fit beside is left to that holder, never run alone. */
Test(dispatch, a_sanitizer_item_needs_room_for_the_sessions_it_starts)
{
    fixture f;
    setup(&f, 2, 2);
    sanitizer(&f, 0, 0, 1);                 /* item 0 runs the sanitizer, item 1 does not */
    f.adm.host_budget = 10;
    f.adm.sessions_host = 6;
    f.it[0].host = f.it[1].host = 2;
    kc_admit_take(&f.adm, 0, 3, 1);         /* another item runs: host 3 */
    int alone;
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 0, KC_WANT_ANY, &alone), 1,
                 "item 0 needs 2 + 6 for its sessions beside 3 (11 > 10): item 1 goes first");
    kc_admit_release(&f.adm, 0, 3, 1);
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 0, KC_WANT_ANY, &alone), 0, "8 of 10 once the other ended");
    cr_expect_eq(alone, 0);
    /* worker 0 took it and holds its sessions now */
    f.w[0].sessions = 1;
    kc_admit_sessions(&f.adm, 0, 1);
    cr_expect_eq(f.adm.host_used, 6);
    f.it[0].dispatched = 1;
    sanitizer(&f, 1, 0, 1);
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 1, KC_WANT_ANY, &alone), -1,
                 "worker 1 would start sessions of its own (6 + 6 + 2 > 10): left to the holder");
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 0, KC_WANT_ANY, &alone), 1, "the holder needs only the item's 2");
    cr_expect_eq(alone, 0);
    /* the holder's process ended: its sessions' memory is free again */
    f.w[0].sessions = 0;
    kc_admit_sessions(&f.adm, 0, 0);
    cr_expect_eq(f.adm.host_used, 0);
    cr_expect_eq(f.adm.sessions_held, 0);
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 1, KC_WANT_ANY, &alone), 1, "no holder left: 8 of 10");
}

/* The same with GPU memory: a worker without sessions needs room on its
 * device for the GPU share of those it would start (kc_admit.sessions_gpu). */
Test(dispatch, a_sanitizer_item_needs_gpu_room_for_the_sessions_it_starts)
{
    fixture f;
    setup(&f, 2, 2);
    sanitizer(&f, 0, 0, 1);
    f.adm.gpu_budget[0] = 10;
    f.adm.sessions_gpu[0] = 6;
    f.it[0].gpu = f.it[1].gpu = 2;
    kc_admit_take(&f.adm, 0, 1, 3);         /* another item runs: GPU 3 */
    int alone;
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 0, KC_WANT_ANY, &alone), 1, "2 + 6 beside 3 (11 > 10): item 1 first");
    kc_admit_release(&f.adm, 0, 1, 3);
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 0, KC_WANT_ANY, &alone), 0, "8 of 10 once the other ended");
    cr_expect_eq(alone, 0);
    /* worker 1 holds sessions (6 of 10 held): worker 0's own would not fit beside them, on GPU grounds alone */
    f.w[1].sessions = 1;
    kc_admit_sessions(&f.adm, 0, 1);
    cr_expect_eq(f.adm.host_used, 0, "no host share here");
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 0, KC_WANT_ANY, &alone), 1, "2 + 6 beside 6: left to the holder");
    cr_expect_eq(kc_dispatch_next_of_kind(&f.d, 1, KC_WANT_ANY, &alone), 0, "the holder: 2 beside its 6");
    cr_expect_eq(alone, 0);
}

/* The same rule on the two paths that take an item before the others: a
 * solo item (put back from a worker's lanes) and the items put back to run
 * alone at the end. Before, both took it on a worker without sessions
 * beside a holder's, past the budget. */
Test(dispatch, a_solo_or_rerun_alone_sanitizer_item_goes_to_the_holder)
{
    fixture f;
    setup(&f, 2, 2);
    sanitizer(&f, 0, 0, 1);
    f.adm.host_budget = 10;
    f.adm.sessions_host = 6;
    f.it[0].host = 2;
    f.w[1].sessions = 1;
    kc_admit_sessions(&f.adm, 0, 1);           /* worker 1 holds sessions: 6 of 10 */
    f.it[0].solo = 1;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 1, "worker 0 would need 2 + 6 beside 6: not the solo item");
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 0, "the holder takes it (2 beside its 6)");
    cr_expect_eq(alone, 0);
    f.it[0].solo = 0;
    f.it[0].rerun_alone = 1;
    f.it[1].dispatched = 1;                 /* only the item put back is left */
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "not beside the holder's sessions on worker 0");
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 0, "the holder runs it alone");
    cr_expect_eq(alone, 1);
    f.it[0].sanitizer = 0;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "an item that does not run the sanitizer: any worker");
}

Test(dispatch, only_a_disturbed_timeout_or_crash_runs_again_alone_once)
{
    fixture f;
    setup(&f, 2, 2);
    cr_expect(kc_dispatch_rerun_alone(&f.d, 0, KC_TIMEOUT, 1), "TIMEOUT beside a fault");
    cr_expect(kc_dispatch_rerun_alone(&f.d, 0, KC_CRASH, 1), "CRASH beside a fault");
    cr_expect(!kc_dispatch_rerun_alone(&f.d, 0, KC_TIMEOUT, 0), "no fault beside it: its own verdict");
    cr_expect(!kc_dispatch_rerun_alone(&f.d, 0, KC_FAIL, 1), "a verdict its worker reported stands");
    cr_expect(!kc_dispatch_rerun_alone(&f.d, 0, KC_PASS, 1), "a verdict its worker reported stands");
    f.it[0].rerun_alone = 1;
    cr_expect(!kc_dispatch_rerun_alone(&f.d, 0, KC_TIMEOUT, 1), "it ran alone already: that verdict decides");
    f.it[1].rerun_alone = 0;
    f.d.serial = 1;
    cr_expect(!kc_dispatch_rerun_alone(&f.d, 1, KC_TIMEOUT, 1), "a serial run has no neighbours");
}

Test(dispatch, an_item_put_back_goes_last_once_no_worker_is_busy_and_alone)
{
    fixture f;
    setup(&f, 3, 2);
    f.it[0].rerun_alone = 1;                 /* put back: not dispatched */
    int alone = -1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 1, "the others first, in the queue's order");
    cr_expect_eq(alone, 0, "not alone");
    f.it[1].dispatched = 1;
    f.d.busy = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 2, "while one is busy, the next other item");
    f.it[2].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), -1, "only the put-back item is left: it waits for the busy worker");
    f.d.busy = 0;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "then it goes");
    cr_expect_eq(alone, 1, "alone");
    f.it[0].dispatched = 1;
    f.d.alone_running = 1;
    f.d.busy = 1;
    f.it[2].dispatched = 0;                  /* say another item came back */
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), -1, "nothing beside it");
}

/* Serially too (a clean :sanitize verdict whose worker ended under a later
 * item, queue_vouch.c): before, the serial order took it back at once, and
 * each later crash sent it to run again once more. */
Test(dispatch, serially_an_item_put_back_goes_last_too)
{
    fixture f;
    setup(&f, 3, 1);
    f.d.serial = 1;
    f.it[0].rerun_alone = 1;                 /* put back: not dispatched */
    f.it[1].dispatched = 1;
    int alone = -1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 2, "the other items first");
    cr_expect_eq(alone, 0, "not alone");
    f.it[2].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "then the put-back item");
    cr_expect_eq(alone, 1, "alone");
}

Test(dispatch, a_worker_with_items_in_flight_takes_only_items_that_may_go_beside_them)
{
    fixture f;
    setup(&f, 4, 2);
    f.it[0].shares = 0;             /* a library kernel: alone */
    f.it[1].shares = f.it[2].shares = f.it[3].shares = 1;
    f.w[0].inflight = 2;
    int alone, j = kc_dispatch_next(&f.d, 0, &alone);
    cr_expect_eq(j, 1, "item 0 may not go beside items in flight: got %d", j);
    f.it[1].dispatched = f.it[2].dispatched = f.it[3].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "only item 0 is left, and worker 0 has items in flight");
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 0, "worker 1 has nothing in flight: it takes item 0");
    f.w[1].alone = 1;
    f.w[1].inflight = 1;
    f.it[1].dispatched = 0;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), -1, "nothing goes beside an item that runs alone");
}

/* A holder with :sanitize items of a batch in flight takes more of them and
 * nothing else (a control planted for the sanitizer, an item that shares);
 * a worker with items that share in flight takes none of them; an empty
 * worker takes any. */
Test(dispatch, a_worker_with_a_batch_in_flight_takes_only_more_of_the_batch)
{
    fixture f;
    setup(&f, 5, 2);
    sanitizer(&f, 0, 1, 1);         /* a control planted for the sanitizer: never in a batch */
    sanitizer(&f, 1, 0, 1);
    sanitizer(&f, 2, 0, 1);
    f.it[1].batch = f.it[2].batch = 1;
    f.it[3].shares = f.it[4].shares = 1;
    f.w[0].sessions = 1;
    f.w[0].inflight = f.w[0].batch = 1;
    int alone, j = kc_dispatch_next(&f.d, 0, &alone);
    cr_expect_eq(j, 1, "beside its batch the holder takes the next :sanitize item, not the control: got %d", j);
    f.it[1].dispatched = f.it[2].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "no batch item left: the holder takes nothing beside its batch");
    f.it[1].dispatched = f.it[2].dispatched = 0;
    f.w[1].inflight = 1;            /* items that share in flight */
    f.it[3].dispatched = 1;
    j = kc_dispatch_next(&f.d, 1, &alone);
    cr_expect_eq(j, 4, "beside items that share, an item that shares, never a batch item: got %d", j);
    f.it[4].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), -1, "only sanitizer items left: none goes beside items that share");
    f.w[0].inflight = f.w[0].batch = 0;
    j = kc_dispatch_next(&f.d, 0, &alone);
    cr_expect_eq(j, 0, "an empty holder takes the control first: got %d", j);
    f.w[0].inflight = 1;
    f.w[0].batch = 0;               /* the control runs alone */
    f.w[0].alone = 1;
    f.it[0].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "nothing beside the control");
    f.w[0].alone = 0;
    f.w[0].batch = 1;
    f.w[0].inflight = 2;            /* a batch item beside something else: the queue's bug, but no more */
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "a batch joins only a worker whose items in flight are all of it");
    f.it[2].solo = 1;
    f.w[0].inflight = f.w[0].batch = 1;
    j = kc_dispatch_next(&f.d, 0, &alone);
    cr_expect_eq(j, 1, "a solo :sanitize item never joins a batch: got %d", j);
}

Test(dispatch, a_solo_item_goes_first_to_a_worker_with_nothing_in_flight)
{
    fixture f;
    setup(&f, 3, 2);
    for (int i = 0; i < 3; i++) f.it[i].shares = 1;
    f.it[2].solo = 1;               /* put back from a worker's lanes, undecided */
    f.w[0].inflight = 1;
    f.d.busy = 1;
    int alone, j = kc_dispatch_next(&f.d, 0, &alone);
    cr_expect_eq(j, 0, "worker 0 has an item in flight: not the solo item, got %d", j);
    j = kc_dispatch_next(&f.d, 1, &alone);
    cr_expect_eq(j, 2, "an idle worker takes the solo item first, without waiting for busy workers: got %d", j);
    f.d.serial = 1;
    f.it[0].dispatched = f.it[1].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "serially too, the solo item waits for a worker with nothing in flight");
}

Test(dispatch, wants_any_without_sanitizer_items_or_sessions)
{
    fixture f;
    setup(&f, 3, 2);
    cr_expect_eq(kc_dispatch_wants(&f.d, 0), KC_WANT_ANY, "no sanitizer item pending");
    sanitizer(&f, 1, 0, 10);
    f.d.sessions_on = 0;
    cr_expect_eq(kc_dispatch_wants(&f.d, 0), KC_WANT_ANY, "sessions off (KC_SANITIZE_SESSIONS=0)");
    f.d.sessions_on = 1;
    f.it[1].dispatched = 1;
    cr_expect_eq(kc_dispatch_wants(&f.d, 0), KC_WANT_ANY, "the sanitizer item was handed out");
}

Test(dispatch, wants_sanitizer_for_a_holder_or_when_none_holds)
{
    fixture f;
    setup(&f, 3, 3);
    sanitizer(&f, 2, 0, 1);
    cr_expect_eq(kc_dispatch_wants(&f.d, 0), KC_WANT_SANITIZER, "no worker holds sessions: the first to ask starts them");
    f.w[1].sessions = 1;
    cr_expect_eq(kc_dispatch_wants(&f.d, 1), KC_WANT_SANITIZER, "a holder keeps taking them");
    cr_expect_eq(kc_dispatch_wants(&f.d, 0), KC_WANT_OTHER,
                 "1 s of sanitizer work on one holder, 2 s of other work on 2 workers: worker 0 stays off");
}

Test(dispatch, another_worker_joins_the_holders_only_when_their_share_is_larger)
{
    fixture f;
    setup(&f, 6, 4);                        /* items 0-1 other work, 2-5 the sanitizer's */
    for (int i = 2; i < 6; i++) sanitizer(&f, i, 0, 10);
    f.w[0].sessions = 1;
    /* theirs: 40 s on 1 holder; ours: 2 s on 3 workers; 40 > 0.67 and 40 > 5 s */
    cr_expect_eq(kc_dispatch_wants(&f.d, 1), KC_WANT_SANITIZER);
    f.w[1].sessions = f.w[2].sessions = 1;
    for (int i = 2; i < 6; i++) f.it[i].cost = 3;
    /* theirs: 12 s on 3 holders = 4 s, under a session start of 5 s */
    cr_expect_eq(kc_dispatch_wants(&f.d, 3), KC_WANT_OTHER, "4 s each is less than a session start");
    f.d.session_start_s = 1;
    f.it[0].cost = f.it[1].cost = 3;
    /* theirs 4 s, ours 6 s on one worker: not larger */
    cr_expect_eq(kc_dispatch_wants(&f.d, 3), KC_WANT_OTHER, "the others' share (6 s) is larger");
    f.it[0].dispatched = f.it[1].dispatched = 1;
    cr_expect_eq(kc_dispatch_wants(&f.d, 3), KC_WANT_SANITIZER, "no other work left: theirs 4 s > 0 s and > 1 s");
    f.d.session_start_s = 5;
    cr_expect_eq(kc_dispatch_wants(&f.d, 3), KC_WANT_NONE, "only the holders' items left, too few to start sessions for");
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 3, &alone), -1, "so it waits");
}

Test(dispatch, a_holder_takes_the_sanitizer_controls_first)
{
    fixture f;
    setup(&f, 5, 2);
    sanitizer(&f, 1, 0, 1);
    sanitizer(&f, 2, 0, 1);
    sanitizer(&f, 3, 1, 1);
    f.it[3].contract = &cb;
    f.w[0].sessions = 1;
    f.w[0].last = &ca;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 3,
                 "the control planted for the sanitizer, before items of its last contract");
    f.it[3].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 1, "then the sanitizer's items in order");
    f.it[1].dispatched = f.it[2].dispatched = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "no sanitizer item left: any item");
}

/* Sessions are started ahead for the controls planted for the sanitizer:
 * on the only worker, for those among its next KC_DISPATCH_AHEAD_ITEMS
 * items in order (the item it takes counted), up to a control planted for
 * gate 1; of several workers, for one, on a worker whose item runs the
 * sanitizer while one is pending. */
Test(dispatch, sessions_start_ahead_for_the_sanitizer_controls_coming_soon)
{
    fixture f;
    setup(&f, 6, 1);
    sanitizer(&f, 2, 1, 1);
    sanitizer(&f, 4, 1, 1);
    cr_expect_eq(kc_dispatch_ahead(&f.d, 0), 2, "the only worker, two controls among its next items");
    f.it[0].dispatched = f.it[1].dispatched = 1;
    cr_expect_eq(kc_dispatch_ahead(&f.d, 2), 2, "the control itself counts: it takes the first");
    f.it[2].dispatched = 1;
    cr_expect_eq(kc_dispatch_ahead(&f.d, 3), 1, "one left");
    f.it[3].fault_control = 1;
    cr_expect_eq(kc_dispatch_ahead(&f.d, 3), 0, "the item it takes may lose the context: none after it");
    f.it[3].fault_control = 0;
    f.it[1].dispatched = f.it[2].dispatched = 0;
    f.it[1].fault_control = 1;
    cr_expect_eq(kc_dispatch_ahead(&f.d, 0), 0, "none past a control planted for gate 1");
    f.it[1].fault_control = 0;
    for (int i = 0; i < 6; i++) f.it[i].dispatched = i < 5;
    cr_expect_eq(kc_dispatch_ahead(&f.d, 5), 0, "no control pending");
    for (int i = 0; i < 6; i++) f.it[i].dispatched = 0;
    f.d.sessions_on = 0;
    cr_expect_eq(kc_dispatch_ahead(&f.d, 0), 0, "KC_SANITIZE_SESSIONS=0: every tool alone, nothing ahead");
    setup(&f, 4, 2);
    sanitizer(&f, 1, 0, 1);
    sanitizer(&f, 3, 1, 1);
    cr_expect_not(kc_dispatch_ahead(&f.d, 0), "of two workers, one whose item runs no sanitizer");
    cr_expect_eq(kc_dispatch_ahead(&f.d, 1), 1, "one whose item runs it, a control pending");
    f.it[3].dispatched = 1;
    cr_expect_not(kc_dispatch_ahead(&f.d, 1), "no control pending");
}

/* A serial run's standby starts sessions for the controls planted for the
 * sanitizer past the first pending control planted for gate 1 (it takes
 * the worker's place there), up to the next one; none with several
 * workers, without sessions, or with no such control pending. */
Test(dispatch, the_standby_starts_sessions_for_the_controls_past_the_next_fault)
{
    fixture f;
    setup(&f, 8, 1);
    sanitizer(&f, 1, 1, 1);     /* the worker's: before the fault */
    f.it[3].fault_control = 1;
    sanitizer(&f, 4, 1, 1);
    sanitizer(&f, 5, 1, 1);
    f.it[6].fault_control = 1;
    sanitizer(&f, 7, 1, 1);     /* past the second fault: the next standby's */
    cr_expect_eq(kc_dispatch_ahead_past_fault(&f.d), 2, "the two controls between the first fault and the second");
    cr_expect_eq(kc_dispatch_ahead(&f.d, 0), 1, "the worker's own count stops at the fault: none counted twice");
    for (int i = 0; i <= 3; i++) f.it[i].dispatched = 1;
    cr_expect_eq(kc_dispatch_ahead_past_fault(&f.d), 1, "the first fault handed out: past the next one");
    f.it[6].dispatched = 1;
    cr_expect_eq(kc_dispatch_ahead_past_fault(&f.d), 0, "no fault pending");
    for (int i = 0; i < 8; i++) f.it[i].dispatched = 0;
    f.d.sessions_on = 0;
    cr_expect_eq(kc_dispatch_ahead_past_fault(&f.d), 0, "KC_SANITIZE_SESSIONS=0");
    setup(&f, 8, 2);
    f.it[3].fault_control = 1;
    sanitizer(&f, 4, 1, 1);
    cr_expect_eq(kc_dispatch_ahead_past_fault(&f.d), 0, "several workers: no standby");
}

/* The only worker looks KC_DISPATCH_AHEAD_ITEMS items ahead, no further. */
Test(dispatch, sessions_start_ahead_within_a_window_of_items)
{
    static kc_dispatch_item many[KC_DISPATCH_AHEAD_ITEMS + 3];
    fixture f;
    setup(&f, 1, 1);
    memset(many, 0, sizeof many);
    f.d.items = many;
    f.d.nitems = KC_DISPATCH_AHEAD_ITEMS + 3;
    many[KC_DISPATCH_AHEAD_ITEMS].sanitizer = many[KC_DISPATCH_AHEAD_ITEMS].sanitizer_control = 1;
    many[KC_DISPATCH_AHEAD_ITEMS + 1].sanitizer = many[KC_DISPATCH_AHEAD_ITEMS + 1].sanitizer_control = 1;
    cr_expect_eq(kc_dispatch_ahead(&f.d, 0), 1, "item %d is within the window, the one after it is not",
                 KC_DISPATCH_AHEAD_ITEMS);
    many[0].dispatched = 1;
    cr_expect_eq(kc_dispatch_ahead(&f.d, 1), 2, "one item on, both are");
}

Test(dispatch, at_most_the_limit_of_sanitizer_controls_run_at_once)
{
    fixture f;
    setup(&f, 5, 4);
    for (int i = 0; i < 4; i++) sanitizer(&f, i, 1, 2);
    f.d.san_controls_max = 2;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "the first control");
    kc_dispatch_took(&f.d, 0);
    f.w[0].sessions = 1;
    cr_expect(f.it[0].dispatched && f.d.san_controls_running == 1, "taking it counts it: %d", f.d.san_controls_running);
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 1, "a second control beside it: the limit is 2");
    kc_dispatch_took(&f.d, 1);
    f.w[1].sessions = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 2, &alone), 4, "two run: the next worker takes the other item, not a control");
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 4, "a holder too: no third control at once");
    kc_dispatch_took(&f.d, 4);
    cr_expect_eq(f.d.san_controls_running, 2, "the other item is no control");
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "only controls left, two running: the holder waits");
    kc_dispatch_released(&f.d, 1);          /* one ended */
    cr_expect_eq(f.d.san_controls_running, 1);
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 2, "one ended: the next control");
    f.d.san_controls_max = 0;
    kc_dispatch_took(&f.d, 2);
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 3, "no limit set: any number");
}

Test(dispatch, one_control_planted_for_gate_1_runs_at_a_time)
{
    fixture f;
    setup(&f, 4, 3);
    f.it[0].fault_control = f.it[1].fault_control = 1;
    f.d.fault_controls_max = 1;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "the first control");
    kc_dispatch_took(&f.d, 0);
    cr_expect_eq(f.d.fault_controls_running, 1, "taking it counts it");
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 2, "not the second control beside it: the next item");
    kc_dispatch_took(&f.d, 2);
    cr_expect_eq(f.d.fault_controls_running, 1, "the other item is no control");
    cr_expect_eq(kc_dispatch_next(&f.d, 2, &alone), 3, "still not the control");
    kc_dispatch_took(&f.d, 3);
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), -1, "only the control left, one running: the worker waits");
    kc_dispatch_released(&f.d, 0);
    cr_expect_eq(f.d.fault_controls_running, 0);
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 1, "the first ended: the second control");
}

/* A lost context's teardown (its worker has reported the loss and not yet
 * ended) counts as a control planted for gate 1 running: on an H100 the
 * next such control, started 20 ms after the last one's loss, lost its own
 * context making an input (fault_spans.h). */
Test(dispatch, a_control_planted_for_gate_1_waits_for_a_lost_context_to_be_torn_down)
{
    fixture f;
    setup(&f, 3, 2);
    f.it[0].fault_control = 1;
    f.d.fault_controls_max = 1;
    f.d.teardowns = 1;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 1, "a context is being torn down: not the control, the next item");
    kc_dispatch_took(&f.d, 1);
    f.d.teardowns = 0;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 0, "its worker ended: the control");
}

/* A solo item (put back from a worker's lanes after a loss there) waits
 * for the lost context's teardown: its run alone in its worker could lose
 * its context to that teardown and keep the verdict (a review's find). */
Test(dispatch, a_solo_item_waits_for_a_lost_context_to_be_torn_down)
{
    fixture f;
    setup(&f, 2, 2);
    f.d.lanes = 1;
    f.it[0].shares = f.it[1].shares = 1;
    f.it[1].solo = 1;
    f.d.teardowns = 1;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "a context is being torn down: the solo item waits");
    kc_dispatch_took(&f.d, 0);
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), -1, "nothing else to take: the empty worker waits too");
    f.d.teardowns = 0;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 1, "its worker ended: the solo item");
}

/* An item put back to run alone runs with nothing beside it: not while a
 * lost context is still being torn down (found by a review: its run alone
 * started 50 ms after another worker's loss and kept its verdict). */
Test(dispatch, an_item_put_back_to_run_alone_waits_for_a_lost_context_to_be_torn_down)
{
    fixture f;
    setup(&f, 2, 2);
    kc_dispatch_took(&f.d, 1);
    kc_dispatch_released(&f.d, 1);
    f.it[0].rerun_alone = 1;
    f.d.teardowns = 1;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), -1, "a context is being torn down: it waits");
    f.d.teardowns = 0;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "its worker ended: it runs alone");
    cr_expect_eq(alone, 1);
}

Test(dispatch, an_empty_worker_takes_a_control_planted_for_gate_1_before_longer_items)
{
    fixture f;
    setup(&f, 5, 3);
    f.it[0].cost = f.it[1].cost = 9;        /* the queue's order: longest first */
    f.it[3].fault_control = f.it[4].fault_control = 1;
    f.d.fault_controls_max = 1;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 3, "the first control planted for gate 1, ahead of items 0-2");
    kc_dispatch_took(&f.d, 3);
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 0, "one such control runs: the queue's order again");
    kc_dispatch_released(&f.d, 3);
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 4, "it ended: the next control first");
    sanitizer(&f, 2, 0, 1);
    f.w[2].sessions = 1;
    cr_expect_eq(kc_dispatch_wants(&f.d, 2), KC_WANT_SANITIZER);
    cr_expect_eq(kc_dispatch_next(&f.d, 2, &alone), 2, "a holder of sessions takes the sanitizer's item, not the control");
}

Test(dispatch, with_lanes_an_empty_worker_takes_an_item_that_may_not_share_first)
{
    fixture f;
    setup(&f, 4, 2);
    for (int i = 0; i < 4; i++) f.it[i].shares = 1;
    f.it[2].shares = f.it[3].shares = 0;    /* a suite and a library kernel: each needs an empty worker */
    f.it[0].cost = 9;
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "without lanes, the queue's order");
    f.d.lanes = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 2, "with lanes, the first item that may not share");
    f.it[3].fault_control = 1;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 3, "a control planted for gate 1 before it");
    f.it[3].fault_control = 0;
    f.w[1].inflight = 2;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 0, "a worker with items in flight takes only shares");
    f.adm.host_budget = 10;                 /* 8 bytes used: the first does not fit now, the next that may not share */
    kc_admit_take(&f.adm, 0, 8, 0);
    f.it[2].host = 5;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 3);
    f.it[3].host = 5;
    cr_expect_eq(kc_dispatch_next(&f.d, 0, &alone), 0, "none fits now: the shares, in the queue's order");
}

Test(dispatch, taking_and_releasing_an_item_put_back_alone_holds_the_others)
{
    fixture f;
    setup(&f, 2, 2);
    f.it[0].rerun_alone = 1;
    kc_dispatch_took(&f.d, 0);
    cr_expect(f.d.alone_running, "an item put back to run alone is running");
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), -1, "nothing beside it");
    kc_dispatch_released(&f.d, 0);
    cr_expect(!f.d.alone_running);
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 1, "released: the rest goes on");
}

Test(dispatch, a_worker_wanting_other_items_falls_back_to_any)
{
    fixture f;
    setup(&f, 3, 2);
    for (int i = 0; i < 3; i++) sanitizer(&f, i, 0, 1);
    f.it[2].sanitizer = 0;                  /* the one other item ... */
    f.it[2].host = 100;                     /* ... does not fit */
    f.adm.host_budget = 10;
    kc_admit_take(&f.adm, 0, 1, 1);
    f.w[0].sessions = 1;
    cr_expect_eq(kc_dispatch_wants(&f.d, 1), KC_WANT_OTHER);
    int alone;
    cr_expect_eq(kc_dispatch_next(&f.d, 1, &alone), 0, "no other item fits now: it takes a sanitizer item");
}

/* ---- the worker's phases (worker_phase.h) ---- */

Test(worker_phase, the_protocol_path_and_its_ends)
{
    kc_worker_phase p = KC_WK_GONE;
    const kc_worker_phase path[] = { KC_WK_STARTING, KC_WK_IDLE, KC_WK_RUNNING, KC_WK_SEALING, KC_WK_IDLE,
                                     KC_WK_RUNNING, KC_WK_SEALING, KC_WK_RETIRING, KC_WK_GONE, KC_WK_STARTING };
    for (size_t i = 0; i < sizeof path / sizeof path[0]; i++)
        cr_expect_eq(kc_worker_phase_set(&p, path[i]), 0, "step %zu: to %s", i, kc_worker_phase_name(path[i]));
    cr_expect_eq(p, KC_WK_STARTING);
    for (int q = 1; q < KC_WK_PHASES; q++)
        cr_expect(kc_worker_phase_may((kc_worker_phase)q, KC_WK_GONE), "%s ends in GONE", kc_worker_phase_name(q));
    cr_expect(!kc_worker_phase_may(KC_WK_GONE, KC_WK_GONE), "GONE does not end twice");
}

Test(worker_phase, refused_changes_leave_the_phase)
{
    struct { kc_worker_phase from, to; const char *why; } bad[] = {
        { KC_WK_GONE, KC_WK_IDLE, "a slot is started before it is ready" },
        { KC_WK_STARTING, KC_WK_RUNNING, "no item before READY" },
        { KC_WK_IDLE, KC_WK_SEALING, "no DONE without an item" },
        { KC_WK_RUNNING, KC_WK_IDLE, "no result before DONE and the nonce" },
        { KC_WK_TIMED_OUT, KC_WK_IDLE, "a timed-out item's result does not count" },
        { KC_WK_VIOLATED, KC_WK_SEALING, "nothing a violator says counts" },
        { KC_WK_LATE, KC_WK_IDLE, "a late READY does not count" },
        { KC_WK_RETIRING, KC_WK_RUNNING, "a retiring worker gets no item" },
        { KC_WK_IDLE, KC_WK_TIMED_OUT, "no time limit without an item" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kc_worker_phase p = bad[i].from;
        cr_expect_eq(kc_worker_phase_set(&p, bad[i].to), -1, "%s -> %s: %s", kc_worker_phase_name(bad[i].from),
                     kc_worker_phase_name(bad[i].to), bad[i].why);
        cr_expect_eq(p, bad[i].from, "refused: the phase stays %s", kc_worker_phase_name(bad[i].from));
    }
    cr_expect_str_eq(kc_worker_phase_name((kc_worker_phase)99), "?");
    cr_expect(!kc_worker_phase_may((kc_worker_phase)99, KC_WK_GONE), "out of range");
}

Test(worker_phase, a_time_limit_or_a_violation_stops_an_item_in_flight)
{
    const kc_worker_phase inflight[] = { KC_WK_RUNNING, KC_WK_SEALING };
    for (int i = 0; i < 2; i++) {
        cr_expect(kc_worker_phase_may(inflight[i], KC_WK_TIMED_OUT), "%s", kc_worker_phase_name(inflight[i]));
        cr_expect(kc_worker_phase_may(inflight[i], KC_WK_VIOLATED), "%s", kc_worker_phase_name(inflight[i]));
        cr_expect(kc_worker_phase_has_item(inflight[i]));
    }
    cr_expect(kc_worker_phase_has_item(KC_WK_TIMED_OUT), "its end settles the item as TIMEOUT");
    cr_expect(!kc_worker_phase_has_item(KC_WK_IDLE));
    cr_expect(!kc_worker_phase_has_item(KC_WK_RETIRING), "its last item was settled by its result");
    cr_expect(kc_worker_phase_may(KC_WK_STARTING, KC_WK_LATE));
    cr_expect(!kc_worker_phase_may(KC_WK_IDLE, KC_WK_LATE), "only a worker not ready yet can be late");
}

Test(worker_phase, only_a_worker_whose_input_closed_can_be_overdue)
{
    cr_expect(kc_worker_phase_may(KC_WK_IDLE, KC_WK_OVERDUE), "at the run's end");
    cr_expect(kc_worker_phase_may(KC_WK_RETIRING, KC_WK_OVERDUE), "after a loss");
    cr_expect(!kc_worker_phase_may(KC_WK_RUNNING, KC_WK_OVERDUE), "an item's time limit stops a worker with an item");
    cr_expect(!kc_worker_phase_may(KC_WK_STARTING, KC_WK_OVERDUE), "a worker not ready is LATE");
    for (int q = 1; q < KC_WK_PHASES; q++)
        if (q != KC_WK_GONE)
            cr_expect(!kc_worker_phase_may(KC_WK_OVERDUE, (kc_worker_phase)q), "OVERDUE -> %s: it only ends",
                      kc_worker_phase_name(q));
    cr_expect(!kc_worker_phase_has_item(KC_WK_OVERDUE));
    cr_expect_str_eq(kc_worker_phase_name(KC_WK_OVERDUE), "OVERDUE");
}
