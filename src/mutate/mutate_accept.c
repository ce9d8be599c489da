/* mutate_accept.c — the accepted-equivalents file (mutate_accept.h). */
#include "mutate_accept.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"

int kc_mutate_accept(const char *path, const kc_mut_module *mods, int nmods, const kc_mutants *m, kc_mut_status *st,
                     int *unchecked, char *err, size_t cap)
{
    *unchecked = 0;
    FILE *f = fopen(path, "r");
    if (!f) return kc_errf(err, cap, "--accepted %s: cannot read it: %s", path, strerror(errno));
    char line[2048];
    int ln = 0, marked = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t n = strcspn(line, "\r\n");
        line[n] = 0;
        const char *p = line + strspn(line, " \t");
        if (!*p || *p == '#') continue;
        char id[64] = "", module[128] = "";
        int used = 0;
        if (sscanf(p, "%63s %127s %n", id, module, &used) < 2 || !p[used]) {
            fclose(f);
            return kc_errf(err, cap, "--accepted %s:%d: expected '<mutant id> <module> <reason>' (the reason says why no "
                           "input can tell the mutant from the original), got '%.200s'", path, ln, p);
        }
        const char *reason = p + used;
        int known = 0;
        for (int k = 0; k < nmods && !known; k++) known = strcmp(mods[k].name, module) == 0;
        if (!known) {
            (*unchecked)++;
            continue;
        }
        int hit = -1;
        for (int i = 0; i < m->n && hit < 0; i++)
            if (strcmp(m->v[i].id, id) == 0 && strcmp(m->v[i].module, module) == 0) hit = i;
        if (hit < 0) {
            fclose(f);
            return kc_errf(err, cap, "--accepted %s:%d: mutant %s of module %s is no longer made from %s's source (the "
                           "code it judged changed or moved): judge the mutants of that code again and update or remove "
                           "the line", path, ln, id, module, module);
        }
        if (st[hit].state == KC_MUT_ACCEPTED) {
            fclose(f);
            return kc_errf(err, cap, "--accepted %s:%d: mutant %s is accepted twice", path, ln, id);
        }
        st[hit].state = KC_MUT_ACCEPTED;
        snprintf(st[hit].why, sizeof st[hit].why, "%s", reason);
        marked++;
    }
    fclose(f);
    return marked;
}
