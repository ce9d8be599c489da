/* shell_words.c — words quoted for a POSIX shell (shell_words.h). */
#include "shell_words.h"

#include <stdio.h>
#include <string.h>

/* Writes word at *n, bare or single-quoted (shell_words.h), with no space before it. */
static void append_quoted(char *buf, size_t cap, int *n, const char *word)
{
    int bare = *word != 0;
    for (const char *p = word; *p && bare; p++)
        bare = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
               strchr("@%+=:,./_-", *p) != NULL;
    if (bare) {
        *n += snprintf(buf + *n, cap - (size_t)*n, "%s", word);
        return;
    }
    *n += snprintf(buf + *n, cap - (size_t)*n, "'");
    for (const char *p = word; *p && (size_t)*n < cap; p++)
        *n += snprintf(buf + *n, cap - (size_t)*n, *p == '\'' ? "'\\''" : "%c", *p);
    if ((size_t)*n < cap) *n += snprintf(buf + *n, cap - (size_t)*n, "'");
}

void kc_shell_append(char *buf, size_t cap, int *n, const char *word)
{
    if (*n < 0 || (size_t)*n >= cap) return;
    *n += snprintf(buf + *n, cap - (size_t)*n, " ");
    if ((size_t)*n < cap) append_quoted(buf, cap, n, word);
}

void kc_shell_append_assign(char *buf, size_t cap, int *n, const char *name, const char *value)
{
    if (*n < 0 || (size_t)*n >= cap) return;
    *n += snprintf(buf + *n, cap - (size_t)*n, " %s=", name);
    if ((size_t)*n < cap) append_quoted(buf, cap, n, value);
}

void kc_shell_join(const char *const *words, int n, char *buf, size_t cap)
{
    int len = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) kc_shell_append(buf, cap, &len, words[i]);
    if (len > 0 && (size_t)len < cap) memmove(buf, buf + 1, (size_t)len);   /* the leading space */
}
