/* queue_types.h — the work queue parent's private types (queue.c): a
 * selected item, a worker slot and the queue itself, shared with the files
 * that hold parts of the parent. Not an interface: only src/run/queue*.c
 * include it. */
#ifndef KC_QUEUE_TYPES_H
#define KC_QUEUE_TYPES_H
#include "costs.h"
#include "dispatch.h"
#include "finish.h"
#include "jobs.h"
#include "record.h"
#include "result_cache.h"
#include "supervisor.h"
#include "tally.h"
#include "worker.h"
#include "worker_phase.h"

/* A selected item: what the queue keeps of it beside what the dispatch
 * policy reads (kc_dispatch_item, the same index in queue.di). */
typedef struct qitem {
    int idx;                    /* into items */
    double limit;
    int recorded;               /* cost from the table (else an estimate) */
    int reported;
} qitem;

/* A worker slot: the supervisor's child of the same index, and what the
 * queue keeps of it. */
typedef struct wk {
    int slot;                   /* worker index: the [wK] prefix */
    int device, devslot;        /* CUDA ordinal; slot in the devinfo (-1: no GPU) */
    int cur;                    /* the qitem it runs, -1 none */
    double t_start, deadline;   /* the item's start and time limit */
    double ready_by;            /* STARTING: it must say it is ready by then */
    kc_worker_phase phase;      /* where it is in the protocol (worker_phase.h) */
    int lost;                   /* RETIRING: why (KC_LOST_*, worker.h) */
    int fault_beside;           /* another item on its GPU faulted while its item ran (kc_dispatch_rerun_alone) */
    int spawned;
    char nonce[KC_NONCE_LEN + 1]; /* SEALING: its item's nonce, sent once it said the item is over (worker.h) */
    char violation[256];        /* VIOLATED while its item ran: the item is CRASH with this */
    char tail[KC_QUEUE_TAIL_LINES][256];
    int tail_n;
} wk;

typedef struct queue {
    const kc_opts *o;
    const kc_item *items;
    qitem *q;
    int nq;
    wk *w;
    int nw;
    kc_dispatch_item *di;       /* [nq]: each item as the dispatch policy sees it (dispatch.h) */
    kc_dispatch_worker *dw;     /* [nw]: each worker as it sees it: its last contract, its sessions */
    kc_dispatch dp;             /* the policy's view of both */
    kc_sup sup;
    kc_devinfo *d;
    kc_admit adm;
    kc_tally t;
    kc_records rec;
    kc_costs costs;
    int interrupted;            /* the first SIGINT or SIGTERM */
    kc_finish fin;              /* how items finish (finish.h); fin.stopping: no more items handed out */
    int untrusted;              /* a worker's sanitizer session counted errors no item held (worker.h) */
    int restarts, cap;
    double t0;
    int sampler;                /* GPU memory sampler running */
    int serial;                 /* a serial or --shard K/N run: one worker, the items in selection order, its
                                 * lines unprefixed (kc_serial_run) */
    int violated;               /* a worker broke the result protocol between items: the run is not green */
    kc_rcache_hits hits;        /* the verdicts reused from the results cache (result_cache.h) */
} queue;
#endif
