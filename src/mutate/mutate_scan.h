/* mutate_scan.h — a CUDA source read for mutation: which bytes are code (not
 * a comment, a string or character literal, a preprocessor line, nor the
 * branch of an #if that only a control build compiles), and the code's
 * tokens (identifiers, numbers, punctuators) with their byte offsets. The
 * mutation operators (mutate_ops.h) work on these tokens, so they never
 * mutate a comment or the text of an #include. */
#ifndef KC_MUTATE_SCAN_H
#define KC_MUTATE_SCAN_H
#include <stddef.h>

typedef enum kc_tok_kind { KC_TOK_IDENT, KC_TOK_NUMBER, KC_TOK_PUNCT } kc_tok_kind;

/* One token: text at src[off .. off + len). */
typedef struct kc_tok {
    kc_tok_kind kind;
    size_t off, len;
} kc_tok;

/* A scanned source: its text (NUL-terminated, owned), code[i] = 1 where byte
 * i is code, and the tokens of the code in order. */
typedef struct kc_src {
    char *text;
    size_t len;
    unsigned char *code;
    kc_tok *tok;
    int ntok;
} kc_src;

/* Scans text[0..len) (copied). Skipped: // and block comments, "..." and
 * '...' literals (with their escapes), preprocessor lines (with their
 * backslash continuations), and the branch of an #if/#ifdef/#ifndef that is
 * compiled only with a control switch KC_CONTROL_<name> (#ifdef KC_CONTROL_x
 * and #if defined(KC_CONTROL_x) skip their first branch, #ifndef KC_CONTROL_x
 * its #else branch): a mutant there would change a control, not the module.
 * Returns 0, or -1 with the reason in err (out of memory, a NUL byte in the
 * source, an unterminated comment or literal with its line). */
int kc_src_scan(kc_src *s, const char *text, size_t len, char *err, size_t cap);

/* Reads path and scans it (kc_src_scan); -1 with the reason (naming path). */
int kc_src_load(kc_src *s, const char *path, char *err, size_t cap);

void kc_src_free(kc_src *s);

/* 1 when token t's text is exactly w. */
int kc_tok_is(const kc_src *s, int t, const char *w);

/* The 1-based line and column of byte offset off. */
void kc_src_line_col(const kc_src *s, size_t off, int *line, int *col);
#endif
