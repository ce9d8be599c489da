/* shell_words.h — command lines a user pastes back into a POSIX shell (the
 * rerun command of a failed item, the sanitizer's command): every word
 * reads back as it was. A word of only [A-Za-z0-9@%+=:,./_-] stays bare;
 * any other (or an empty one) is single-quoted, each ' written '\''. */
#ifndef KC_SHELL_WORDS_H
#define KC_SHELL_WORDS_H
#include <stddef.h>

/* Appends " word" (a space, then the word quoted as above) to buf at offset
 * *n, cap bytes in all, and advances *n by what snprintf counted; once *n
 * reaches cap nothing more is written (the line is cut, still terminated). */
void kc_shell_append(char *buf, size_t cap, int *n, const char *word);
/* Appends " NAME=value", a shell assignment: NAME bare (it must be a valid
 * variable name: letters, digits, '_'), the value quoted as a word is; an
 * empty value reads back as empty. Cut like kc_shell_append. */
void kc_shell_append_assign(char *buf, size_t cap, int *n, const char *name, const char *value);
/* words[0..n) as one line, separated by single spaces; cut at cap. */
void kc_shell_join(const char *const *words, int n, char *buf, size_t cap);
#endif
