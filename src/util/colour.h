/* colour.h — whether to colour what goes to a terminal: --color auto (the
 * default), always or never, and NO_COLOR (https://no-color.org). Under auto
 * a stream is coloured only when it is a terminal (isatty), NO_COLOR is not
 * set to a non-empty value, and TERM is not "dumb"; always colours whatever
 * NO_COLOR says (a command-line option overrides it, as no-color.org asks);
 * never colours nothing. Decided once per stream, when the mode is set. */
#ifndef KC_COLOUR_H
#define KC_COLOUR_H
#include <stdio.h>

typedef enum kc_colour_mode { KC_COLOUR_AUTO = 0, KC_COLOUR_ALWAYS, KC_COLOUR_NEVER } kc_colour_mode;

/* Sets the mode and decides for stdout and stderr (call once, at startup). */
void kc_colour_set(kc_colour_mode m);
/* Whether to colour what is written to out (stdout or stderr; any other
 * stream: never). Before kc_colour_set: auto's decision, taken then. */
int kc_colour_on(FILE *out);
/* Writes text wrapped in the SGR sequence sgr ("32": "\033[32m" ... "\033[0m")
 * when colour is on for out (and sgr is not empty), else text alone. */
void kc_colour_put(FILE *out, const char *sgr, const char *text, size_t len);
#endif
