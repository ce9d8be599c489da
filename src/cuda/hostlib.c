/* hostlib.c — loads the shared libraries of library kernels (hostlib.h;
 * found along hostlib_path.h's search path). */
#include "hostlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files this process loaded, as they were when first loaded (dlopen
 * returns that first load's handle for the path ever after). Process-wide,
 * as dlopen's own table is. */
static struct loaded_lib {
    char *path;
    struct stat st;
    int changed;                /* replaced while dlopen read it: which file is mapped is unknown */
} *loaded;
static int nloaded, caploaded, lost_track;

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

int kc_hostlib_replaced_since_load(const char *path)
{
    if (lost_track) return 1;
    struct stat now;
    for (int i = 0; i < nloaded; i++)
        if (strcmp(loaded[i].path, path) == 0)
            return loaded[i].changed || stat(path, &now) != 0 || !same_file(&now, &loaded[i].st);
    return 0;
}

/* Records path's first load: st as stat saw it before dlopen, changed when
 * it differed after. */
static void remember(const char *path, const struct stat *st, int changed)
{
    for (int i = 0; i < nloaded; i++)
        if (strcmp(loaded[i].path, path) == 0) return;      /* dlopen gave the first load's handle */
    if (nloaded == caploaded) {
        int cap = caploaded ? 2 * caploaded : 16;
        struct loaded_lib *l = realloc(loaded, (size_t)cap * sizeof *l);
        if (!l) {
            lost_track = 1;
            return;
        }
        loaded = l;
        caploaded = cap;
    }
    if (!(loaded[nloaded].path = strdup(path))) {
        lost_track = 1;
        return;
    }
    loaded[nloaded].st = *st;
    loaded[nloaded++].changed = changed;
}

int kc_hostlib_load(const char *library, const char *control, const char *entry, kc_host_entry *fn,
                    kc_host_release_fn *release, char *why, size_t cap)
{
    char path[4200];
    kc_hostlib_path(library, control, path, sizeof path);
    *fn = NULL;
    if (release) *release = NULL;
    if (access(path, R_OK) != 0) {
        char dirs[KC_HOSTLIB_MAX_DIRS][4096], list[1024] = "";
        int n = kc_hostlib_dirs(dirs, KC_HOSTLIB_MAX_DIRS);
        size_t len = 0;
        for (int i = 0; i < n && len < sizeof list; i++) {
            int w = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", dirs[i]);
            if (w > 0) len += (size_t)w;
        }
        snprintf(why, cap, "library %s not found: %s (looked in: %s; the build makes it from lib%s.cu, "
                 "KC_LIBDIR sets the directories)", library, path, n ? list : "lib", library);
        return -1;
    }
    struct stat before, after;
    const int known = stat(path, &before) == 0;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h && known) remember(path, &before, stat(path, &after) != 0 || !same_file(&before, &after));
    else if (h) lost_track = 1;
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
    void *rel = release ? dlsym(h, KC_HOST_RELEASE) : NULL;
    if (rel) memcpy(release, &rel, sizeof *release);
    return 0;
}
