/* progname.h — the program's own name in what it says: the last path
 * component of argv[0], set once at startup (kc_main), so that a user's
 * suite binary linked with libkcontract_main says "my_suite: ..." in its
 * messages, its usage text and its JUnit report, not "kcontract: ...".
 * Before it is set (a test calling a module directly) the name is
 * "kcontract". */
#ifndef KC_PROGNAME_H
#define KC_PROGNAME_H
#include <stdio.h>

/* Takes the name from argv0 (its last path component; NULL or "" keep
 * "kcontract"). The first call wins: a re-exec'd process sets it again from
 * the same argv[0]. */
void kc_prog_set(const char *argv0);
/* The name: "kcontract", or the binary's own ("my_suite"). */
const char *kc_prog(void);
/* Writes "<name>: " and the printf-formatted text to out: the prefix of the
 * program's messages. */
void kc_say(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
