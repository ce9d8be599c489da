/* fatbin.c — looks up embedded kernel images by module and control name. */
#include "fatbin.h"

#include <string.h>

const kc_fatbin *kc_fatbin_find(const char *module, const char *control)
{
    for (int i = 0; i < kc_fatbin_count; i++) {
        const kc_fatbin *f = &kc_fatbins[i];
        if (strcmp(f->module, module) != 0) continue;
        if (!control && !f->control) return f;
        if (control && f->control && strcmp(control, f->control) == 0) return f;
    }
    return NULL;
}
