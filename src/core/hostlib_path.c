/* hostlib_path.c — where the shared libraries of library kernels are
 * looked for (hostlib_path.h). */
#include "hostlib_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctree.h"

/* Directory of the running binary into buf ("" when /proc is unreadable). */
static void exe_dir(char *buf, size_t cap)
{
    if (kc_self_exe(buf, cap)) return;
    char *slash = strrchr(buf, '/');
    if (slash) *slash = 0;
}

int kc_hostlib_dirs(char dirs[][4096], int max)
{
    int n = 0;
    const char *env = getenv("KC_LIBDIR");
    if (env && *env) {   /* a ':'-separated list, the only place looked in when set */
        for (const char *p = env; *p && n < max;) {
            size_t len = strcspn(p, ":");
            if (len) snprintf(dirs[n++], 4096, "%.*s", (int)len, p);
            p += len + (p[len] == ':');
        }
        return n;
    }
    char exe[4096];
    exe_dir(exe, sizeof exe);
    if (!*exe) return n;
    if (n < max) snprintf(dirs[n++], 4096, "%.4000s/lib", exe);
    if (n < max) snprintf(dirs[n++], 4096, "%.4000s/../lib/kcontract", exe);
    return n;
}

void kc_hostlib_name(const char *library, const char *control, char *buf, size_t cap)
{
    snprintf(buf, cap, "lib%s%s%s.so", library, control ? "@" : "", control ? control : "");
}

void kc_hostlib_path(const char *library, const char *control, char *buf, size_t cap)
{
    char dirs[KC_HOSTLIB_MAX_DIRS][4096], name[600];
    int n = kc_hostlib_dirs(dirs, KC_HOSTLIB_MAX_DIRS);
    if (n == 0) snprintf(dirs[n++], sizeof dirs[0], "lib");
    kc_hostlib_name(library, control, name, sizeof name);
    for (int i = 0; i < n; i++) {
        snprintf(buf, cap, "%s/%s", dirs[i], name);
        if (access(buf, R_OK) == 0) return;
    }
    snprintf(buf, cap, "%s/%s", dirs[0], name);
}
