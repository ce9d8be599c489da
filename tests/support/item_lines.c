/* item_lines.c — test support: expectations on an item's state line
 * (item_lines.h). */
#include "item_lines.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spawn.h"

void kc_expect_item(const char *out, const char *state, const char *name, const char *const *texts)
{
    char key[256], line[8192];
    int n = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *q = p;
        if (*q == '[' && strchr(q, ']') && strchr(q, ']')[1] == ' ') q = strchr(q, ']') + 2;
        const char *sp = strchr(q, ' ');
        if (!sp || sp == q || sp - q > 7) continue;
        const char *r = sp;
        while (*r == ' ') r++;
        size_t nl = strlen(name);
        if (strncmp(r, name, nl) != 0 || strncmp(r + nl, "  ", 2) != 0) continue;
        n++;
        const char *e = strchr(q, '\n');
        snprintf(line, sizeof line, "%.*s", (int)(e ? e - q : (long)strlen(q)), q);
    }
    cr_expect_eq(n, 1, "%s is on %d state lines:\n%s", name, n, out);
    if (n != 1) return;
    snprintf(key, sizeof key, "%-6s %s  ", state, name);
    cr_expect(strncmp(line, key, strlen(key)) == 0, "expected '%s...', got:\n%s", key, line);
    for (int i = 0; texts && texts[i]; i++) cr_expect(strstr(line, texts[i]), "'%s' not in:\n%s", texts[i], line);
}

void kc_expect_rerun(const char *out, const char *name, const char *seed)
{
    char want[1024], lib[600];
    const char *fake = getenv("KC_FAKE_CUDA");
    snprintf(lib, sizeof lib, "KC_LIBCUDA=%s ", fake && *fake ? fake : "build/libfake_cuda.so");
    snprintf(want, sizeof want, "%s run %s --seed %s --device 0\n", kc_test_fixture_bin(), name, seed);
    const char *at = strstr(out, want), *bol = at;
    while (bol && bol > out && bol[-1] != '\n') bol--;
    char line[4096] = "";
    if (at) snprintf(line, sizeof line, "%.*s", (int)(at - bol) + (int)strlen(want), bol);
    cr_expect(at && strstr(line, "  rerun: ") && strstr(line, lib), "no '  rerun: ...%s...%s' in:\n%s", lib, want, out);
}
