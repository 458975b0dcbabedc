// SPDX-License-Identifier: GPL-3.0-or-later
/* File-name quoting as GNU coreutils prints it (gnulib quoteaf, i.e.
 * shell-escape-always style): 'a b', "it's", 'nl'$'\n''x'. Multibyte
 * characters printable in the current locale are kept; other bytes are
 * written as octal escapes. */
#ifndef ADAPTRM_QUOTE_H
#define ADAPTRM_QUOTE_H
#include <stddef.h>
#include "lib/strbuf.h"

/* Append NAME (LEN bytes) to SB, quoted. */
void quote_append(struct strbuf *sb, const char *name, size_t len);

/* quotef style: quote only when the name needs it (used by "traversal failed"). */
void quote_maybe_append(struct strbuf *sb, const char *name, size_t len);

/* Convenience for one-off messages: quoted NAME in a thread-local buffer,
 * valid until the next call on the same thread with the same slot (0 or 1). */
const char *quote_n(int slot, const char *name);

/* gnulib's quote(): locale_quoting_style, for option values and option names
 * in messages ("invalid argument ‘x’ for ‘--interactive’"): ‘ ’ in a UTF-8
 * locale, else ' '; the closing quote and backslashes escaped with a
 * backslash, other unprintable bytes as C escapes (\n, \001). */
void quote_locale_append(struct strbuf *sb, const char *s, size_t len);
const char *quote_locale_n(int slot, const char *s);

#endif
