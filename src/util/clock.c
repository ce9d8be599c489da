/* clock.c — the monotonic clock (clock.h). */
#include "clock.h"

#include <time.h>

double kc_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
