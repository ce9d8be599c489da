/* fatbin.c — owns the registered kernel images (kc_register_module, called by
 * each embedded image's object as it loads) and looks them up by module and
 * control name. */
#include "fatbin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcontract.h"
#include "progname.h"
#include "reg_problems.h"

/* Filled before main (and at dlopen), never emptied: the process's images. */
static struct {
    kc_fatbin *v;
    int n, cap;
} images;

void kc_register_module(const char *module, const char *control, const unsigned char *start, const unsigned char *end,
                        const char *source, int abi)
{
    if (abi != KC_ABI_VERSION) {
        char line[320];
        snprintf(line, sizeof line, "kernel image %s%s%s was embedded for kcontract ABI %d, this library is ABI %d: "
                 "rebuild it against this kcontract", module, control ? "@" : "", control ? control : "", abi,
                 KC_ABI_VERSION);
        kc_reg_problem_note(line);
        return;
    }
    if (kc_fatbin_find(module, control)) {
        char line[320];
        snprintf(line, sizeof line, "kernel image %s%s%s is registered twice (two modules %s.cu linked or loaded?)",
                 module, control ? "@" : "", control ? control : "", module);
        kc_reg_problem_note(line);
        return;
    }
    if (images.n == images.cap) {
        int cap = images.cap ? images.cap * 2 : 64;
        kc_fatbin *v = realloc(images.v, (size_t)cap * sizeof *v);
        if (!v) {   /* before main: nothing to return to; say it and stop */
            kc_prog_set_before_main();
            kc_say(stderr, "out of memory registering kernel images\n");
            abort();
        }
        images.v = v;
        images.cap = cap;
    }
    images.v[images.n++] = (kc_fatbin){ module, control, start, end, source };
}

int kc_fatbin_count(void)
{
    return images.n;
}

const kc_fatbin *kc_fatbin_at(int i)
{
    return i >= 0 && i < images.n ? &images.v[i] : NULL;
}

const kc_fatbin *kc_fatbin_find(const char *module, const char *control)
{
    for (int i = 0; i < images.n; i++) {
        const kc_fatbin *f = &images.v[i];
        if (strcmp(f->module, module) != 0) continue;
        if (!control && !f->control) return f;
        if (control && f->control && strcmp(control, f->control) == 0) return f;
    }
    return NULL;
}
