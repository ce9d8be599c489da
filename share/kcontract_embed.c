/* kcontract_embed.c — embeds one kernel image (a fatbin nvcc wrote) in an
 * object that registers it when loaded (kc_register_module, kcontract.h).
 * The build helpers compile it once per image, never edited:
 *
 *   cc -c kcontract_embed.c -I<kcontract include> -DKC_EMBED_FILE='"<path>.fatbin"' \
 *      -DKC_EMBED_MODULE='"<module>"' [-DKC_EMBED_CONTROL='"<control>"'] \
 *      [-DKC_EMBED_SOURCE='"<sh kcontract_digest.sh <path>.fatbin>"'] -o <image>.o
 *
 * KC_EMBED_FILE is read by the assembler (.incbin), so the object must be
 * rebuilt when the fatbin changes (the helpers make it depend on it).
 * KC_EMBED_ANCHOR, where defined, names a global symbol in the object, so
 * that a library can pull it out of a static archive by referring to it. */
#include "kcontract.h"

#if !defined(KC_EMBED_FILE) || !defined(KC_EMBED_MODULE)
#error "kcontract_embed.c: define KC_EMBED_FILE and KC_EMBED_MODULE (the build helpers do)"
#endif
#ifndef KC_EMBED_CONTROL
#define KC_EMBED_CONTROL 0
#endif
#define KC_EMBED_STR2(x) #x
#define KC_EMBED_STR(x) KC_EMBED_STR2(x)
#ifdef KC_EMBED_SOURCE    /* kcontract_digest.sh's digest of what the image is built from: a string literal */
#define KC_EMBED_SOURCE_ASM ".asciz " KC_EMBED_STR(KC_EMBED_SOURCE) "\n"
#define KC_EMBED_SOURCE_PTR kc_image_source
#else
#define KC_EMBED_SOURCE_ASM ".byte 0\n"
#define KC_EMBED_SOURCE_PTR 0
#endif

/* The image, and its source digest (which changes with it), in a section
 * of their own, .kc_image, page-aligned and padded to whole pages: with
 * share/kcontract_images.ld placing that section before the code, a new
 * image moves the code and the data after it by whole pages together, so
 * their bytes stay the same and the results cache's digest of the host
 * code (src/core/host_code.h) sees no change but the image's. */
__asm__(".section .kc_image,\"a\",@progbits\n"
        ".balign 4096\n"
        "kc_image_start:\n"
        ".incbin \"" KC_EMBED_FILE "\"\n"
        "kc_image_end:\n"
        ".byte 0\n"
        "kc_image_source:\n"
        KC_EMBED_SOURCE_ASM
        ".balign 4096\n"
        ".previous\n");

extern const unsigned char kc_image_start[] __attribute__((visibility("hidden")));
extern const unsigned char kc_image_end[] __attribute__((visibility("hidden")));
extern const char kc_image_source[] __attribute__((visibility("hidden")));

#ifdef KC_EMBED_ANCHOR
__attribute__((visibility("hidden"))) const int KC_EMBED_ANCHOR = 1;
#endif

/* The constructor reads the image's addresses from data the loader fills
 * (volatile: never folded into the code as distances to the image, which
 * would change the code whenever an image before it grows). */
static const unsigned char *const volatile kc_image_at[2] = { kc_image_start, kc_image_end };
static const char *const volatile kc_image_source_at = KC_EMBED_SOURCE_PTR;

__attribute__((constructor)) static void kc_embed_register(void)
{
    kc_register_module(KC_EMBED_MODULE, KC_EMBED_CONTROL, kc_image_at[0], kc_image_at[1], kc_image_source_at,
                       KC_ABI_VERSION);
}
