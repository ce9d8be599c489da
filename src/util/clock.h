/* clock.h — the one clock of durations and deadlines: seconds on
 * CLOCK_MONOTONIC (never steps back with the wall clock, not NTP-slewed
 * backwards), as a double. Item times, worker deadlines, the progress line's
 * ETA and the waits for leftover processes all read it. */
#ifndef KC_CLOCK_H
#define KC_CLOCK_H

/* Seconds since an arbitrary start (boot, on Linux), with nanosecond
 * resolution; only differences mean anything. */
double kc_now_s(void);
#endif
