/* queue_header.h — the lines a work-queue run (queue.c) prints before its
 * first item: what was selected, the order, the devices, the memory plan and
 * the time limit; a serial or --shard K/N run's as the one-process runner
 * wrote them. Each also sets the TALLY's device fields (name, compute
 * capability, SM count; "none" without a GPU). */
#ifndef KC_QUEUE_HEADER_H
#define KC_QUEUE_HEADER_H
#include <stddef.h>

#include "jobs.h"
#include "run_options.h"
#include "tally.h"

/* The figures a header names. */
typedef struct kc_queue_head {
    int selected, filtered;     /* items this run runs; items the filter selected (before --shard) */
    int rerun_all;              /* --rerun-failed found no failure recorded: every selected item runs (kc_select) */
    int gpu_items;              /* of the selected, those that need a GPU */
    int sanitize_waits;         /* ... :sanitize items run in sessions, whose clean line waits (kc_item_line_waits_end) */
    int workers;                /* the queue's workers */
    int costs_found;            /* the cost table was read (o->costs) */
    int recorded;               /* selected items with a recorded cost */
    size_t host_max, gpu_max;   /* the largest selected item's memory plan, bytes */
    size_t mem_avail;           /* MemAvailable, bytes; SIZE_MAX unknown */
    size_t sessions_host;       /* a worker's compute-sanitizer sessions while it holds them, bytes; 0: none planned */
    size_t sessions_gpu;        /* ... of its GPU's, where some device counts it (0: none does) */
    char sessions_gpu_not_on[160];  /* "0, 2": devices whose budget is under twice the share (not counted) */
    size_t sessions_gpu_figure;     /* that share, bytes */
} kc_queue_head;

/* A --jobs N run's header (stdout). */
void kc_queue_header(const kc_opts *o, const kc_devinfo *d, const kc_queue_head *h, kc_tally *t);
/* A serial or --shard K/N run's header (stdout), as the one-process runner wrote it. */
void kc_queue_serial_header(const kc_opts *o, const kc_devinfo *d, const kc_queue_head *h, kc_tally *t);
#endif
