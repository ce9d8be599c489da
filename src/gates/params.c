/* params.c — the parameters a launch of a case gets: each argument as the
 * kernel's parameter of its place. */
#include "params.h"

#include "guard.h"

void kc_make_params(kc_case *k, int set, kc_params *p)
{
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (ar->kind == KC_ARG_BUFFER) {
            p->ptr[a] = k->dev[set][a] + (k->exact || !k->dev[set][a] ? 0 : KC_GUARD_BYTES);
            p->params[a] = &p->ptr[a];
            continue;
        }
        /* ivalue: integers exactly, past 2^53 too */
        const long long iv = ar->ivalue ? (long long)ar->ivalue(k->s) : (long long)k->scalar[a];
        switch (ar->dtype) {
        case KC_F32: p->sc[a].f = (float)k->scalar[a]; break;
        case KC_I32: p->sc[a].i = (int)iv; break;
        case KC_U32: p->sc[a].u = (unsigned)iv; break;
        default: p->sc[a].ll = iv; break;
        }
        p->params[a] = &p->sc[a];
    }
}
