/* machine_code.h — a kernel's machine code (SASS) inside an embedded fatbin:
 * the fatbin container's ELF image for one SM architecture, one function's
 * code in it, and what the limits item reads from that code: the register
 * counts its warpgroups ask for with `setmaxnreg` (PTX ISA 8.0, sm_90a).
 *
 * Where the rules come from. The fatbin container has no public
 * specification: its layout here (a 16-byte header, magic 0xBA55ED50, then
 * entries of {kind u16 (1 PTX, 2 ELF), version u16, header size u32, payload
 * size u64, ..., SM architecture u32 at byte 28}) is what nvcc 12-13's
 * fatbinary writes, read from our own images. The ELF image is ELF64 (System
 * V gABI); a function's code is its section ".text.<symbol>". The Hopper
 * (sm_90) instruction encoding is 16 bytes an instruction; USETMAXREG is
 * opcode 0x9c8 in the low 12 bits of the first word, its register count in
 * bits 32..40, and bits 8..10 of the second word say DEALLOC (5) or
 * TRY_ALLOC (6): read against `cuobjdump -sass` of the bundled kernels on
 * an H200 (docs/receipts/2026-12-02-h200-setmaxnreg/). Anything else (a
 * compressed image, another layout, an encoding not listed) is reported as
 * not read, never guessed. */
#ifndef KC_MACHINE_CODE_H
#define KC_MACHINE_CODE_H
#include <stddef.h>

/* The ELF image for SM architecture sm (e.g. 90 for sm_90 and sm_90a) in
 * the fatbin [fb, fb + n) into *elf, *elf_n: 0. 1 with why when there is
 * none: no such architecture (the driver would JIT the PTX), or the image is
 * no fatbin (a PTX text, the fake driver's images). -1 with why (naming the
 * byte offset) when the fatbin's entries are not the layout above or the
 * ELF image is compressed. */
int kc_fatbin_elf(const unsigned char *fb, size_t n, int sm, const unsigned char **elf, size_t *elf_n, char *why,
                  size_t cap);

/* Function symbol's code (its section ".text.<symbol>") in the ELF image
 * [elf, elf + n) into *code, *code_n: 0; -1 with why when the image is no
 * ELF64 or has no such section. */
int kc_elf_function_code(const unsigned char *elf, size_t n, const char *symbol, const unsigned char **code,
                         size_t *code_n, char *why, size_t cap);

/* The names of the functions whose code the ELF image [elf, elf + n) holds
 * (its sections ".text.<name>": the kernels, and device functions not
 * inlined), ", "-separated into buf (cut with "..." past cap). Their count;
 * -1 when the image is no ELF64. */
int kc_elf_function_names(const unsigned char *elf, size_t n, char *buf, size_t cap);

/* The bytes of the module's own device variables (__device__, __managed__:
 * ELF sections .nv.global, zero-initialized, and .nv.global.init) in the
 * ELF image [elf, elf + n) into *bytes (0: none), less the string
 * literals nvcc places there ($str, $str$N in the symbol table: a device
 * printf's format, constant strings; never written: kcontract_dref_common.cuh's
 * messages put 447-523 bytes of them in the bundled device references). A
 * module with any keeps state between launches, so a loaded copy is not shared between items
 * (module_cache.h). 0; -1 with why when the image is no ELF64. */
int kc_elf_global_bytes(const unsigned char *elf, size_t n, size_t *bytes, char *why, size_t cap);

/* The setmaxnreg instructions of one function's sm_90 code. */
typedef struct kc_setmaxnreg {
    int n;            /* USETMAXREG instructions found */
    int dealloc_min;  /* the lowest count a DEALLOC (setmaxnreg.dec) asks for; 0 when none */
    int alloc_max;    /* the highest count a TRY_ALLOC (setmaxnreg.inc) asks for; 0 when none */
} kc_setmaxnreg;

/* Scans sm_90 code [code, code + n) (16-byte instructions) for USETMAXREG
 * into *out: 0; -1 with why (the instruction's byte offset and words) when
 * n is no multiple of 16 or a USETMAXREG has a form not listed above. */
int kc_sm90_setmaxnreg(const unsigned char *code, size_t n, kc_setmaxnreg *out, char *why, size_t cap);

/* How many of the warpgroups (128 threads each: setmaxnreg works on whole
 * warpgroups) of a block of `threads` threads that starts at `entry`
 * registers a thread can hold s->alloc_max at once, while every other holds
 * the least it can release to (s->dealloc_min, or entry when nothing
 * releases): the block's registers are one pool of entry x threads
 * ("CTAPOOL"). 0 means that setmaxnreg.inc to alloc_max is never granted
 * and waits for ever; -1 when s asks for no more (no TRY_ALLOC) or the
 * block is smaller than a warpgroup. A warp-specialized kernel with one
 * producer warpgroup releasing registers needs warpgroups - 1 holders. */
int kc_setmaxnreg_holders(const kc_setmaxnreg *s, int entry, unsigned threads);
#endif
