/* hostlib.c — finds and loads the shared libraries of library kernels
 * (hostlib.h). */
#include "hostlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void kc_hostlib_path(const char *library, const char *control, char *buf, size_t cap)
{
    char dir[4096] = "lib";
    const char *env = getenv("KC_LIBDIR");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
    } else {
        char exe[4000];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = 0;
            char *slash = strrchr(exe, '/');
            if (slash) *slash = 0;
            snprintf(dir, sizeof dir, "%s/lib", exe);
        }
    }
    snprintf(buf, cap, "%s/lib%s%s%s.so", dir, library, control ? "@" : "", control ? control : "");
}

int kc_hostlib_load(const char *library, const char *control, const char *entry, kc_host_entry *fn, char *why,
                    size_t cap)
{
    char path[4200];
    kc_hostlib_path(library, control, path, sizeof path);
    *fn = NULL;
    if (access(path, R_OK) != 0) {
        snprintf(why, cap, "library %s not found: %s (make builds it from kernels/*/lib%s.cu; KC_LIBDIR sets the directory)",
                 library, path, library);
        return -1;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, cap, "loading library %s failed: %s", path, e ? e : "unknown dlopen error");
        return -1;
    }
    void *sym = dlsym(h, entry);
    if (!sym) {
        snprintf(why, cap, "entry %s not found in library %s", entry, path);
        return -1;
    }
    memcpy(fn, &sym, sizeof *fn);   /* object to function pointer, as POSIX allows */
    return 0;
}
