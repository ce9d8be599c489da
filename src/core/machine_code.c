/* machine_code.c — a kernel's SASS inside an embedded fatbin, and its
 * setmaxnreg instructions (machine_code.h says where each rule comes from). */
#include "machine_code.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_ELF 2
#define SM90_OPCODE_USETMAXREG 0x9c8u
#define SM90_SETMAXNREG_DEALLOC 5u
#define SM90_SETMAXNREG_TRY_ALLOC 6u

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

int kc_fatbin_elf(const unsigned char *fb, size_t n, int sm, const unsigned char **elf, size_t *elf_n, char *why,
                  size_t cap)
{
    if (n < 16 || rd32(fb) != FATBIN_MAGIC) {
        snprintf(why, cap, "no fatbin: %zu bytes, magic 0x%08x (expected 0x%08x)", n, n >= 4 ? rd32(fb) : 0,
                 FATBIN_MAGIC);
        return 1;
    }
    const size_t head = rd16(fb + 6);
    const uint64_t body = rd64(fb + 8);
    if (head < 16 || head > n || body > n - head) {
        snprintf(why, cap, "fatbin header of %zu bytes says %zu + %llu bytes", n, head, (unsigned long long)body);
        return -1;
    }
    size_t p = head;
    const size_t end = head + (size_t)body;
    while (p < end) {
        if (end - p < 32) {
            snprintf(why, cap, "fatbin entry at byte %zu: %zu bytes left, a header has 32 or more", p, end - p);
            return -1;
        }
        const unsigned kind = rd16(fb + p);
        const size_t ehead = rd32(fb + p + 4);
        const uint64_t size = rd64(fb + p + 8);
        const int arch = (int)rd32(fb + p + 28);
        if (ehead < 32 || ehead > end - p || size > end - p - ehead) {
            snprintf(why, cap, "fatbin entry at byte %zu: header %zu + payload %llu bytes past the end at %zu", p, ehead,
                     (unsigned long long)size, end);
            return -1;
        }
        const unsigned char *pay = fb + p + ehead;
        if (kind == FATBIN_KIND_ELF && arch == sm) {
            if (size < 4 || memcmp(pay, "\177ELF", 4) != 0) {
                snprintf(why, cap, "the sm_%d image at byte %zu is no plain ELF (compressed?)", sm, p + ehead);
                return -1;
            }
            *elf = pay;
            *elf_n = (size_t)size;
            return 0;
        }
        p += ehead + (size_t)size;
    }
    snprintf(why, cap, "no sm_%d image in the fatbin", sm);
    return 1;
}

/* The section table of the ELF64 image [elf, elf + n): its entries, their
 * count and size, and the section names' string table. 0, or -1 with why. */
typedef struct elf_sections {
    const unsigned char *tab;
    size_t num, entsize;
    const char *names;
    uint64_t names_n;
} elf_sections;

static int elf_sections_of(const unsigned char *elf, size_t n, elf_sections *t, char *why, size_t cap)
{
    if (n < 64 || memcmp(elf, "\177ELF", 4) != 0 || elf[4] != 2 || elf[5] != 1) {
        snprintf(why, cap, "no little-endian ELF64 image (%zu bytes)", n);
        return -1;
    }
    const uint64_t shoff = rd64(elf + 0x28);
    const size_t shentsize = rd16(elf + 0x3a), shnum = rd16(elf + 0x3c), shstrndx = rd16(elf + 0x3e);
    if (shentsize < 64 || shoff > n || shnum > (n - shoff) / shentsize || shstrndx >= shnum) {
        snprintf(why, cap, "ELF section table (offset %llu, %zu entries of %zu bytes) outside its %zu bytes",
                 (unsigned long long)shoff, shnum, shentsize, n);
        return -1;
    }
    const unsigned char *strs = elf + shoff + shstrndx * shentsize;
    const uint64_t str_off = rd64(strs + 0x18), str_size = rd64(strs + 0x20);
    if (str_off > n || str_size > n - str_off) {
        snprintf(why, cap, "ELF section names outside the image");
        return -1;
    }
    *t = (elf_sections){ elf + shoff, shnum, shentsize, (const char *)elf + str_off, str_size };
    return 0;
}

/* Section i's name, or NULL when its name is outside the string table. */
static const char *section_name(const elf_sections *t, size_t i)
{
    const uint32_t name = rd32(t->tab + i * t->entsize);
    if (name >= t->names_n || !memchr(t->names + name, 0, (size_t)(t->names_n - name))) return NULL;
    return t->names + name;
}

int kc_elf_function_code(const unsigned char *elf, size_t n, const char *symbol, const unsigned char **code,
                         size_t *code_n, char *why, size_t cap)
{
    elf_sections t;
    if (elf_sections_of(elf, n, &t, why, cap)) return -1;
    char want[512];
    if ((size_t)snprintf(want, sizeof want, ".text.%s", symbol) >= sizeof want) {
        snprintf(why, cap, "symbol %.60s... longer than %zu bytes", symbol, sizeof want - 7);
        return -1;
    }
    for (size_t i = 0; i < t.num; i++) {
        const char *s = section_name(&t, i);
        if (!s || strcmp(s, want) != 0) continue;
        const unsigned char *sh = t.tab + i * t.entsize;
        const uint64_t off = rd64(sh + 0x18), size = rd64(sh + 0x20);
        if (off > n || size > n - off) {
            snprintf(why, cap, "section %s outside the image", want);
            return -1;
        }
        *code = elf + off;
        *code_n = (size_t)size;
        return 0;
    }
    snprintf(why, cap, "no section %s in the image", want);
    return -1;
}

int kc_elf_function_names(const unsigned char *elf, size_t n, char *buf, size_t cap)
{
    elf_sections t;
    char why[160];
    if (cap) buf[0] = 0;
    if (elf_sections_of(elf, n, &t, why, sizeof why)) return -1;
    int count = 0;
    size_t len = 0;
    for (size_t i = 0; i < t.num; i++) {
        const char *s = section_name(&t, i);
        if (!s || strncmp(s, ".text.", 6) != 0 || !s[6]) continue;
        count++;
        if (!cap) continue;
        int w = snprintf(buf + len, cap - len, "%s%s", count > 1 ? ", " : "", s + 6);
        if (w < 0 || (size_t)w >= cap - len) {      /* cut: end with "..." where it fits */
            if (cap >= 4) memcpy(buf + cap - 4, "...", 4);
            len = cap - 1;
        } else
            len += (size_t)w;
    }
    return count;
}

static int is_global_section(const elf_sections *t, size_t i)
{
    const char *s = section_name(t, i);
    return s && (strcmp(s, ".nv.global") == 0 || strcmp(s, ".nv.global.init") == 0);
}

/* The bytes of string literals ("$str", "$str$N": the local objects nvcc
 * makes of a device printf's format and of string constants, never
 * written) in the device-variable sections, from the symbol table; 0 when
 * there is none or it is outside the image. */
static size_t string_literal_bytes(const unsigned char *elf, size_t n, const elf_sections *t)
{
    size_t sum = 0;
    for (size_t i = 0; i < t->num; i++) {
        const unsigned char *sh = t->tab + i * t->entsize;
        if (rd32(sh + 4) != 2) continue;                       /* SHT_SYMTAB */
        const uint64_t off = rd64(sh + 0x18), size = rd64(sh + 0x20), ent = rd64(sh + 0x38);
        const uint32_t link = rd32(sh + 0x28);
        if (ent < 24 || off > n || size > n - off || link >= t->num) return 0;
        const unsigned char *str = t->tab + link * t->entsize;
        const uint64_t soff = rd64(str + 0x18), ssize = rd64(str + 0x20);
        if (soff > n || ssize > n - soff) return 0;
        for (uint64_t k = 0; k + ent <= size; k += ent) {
            const unsigned char *sym = elf + off + k;
            const uint32_t name = rd32(sym);
            const size_t shndx = rd16(sym + 6);
            if (shndx >= t->num || !is_global_section(t, shndx) || name >= ssize) continue;
            const char *nm = (const char *)elf + soff + name;
            if (!memchr(nm, 0, (size_t)(ssize - name)) || strncmp(nm, "$str", 4) != 0) continue;
            if (nm[4] != 0 && nm[4] != '$') continue;
            sum += (size_t)rd64(sym + 16);
        }
    }
    return sum;
}

int kc_elf_global_bytes(const unsigned char *elf, size_t n, size_t *bytes, char *why, size_t cap)
{
    elf_sections t;
    *bytes = 0;
    if (elf_sections_of(elf, n, &t, why, cap)) return -1;
    size_t all = 0;
    for (size_t i = 0; i < t.num; i++)
        if (is_global_section(&t, i)) all += (size_t)rd64(t.tab + i * t.entsize + 0x20);   /* NOBITS: its size too */
    size_t strs = string_literal_bytes(elf, n, &t);
    *bytes = strs < all ? all - strs : 0;
    return 0;
}

int kc_sm90_setmaxnreg(const unsigned char *code, size_t n, kc_setmaxnreg *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (n % 16) {
        snprintf(why, cap, "sm_90 code of %zu bytes is no whole number of 16-byte instructions", n);
        return -1;
    }
    for (size_t p = 0; p < n; p += 16) {
        const uint64_t w0 = rd64(code + p), w1 = rd64(code + p + 8);
        if ((w0 & 0xfff) != SM90_OPCODE_USETMAXREG) continue;
        const int count = (int)((w0 >> 32) & 0x1ff);
        const unsigned form = (unsigned)((w1 >> 8) & 7);
        out->n++;
        if (form == SM90_SETMAXNREG_DEALLOC) {
            if (!out->dealloc_min || count < out->dealloc_min) out->dealloc_min = count;
        } else if (form == SM90_SETMAXNREG_TRY_ALLOC) {
            if (count > out->alloc_max) out->alloc_max = count;
        } else {
            snprintf(why, cap,
                     "USETMAXREG at byte 0x%zx (words 0x%016llx 0x%016llx) of form %u: expected %u (DEALLOC) or %u "
                     "(TRY_ALLOC)",
                     p, (unsigned long long)w0, (unsigned long long)w1, form, SM90_SETMAXNREG_DEALLOC,
                     SM90_SETMAXNREG_TRY_ALLOC);
            return -1;
        }
    }
    return 0;
}

int kc_setmaxnreg_holders(const kc_setmaxnreg *s, int entry, unsigned threads)
{
    if (!s->alloc_max || threads < 128) return -1;
    const long long warpgroups = threads / 128;
    const long long least = s->dealloc_min && s->dealloc_min < entry ? s->dealloc_min : entry;
    const long long pool = (long long)entry * threads / 128;   /* registers a thread, summed over warpgroups */
    long long k = 0;
    while (k < warpgroups && (k + 1) * s->alloc_max + (warpgroups - k - 1) * least <= pool) k++;
    return (int)k;
}
