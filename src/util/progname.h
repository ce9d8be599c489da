/* progname.h — the program's own name in what it says: the last path
 * component of argv[0], set once at startup (kc_main), so that a user's
 * suite binary linked with libkcontract_main says "my_suite: ..." in its
 * messages, its usage text and its JUnit report, not "kcontract: ...".
 * Before it is set (a test calling a module directly) the name is
 * "kcontract"; a refusal made before main sets it first, from the process's
 * own argv[0] (kc_prog_set_before_main). */
#ifndef KC_PROGNAME_H
#define KC_PROGNAME_H
#include <stdio.h>

/* Takes the name from argv0 (its last path component; NULL or "" keep
 * "kcontract"). The first call wins: a re-exec'd process sets it again from
 * the same argv[0]. */
void kc_prog_set(const char *argv0);
/* For what is said before main (a constructor's refusal: KC_EDGE_SHAPES
 * refusing its list, a registration out of memory), which main has not yet
 * named: takes the name from the argv[0] the C library keeps for the
 * process (program_invocation_name, what main will get), as kc_prog_set
 * would, so that a suite binary says its own name there too. Called only
 * where the process then ends, so that a test calling modules directly
 * keeps "kcontract" everywhere else. */
void kc_prog_set_before_main(void);
/* The name: "kcontract", or the binary's own ("my_suite"). */
const char *kc_prog(void);
/* Writes "<name>: " and the printf-formatted text to out: the prefix of the
 * program's messages. */
void kc_say(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
