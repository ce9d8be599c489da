/* exit_guard.h — owns what happens when code kcontract runs ends this
 * process with exit() before kcontract decided to end it: an item, a
 * reference or a library that calls exit(0) (an error check that calls
 * exit() is common in CUDA code), a driver library (KC_LIBCUDA) whose
 * constructor calls it. Such an exit must never read as kcontract's own
 * status: the guard (an on_exit(3) handler, registered once) says on stderr
 *     kcontract: exit(N) called while <what>: the process ended before the run finished
 * and ends the process with _exit(N), or with zero_status when N is 0.
 *
 * What it cannot see: _exit() and a signal end the process without running
 * exit handlers. That is why a run's items run in a worker under a
 * supervising parent (worker.h, kc_serial_run): the parent sees every end of
 * its worker, and the guard only adds the words. The guard acts only in the
 * process that armed it, never in a child forked from it (an item's helper
 * calling exit() is that helper's business). One guard per process: the
 * handler and its state are the process's, as exit handlers are. */
#ifndef KC_EXIT_GUARD_H
#define KC_EXIT_GUARD_H

/* Arms the guard in this process: from now until kc_exit_guard_disarm, an
 * exit() (also a return from main) is reported as above. what: what the
 * process is doing ("loading the CUDA driver", "running item X"); copied.
 * zero_status: the exit status that replaces exit(0) (4, an internal
 * error, in a process whose status is a run's; 0 keeps it, in a worker whose
 * parent judges its end). Returns 0, or -1 when the handler cannot be
 * registered (said on stderr). */
int kc_exit_guard_arm(const char *what, int zero_status);
/* Says what the process is doing now (the guard stays armed); copied. */
void kc_exit_guard_what(const char *what);
/* Says what the calling thread is doing ("running item X" on a thread of
 * its own, beside other items' threads); NULL or "": what the process is
 * doing again (kc_exit_guard_what). An exit() on this thread is said with
 * its words: exit handlers run on the thread that called exit(). Copied. */
void kc_exit_guard_thread_what(const char *what);
/* Disarms: the process's own end (kc_main returning its status). */
void kc_exit_guard_disarm(void);
#endif
