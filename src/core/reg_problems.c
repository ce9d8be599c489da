/* reg_problems.c — owns the lines of the registrations refused as they
 * were made (reg_problems.h): filled before main, never emptied. */
#include "reg_problems.h"

#include <stdio.h>

static char lines[KC_MAX_REG_PROBLEMS][320];
static int nlines;

void kc_reg_problem_note(const char *line)
{
    if (nlines < KC_MAX_REG_PROBLEMS) snprintf(lines[nlines++], sizeof lines[0], "%s", line);
}

int kc_reg_problem_count(void)
{
    return nlines;
}

const char *kc_reg_problem_at(int i)
{
    return i >= 0 && i < nlines ? lines[i] : NULL;
}
