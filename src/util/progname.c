/* progname.c — the program's own name (progname.h). */
#include "progname.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

static char name[256] = "kcontract";
static int set;

void kc_prog_set(const char *argv0)
{
    if (set || !argv0 || !*argv0) return;
    const char *slash = strrchr(argv0, '/');
    const char *base = slash ? slash + 1 : argv0;
    if (!*base) return;
    snprintf(name, sizeof name, "%s", base);
    set = 1;
}

void kc_prog_set_before_main(void)
{
    kc_prog_set(program_invocation_name);      /* glibc's copy of argv[0] (_GNU_SOURCE) */
}

const char *kc_prog(void) { return name; }

void kc_say(FILE *out, const char *fmt, ...)
{
    va_list ap;
    fputs(name, out);
    fputs(": ", out);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
}
