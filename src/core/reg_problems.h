/* reg_problems.h — registrations refused as they were made (before main,
 * or at dlopen): a contract, suite or kernel image compiled against another
 * ABI, an image registered twice. Each is kept as a line naming it, for the
 * registry to report among its problems (registry.h) when the run starts:
 * nothing can be reported while objects are still loading. Its own module,
 * so the registry and the images (fatbin.c) both note refusals without
 * including each other. */
#ifndef KC_REG_PROBLEMS_H
#define KC_REG_PROBLEMS_H

/* At most this many are kept; the rest are dropped. */
#define KC_MAX_REG_PROBLEMS 16

/* Keeps line (cut at 319 bytes) among the refused registrations. */
void kc_reg_problem_note(const char *line);
/* How many are kept; line i of them (0 .. count - 1), NULL outside. */
int kc_reg_problem_count(void);
const char *kc_reg_problem_at(int i);
#endif
