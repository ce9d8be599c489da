/* host_code.c — owns the digest of this binary's host code (host_code.h):
 * its ELF sections read from /proc/self/exe, less the kernel images, the
 * address-holding sections and the pointers the loader writes, with the
 * dynamic relocations hashed position-independently; and its identity, the
 * same with the counted shared objects read alike. */
#include "host_code.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "fatbin.h"
#include "proctree.h"
#include "registry.h"
#include "seed.h"

/* Sections that hold addresses, or a hash of the whole file: never hashed. */
static const char *const SKIPPED[] = {
    ".kc_image", ".note.gnu.build-id", ".dynsym", ".gnu.hash", ".hash", ".dynamic", ".got", ".got.plt",
    ".eh_frame", ".eh_frame_hdr", ".rela.dyn", ".rela.plt", ".rel.dyn", ".rel.plt", NULL,
};

static int skipped(const char *name)
{
    for (int i = 0; SKIPPED[i]; i++)
        if (strcmp(name, SKIPPED[i]) == 0) return 1;
    return 0;
}

/* A byte range [lo, hi) of link-time addresses left out of a section's bytes. */
typedef struct hole { uint64_t lo, hi; } hole;

typedef struct elf_file {
    int fd;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh;
    char *names;
    size_t names_n;
    hole *holes;
    size_t nholes, capholes;
} elf_file;

static int read_at(int fd, void *buf, size_t n, off_t at)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, at + (off_t)done);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        done += (size_t)r;
    }
    return 0;
}

static const char *sec_name(const elf_file *f, const Elf64_Shdr *s)
{
    return s->sh_name < f->names_n ? f->names + s->sh_name : "";
}

static int add_hole(elf_file *f, uint64_t lo, uint64_t hi)
{
    if (f->nholes == f->capholes) {
        size_t cap = f->capholes ? f->capholes * 2 : 256;
        hole *v = realloc(f->holes, cap * sizeof *v);
        if (!v) return -1;
        f->holes = v;
        f->capholes = cap;
    }
    f->holes[f->nholes++] = (hole){ lo, hi };
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const hole *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* An address as (section, offset): the same wherever the layout moved the
 * section. An address in the images (.kc_image) is the section alone: where
 * an image lies moves when one before it grows, and which image a module
 * name gets is checked by the images' own hashes (result_cache.h).
 * Addresses in no allocated section are hashed as they are. */
static uint64_t mix_addr(const elf_file *f, uint64_t h, uint64_t a)
{
    for (int i = 0; i < f->eh.e_shnum; i++) {
        const Elf64_Shdr *s = &f->sh[i];
        if ((s->sh_flags & SHF_ALLOC) && a >= s->sh_addr && (a < s->sh_addr + s->sh_size || a == s->sh_addr + s->sh_size)) {
            int images = strcmp(sec_name(f, s), ".kc_image") == 0;
            uint64_t v[2] = { kc_hash_str(sec_name(f, s)), images ? 0 : a - s->sh_addr };
            return kc_fnv1a64(v, sizeof v, h);
        }
    }
    return kc_fnv1a64(&a, sizeof a, h ^ 0x5a);
}

/* The dynamic relocations: each (type, symbol name, target, addend) with the
 * addresses position-independent; the 8 bytes at each target become a hole. */
static int hash_relocs(elf_file *f, uint64_t *h)
{
    for (int i = 0; i < f->eh.e_shnum; i++) {
        const Elf64_Shdr *s = &f->sh[i];
        if (s->sh_type != SHT_RELA || !(s->sh_flags & SHF_ALLOC) || s->sh_entsize != sizeof(Elf64_Rela)) continue;
        size_t n = s->sh_size / sizeof(Elf64_Rela);
        Elf64_Rela *r = malloc(s->sh_size ? s->sh_size : 1);
        if (!r || read_at(f->fd, r, s->sh_size, (off_t)s->sh_offset)) {
            free(r);
            return -1;
        }
        /* the symbol table the relocations name (their sh_link) and its strings */
        const Elf64_Shdr *symtab = s->sh_link < f->eh.e_shnum ? &f->sh[s->sh_link] : NULL;
        const Elf64_Shdr *strtab = symtab && symtab->sh_link < f->eh.e_shnum ? &f->sh[symtab->sh_link] : NULL;
        Elf64_Sym *syms = NULL;
        char *strs = NULL;
        size_t nsyms = 0;
        if (symtab && strtab && symtab->sh_entsize == sizeof(Elf64_Sym)) {
            syms = malloc(symtab->sh_size ? symtab->sh_size : 1);
            strs = malloc(strtab->sh_size + 1);
            if (!syms || !strs || read_at(f->fd, syms, symtab->sh_size, (off_t)symtab->sh_offset) ||
                read_at(f->fd, strs, strtab->sh_size, (off_t)strtab->sh_offset)) {
                free(r), free(syms), free(strs);
                return -1;
            }
            strs[strtab->sh_size] = 0;
            nsyms = symtab->sh_size / sizeof(Elf64_Sym);
        }
        for (size_t j = 0; j < n; j++) {
            uint64_t type = ELF64_R_TYPE(r[j].r_info), sym = ELF64_R_SYM(r[j].r_info);
            *h = kc_fnv1a64(&type, sizeof type, *h);
            if (sym && sym < nsyms && syms[sym].st_name < strtab->sh_size) *h = kc_fnv1a64(strs + syms[sym].st_name,
                                                                                           strlen(strs + syms[sym].st_name), *h);
            *h = mix_addr(f, *h, r[j].r_offset);
            *h = mix_addr(f, *h, (uint64_t)r[j].r_addend);
            if (add_hole(f, r[j].r_offset, r[j].r_offset + 8)) {
                free(r), free(syms), free(strs);
                return -1;
            }
        }
        free(r);
        free(syms);
        free(strs);
    }
    return 0;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uintptr_t *)data = (uintptr_t)info->dlpi_addr;
    return 1;                   /* the main program is the first object reported */
}

/* Whether a loaded segment of the object holds address a. */
static int object_holds(const struct dl_phdr_info *info, uintptr_t a)
{
    for (int k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz) return 1;
    }
    return 0;
}

/* Link-time addresses of the registered images: holes too (an image an
 * older kcontract_embed.c put in .rodata is left out where it lies). Those
 * of the main program (obj NULL), or of the loaded shared object obj. */
static int image_holes(elf_file *f, const struct dl_phdr_info *obj)
{
    uintptr_t bias = 0;
    if (obj) bias = (uintptr_t)obj->dlpi_addr;
    else dl_iterate_phdr(first_object, &bias);
    for (int i = 0; i < kc_fatbin_count(); i++) {
        const kc_fatbin *img = kc_fatbin_at(i);
        uintptr_t lo = (uintptr_t)img->start, hi = (uintptr_t)img->end;
        if (lo < bias || hi < lo) continue;     /* not in the main program (a dlopen'ed library's) */
        if (obj && !object_holds(obj, lo)) continue;
        if (add_hole(f, lo - bias, hi - bias)) return -1;
    }
    return 0;
}

/* Hashes section s's bytes less the holes (sorted by lo). */
static int hash_section(elf_file *f, const Elf64_Shdr *s, uint64_t *h)
{
    const char *name = sec_name(f, s);
    uint64_t head[2] = { kc_hash_str(name), s->sh_size };
    *h = kc_fnv1a64(head, sizeof head, *h);
    size_t cap = 1 << 20;
    unsigned char *buf = malloc(cap);
    if (!buf) return -1;
    uint64_t lo = s->sh_addr, end = s->sh_addr + s->sh_size;
    size_t k = 0;
    while (k < f->nholes && f->holes[k].hi <= lo) k++;     /* binary search is not worth it here */
    while (lo < end) {
        while (k < f->nholes && f->holes[k].hi <= lo) k++;
        if (k < f->nholes && f->holes[k].lo <= lo) {       /* inside a hole: skip it */
            lo = f->holes[k].hi;
            continue;
        }
        uint64_t stop = end;
        if (k < f->nholes && f->holes[k].lo < stop) stop = f->holes[k].lo;
        if (stop - lo > cap) stop = lo + cap;
        if (read_at(f->fd, buf, (size_t)(stop - lo), (off_t)(s->sh_offset + (lo - s->sh_addr)))) {
            free(buf);
            return -1;
        }
        *h = kc_hash_block(buf, (size_t)(stop - lo), *h);
        lo = stop;
    }
    free(buf);
    return 0;
}

/* Addresses that registered contracts and suites reach: their definitions,
 * their callbacks and a contract's user data (registry.h). */
typedef struct reached {
    uintptr_t *v;
    size_t n, cap;
    uint64_t h;                 /* the digest being made */
    int by_content;             /* a library counts by its sections' bytes, not its file's path and times */
} reached;

static void reach(reached *r, const void *p)
{
    if (!p) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        uintptr_t *v = realloc(r->v, cap * sizeof *v);
        if (!v) return;         /* out of memory: its library counts only if named like the harness */
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (uintptr_t)p;
}
#define REACH_FN(r, f) do { void *p_; memcpy(&p_, &(f), sizeof p_); reach((r), p_); } while (0)

static void registered(reached *r)
{
    const kc_contract *const *cs;
    const kc_suite *const *ss;
    size_t nc = kc_registry_contracts(&cs), ns = kc_registry_suites(&ss);
    for (size_t i = 0; i < nc; i++) {
        const kc_contract *c = cs[i];
        reach(r, c);
        reach(r, c->user);
        REACH_FN(r, c->launch);
        REACH_FN(r, c->reference);
        REACH_FN(r, c->device_reference.launch);
        for (int a = 0; a < KC_MAX_ARGS && c->args[a].kind != KC_ARG_END; a++) {
            const kc_arg *g = &c->args[a];
            REACH_FN(r, g->count);
            REACH_FN(r, g->gen);
            REACH_FN(r, g->value);
            REACH_FN(r, g->range);
            REACH_FN(r, g->ivalue);
            REACH_FN(r, g->tensor_map);
        }
        for (int k = 0; k < KC_MAX_STEPS && c->steps[k].symbol; k++) REACH_FN(r, c->steps[k].launch);
    }
    for (size_t i = 0; i < ns; i++) {
        reach(r, ss[i]);
        REACH_FN(r, ss[i]->run);
    }
}

/* Whether a loaded segment of the object holds one of the addresses. */
static int holds(const struct dl_phdr_info *info, const reached *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (object_holds(info, r->v[i])) return 1;
    return 0;
}

static int sections_hash(const char *path, const struct dl_phdr_info *obj, uint64_t *h, char *why, size_t cap);

/* Shared objects named like the harness (libkcontract.so.N), and those
 * that hold a registered contract or suite (a team's references in a
 * library of its own): path, size and modification time; or, by_content,
 * their sections' bytes as the main program's (one that cannot be read: as
 * without). */
static int counted_libs(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    reached *r = data;
    const char *p = info->dlpi_name;
    struct stat st;
    char why[512];
    if (!p || !*p || (!strstr(p, "kcontract") && !holds(info, r)) || stat(p, &st)) return 0;
    uint64_t d = kc_hash_str("kcontract shared object 1");
    if (r->by_content && sections_hash(p, info, &d, why, sizeof why) == 0) {
        r->h = kc_fnv1a64(&d, sizeof d, r->h);
        return 0;
    }
    uint64_t v[3] = { (uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec };
    r->h = kc_fnv1a64(v, sizeof v, kc_fnv1a64(p, strlen(p), r->h));
    return 0;
}

/* The shared objects' part: by path, size and modification time, or by
 * content (by_content). The same when none counts. */
static uint64_t shared_objects(int by_content)
{
    reached r = { .h = kc_hash_str("kcontract shared objects 1"), .by_content = by_content };
    registered(&r);
    dl_iterate_phdr(counted_libs, &r);
    free(r.v);
    return r.h;
}

uint64_t kc_host_code_shared_objects(void) { return shared_objects(0); }

/* Mixes into *h the allocated sections of the ELF64 file at path, less the
 * holes (the address-holding sections, the loader's pointers and the
 * registered images: those of the main program, obj NULL, or of the loaded
 * shared object obj), with its dynamic relocations position-independent.
 * 0, or -1 with why. */
static int sections_hash(const char *path, const struct dl_phdr_info *obj, uint64_t *h, char *why, size_t cap)
{
    elf_file f;
    memset(&f, 0, sizeof f);
    f.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) return kc_errf(why, cap, "cannot read %s: %s", path, strerror(errno));
    int rc = -1;
    if (read_at(f.fd, &f.eh, sizeof f.eh, 0) || memcmp(f.eh.e_ident, ELFMAG, SELFMAG) ||
        f.eh.e_ident[EI_CLASS] != ELFCLASS64 || f.eh.e_shentsize != sizeof(Elf64_Shdr) || f.eh.e_shnum == 0 ||
        f.eh.e_shstrndx >= f.eh.e_shnum) {
        kc_errf(why, cap, "%s is not an ELF64 file with section headers", path);
        goto out;
    }
    f.sh = malloc((size_t)f.eh.e_shnum * sizeof *f.sh);
    if (!f.sh || read_at(f.fd, f.sh, (size_t)f.eh.e_shnum * sizeof *f.sh, (off_t)f.eh.e_shoff)) {
        kc_errf(why, cap, "cannot read the section headers of %s", path);
        goto out;
    }
    const Elf64_Shdr *ns = &f.sh[f.eh.e_shstrndx];
    f.names_n = ns->sh_size;
    f.names = malloc(f.names_n + 1);
    if (!f.names || read_at(f.fd, f.names, f.names_n, (off_t)ns->sh_offset)) {
        kc_errf(why, cap, "cannot read the section names of %s", path);
        goto out;
    }
    f.names[f.names_n] = 0;
    if (hash_relocs(&f, h) || image_holes(&f, obj)) {
        kc_errf(why, cap, "cannot read the relocations of %s (or out of memory)", path);
        goto out;
    }
    qsort(f.holes, f.nholes, sizeof *f.holes, by_lo);
    for (int i = 0; i < f.eh.e_shnum; i++) {
        const Elf64_Shdr *s = &f.sh[i];
        if (!(s->sh_flags & SHF_ALLOC) || s->sh_type == SHT_NOBITS || skipped(sec_name(&f, s))) continue;
        if (hash_section(&f, s, h)) {
            kc_errf(why, cap, "cannot read section %s of %s", sec_name(&f, s), path);
            goto out;
        }
    }
    rc = 0;
out:
    close(f.fd);
    free(f.sh);
    free(f.names);
    free(f.holes);
    return rc;
}

/* The main program's sections, hashed once per process: the part of both
 * digests (kc_host_code_digest, kc_host_code_identity) before the shared
 * objects'. 0 and *main_h; or -1 with why. */
static int main_sections(uint64_t *main_h, char *why, size_t cap)
{
    static int done, rc;
    static uint64_t h;
    static char said[512];
    if (!done) {
        char exe[4096];
        h = kc_hash_str("kcontract host code 1");
        if (kc_self_exe(exe, sizeof exe)) rc = kc_errf(said, sizeof said, "cannot resolve /proc/self/exe");
        else rc = sections_hash(exe, NULL, &h, said, sizeof said);
        done = 1;
    }
    if (rc) {
        snprintf(why, cap, "%s", said);
        return -1;
    }
    *main_h = h;
    return 0;
}

/* The digest of the main program's sections and the shared objects' part
 * (by_content: shared_objects). */
static int digest_of(int by_content, uint64_t *out, char *why, size_t cap)
{
    uint64_t h;
    if (main_sections(&h, why, cap)) return -1;
    h = kc_fnv1a64(&(uint64_t){ shared_objects(by_content) }, sizeof(uint64_t), h);
    *out = kc_mix64(h);
    return 0;
}

/* digest_of(by_content), computed once per process and kind, then kept
 * (its reason too when it failed). */
typedef struct kept_digest {
    int done, rc;
    uint64_t value;
    char said[512];
} kept_digest;

static int kept(int by_content, uint64_t *out, char *why, size_t cap)
{
    static kept_digest k[2];
    kept_digest *m = &k[by_content != 0];
    if (!m->done) {
        m->rc = digest_of(by_content, &m->value, m->said, sizeof m->said);
        m->done = 1;
    }
    if (m->rc) {
        snprintf(why, cap, "%s", m->said);
        return -1;
    }
    *out = m->value;
    return 0;
}

int kc_host_code_digest(uint64_t *out, char *why, size_t cap) { return kept(0, out, why, cap); }

int kc_host_code_identity(uint64_t *out, char *why, size_t cap) { return kept(1, out, why, cap); }
