/* colour.c — colours on a terminal (colour.h). */
#include "colour.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int decided, on_out, on_err;

static int auto_for(int fd)
{
    const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
    return isatty(fd) && !(nc && *nc) && !(term && strcmp(term, "dumb") == 0);
}

void kc_colour_set(kc_colour_mode m)
{
    on_out = m == KC_COLOUR_ALWAYS || (m == KC_COLOUR_AUTO && auto_for(STDOUT_FILENO));
    on_err = m == KC_COLOUR_ALWAYS || (m == KC_COLOUR_AUTO && auto_for(STDERR_FILENO));
    decided = 1;
}

int kc_colour_on(FILE *out)
{
    if (!decided) kc_colour_set(KC_COLOUR_AUTO);
    return out == stdout ? on_out : out == stderr ? on_err : 0;
}

void kc_colour_put(FILE *out, const char *sgr, const char *text, size_t len)
{
    int c = sgr && *sgr && kc_colour_on(out);
    if (c) fprintf(out, "\033[%sm", sgr);
    fwrite(text, 1, len, out);
    if (c) fputs("\033[0m", out);
}
