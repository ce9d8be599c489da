/* errmsg.c — formatting refusal reasons (errmsg.h). */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>

int kc_errf(char *err, size_t cap, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}
