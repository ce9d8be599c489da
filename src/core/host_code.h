/* host_code.h — a digest of this binary's host code: what its host
 * references, input generators, launch functions and the harness itself do,
 * which no per-function hash can see (a function calls others, reads
 * tables, inlines headers). The results cache (result_cache.h) keys every
 * item with it.
 *
 * It is read from the binary's file (/proc/self/exe), section by section
 * (ELF64): every allocated section with contents, but not
 *   - the kernel images (fatbin.h): the section .kc_image, where
 *     kcontract_embed.c puts them, and any image's bytes wherever they lie
 *     (an image embedded by an older helper lies in .rodata); the results
 *     cache keys each item with its own images instead;
 *   - what holds addresses or the linker's own hash of the whole file:
 *     .note.gnu.build-id, .dynsym, .gnu.hash, .hash, .dynamic, .got,
 *     .got.plt, .eh_frame, .eh_frame_hdr, and the 8 bytes at every dynamic
 *     relocation's target (a pointer the loader writes); the relocations
 *     themselves are hashed with every address taken as (section, offset),
 *     so a pointer table that changes is seen, a move of the whole layout is
 *     not.
 * Code refers to data by distance, so the digest stays the same across a
 * change of one image only when the images move nothing else: the images'
 * section lies before the code (share/kcontract_images.ld) and each image
 * is padded to whole pages (kcontract_embed.c). Without that placement the
 * digest still changes whenever any code or data does: an item is then run
 * again after a change of another module's image, never reused wrongly.
 * Not covered: shared libraries the binary links (libc, libcuda: the
 * driver's version is keyed separately, result_cache.h) but for those whose
 * file name contains "kcontract" (the harness as a shared library) and those
 * that hold a registered contract's or suite's definition, callbacks
 * (reference, launch, generators, a suite's run) or user data (contracts in
 * a team's own library, kcontract.h "Registration"), which count by path,
 * size and modification time (in the identity, kc_host_code_identity, by
 * their sections' bytes). A library those call into is not covered. */
#ifndef KC_HOST_CODE_H
#define KC_HOST_CODE_H
#include <stddef.h>
#include <stdint.h>

/* The digest of this binary's host code (computed once per process, then
 * kept). 0 and *out set; or -1 with the reason in why ("cannot read
 * /proc/self/exe: ...", "not an ELF64 file"), when nothing may be cached. */
int kc_host_code_digest(uint64_t *out, char *why, size_t cap);
/* The shared objects' part of that digest (host_code.h, "Not covered"):
 * each loaded one that counts, by path, size and modification time.
 * Computed on each call (kc_host_code_digest keeps its first). */
uint64_t kc_host_code_shared_objects(void);
/* The host code's identity, for the TALLY's host= and `--version`: the
 * digest, but with each shared object that counts read as the binary is
 * (its allocated sections, less the images, the address-holding sections
 * and the loader's pointers), not by path, size and modification time, so
 * that one commit built with one compiler and installed on several hosts
 * (libkcontract.so.N under another prefix, another modification time) is
 * one host code, and a library of other bytes is another. Equal to the
 * digest when no shared object counts (a statically linked kcontract).
 * Computed once per process. 0 and *out; or -1 with why, as the digest. */
int kc_host_code_identity(uint64_t *out, char *why, size_t cap);
#endif
