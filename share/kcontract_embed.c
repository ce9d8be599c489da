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
#ifndef KC_EMBED_SOURCE   /* kcontract_digest.sh's digest of what the image is built from */
#define KC_EMBED_SOURCE 0
#endif

__asm__(".section .rodata.kc_image,\"a\",@progbits\n"
        ".balign 64\n"
        "kc_image_start:\n"
        ".incbin \"" KC_EMBED_FILE "\"\n"
        "kc_image_end:\n"
        ".byte 0\n"
        ".previous\n");

extern const unsigned char kc_image_start[] __attribute__((visibility("hidden")));
extern const unsigned char kc_image_end[] __attribute__((visibility("hidden")));

#ifdef KC_EMBED_ANCHOR
__attribute__((visibility("hidden"))) const int KC_EMBED_ANCHOR = 1;
#endif

__attribute__((constructor)) static void kc_embed_register(void)
{
    kc_register_module(KC_EMBED_MODULE, KC_EMBED_CONTROL, kc_image_start, kc_image_end, KC_EMBED_SOURCE, KC_ABI_VERSION);
}
