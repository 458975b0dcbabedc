// SPDX-License-Identifier: GPL-3.0-or-later
#include "lib/quote.h"

#include <ctype.h>
#include <langinfo.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>
#include <wctype.h>

/* Characters that may stand inside double quotes unchanged, so a name with a
 * single quote and only these is printed as "it's" (gnulib's "c and shell
 * quote compatible" set). */
static bool dq_compatible(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return true;
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
		return true;
	return c && strchr(" %+,-./:@]_'#~?", c) != NULL;
}

/* Characters that force quoting in the "quote only when needed" style. */
static bool shell_special(unsigned char c)
{
	return strchr("\t\n !\"#$&'()*;<=>?[\\]^`{|}~", c) != NULL;
}

/* Length of the printable character at P (0 if not printable). */
static size_t printable_len(const char *p, size_t left, mbstate_t *st)
{
	unsigned char c = (unsigned char)*p;
	if (c < 0x80)
		return (c >= 0x20 && c < 0x7f) ? 1 : 0;
	wchar_t wc;
	mbstate_t save = *st;
	size_t n = mbrtowc(&wc, p, left, st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*st = save;
		memset(st, 0, sizeof(*st));
		return 0;
	}
	if (!iswprint(wc))
		return 0;
	return n;
}

static void add_escape(struct strbuf *sb, unsigned char c)
{
	static const char letters[] = "\aa\bb\ff\nn\rr\tt\vv";
	const char *l = c ? memchr(letters, c, sizeof(letters) - 1) : NULL;
	/* every escape pair has the control char at an even offset */
	if (l && (l - letters) % 2 == 0) {
		sb_addc(sb, '\\');
		sb_addc(sb, l[1]);
	} else {
		sb_addf(sb, "\\%03o", c);
	}
}

/* Is the last character of NAME unprintable (so it ends in a $'..' island)? */
static bool ends_unprintable(const char *name, size_t len)
{
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	bool last = false;
	for (size_t i = 0; i < len;) {
		size_t n = printable_len(name + i, len - i, &st);
		last = n == 0;
		i += n ? n : 1;
	}
	return last;
}

void quote_append(struct strbuf *sb, const char *name, size_t len)
{
	bool has_squote = memchr(name, '\'', len) != NULL;
	bool all_dq = true, all_printable = true;
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < len;) {
		size_t n = printable_len(name + i, len - i, &st);
		if (n == 0) {
			all_printable = false;
			all_dq = false;
			i++;
			continue;
		}
		if (n == 1 && !dq_compatible((unsigned char)name[i]))
			all_dq = false;
		i += n;
	}
	if (has_squote && all_dq && all_printable) {
		sb_addc(sb, '"');
		sb_add(sb, name, len);
		sb_addc(sb, '"');
		return;
	}

	/* 'text' with '\'' for quotes and '$'\ooo'' islands for the rest. */
	bool in_escape = false;
	/* gnulib restarts its quoting when a name holding a single quote ends in
	 * an escape island, and the restarted output keeps an empty '' in front
	 * (observed: a'b<TAB> -> '''a'\''b'$'\t'); invisible when the name starts
	 * with a quote. */
	if (has_squote && len > 0 && name[0] != '\'' && ends_unprintable(name, len))
		sb_adds(sb, "''");
	sb_addc(sb, '\'');
	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < len;) {
		size_t n = printable_len(name + i, len - i, &st);
		if (n == 0) {
			if (!in_escape)
				sb_adds(sb, "'$'");
			in_escape = true;
			add_escape(sb, (unsigned char)name[i]);
			i++;
			continue;
		}
		if (in_escape && name[i] == '\'') {
			/* close the $'..' island straight into \' (gnulib: $'\001'\'') */
			sb_adds(sb, "'\\''");
			in_escape = false;
			i++;
			continue;
		}
		if (in_escape) {
			sb_adds(sb, "''");
			in_escape = false;
		}
		if (name[i] == '\'')
			sb_adds(sb, "'\\''");
		else
			sb_add(sb, name + i, n);
		i += n;
	}
	sb_addc(sb, '\'');
}

void quote_maybe_append(struct strbuf *sb, const char *name, size_t len)
{
	bool plain = len > 0;
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < len && plain;) {
		size_t n = printable_len(name + i, len - i, &st);
		if (n == 0 || (n == 1 && shell_special((unsigned char)name[i])))
			plain = false;
		i += n ? n : 1;
	}
	if (plain)
		sb_add(sb, name, len);
	else
		quote_append(sb, name, len);
}

/* NAME quoted by APPEND into one of a caller's two buffers, so that two
 * quoted names can stand in one message. */
static const char *quote_in_slot(struct strbuf bufs[2], int slot, const char *name,
				 void (*append)(struct strbuf *, const char *, size_t))
{
	struct strbuf *sb = &bufs[slot & 1];
	sb_reset(sb);
	append(sb, name, strlen(name));
	return sb_str(sb);
}

const char *quote_n(int slot, const char *name)
{
	static __thread struct strbuf bufs[2];
	return quote_in_slot(bufs, slot, name, quote_append);
}

/* The quotes gnulib's gettext_quote gives locale_quoting_style when no
 * message catalog translates them: ‘ ’ in a UTF-8 locale, else ' '. */
static const char *locale_quote(bool right)
{
	const char *cs = nl_langinfo(CODESET);
	if (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"))
		return right ? "\xe2\x80\x99" : "\xe2\x80\x98";
	return "'";
}

/* Bytes of the character at P that stand as they are (0: escape its bytes). */
static size_t locale_printable(const char *p, size_t left, mbstate_t *st)
{
	unsigned char c = (unsigned char)*p;
	if (MB_CUR_MAX == 1 || c < 0x80)
		return isprint(c) ? 1 : 0;
	return printable_len(p, left, st);
}

void quote_locale_append(struct strbuf *sb, const char *s, size_t len)
{
	const char *rq = locale_quote(true);
	size_t rqlen = strlen(rq);
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	sb_adds(sb, locale_quote(false));
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		/* The closing quote and the backslash are escaped, so the value
		 * reads back unambiguously. */
		if (c == '\\' || (i + rqlen <= len && !memcmp(s + i, rq, rqlen))) {
			sb_addc(sb, '\\');
			sb_add(sb, s + i, c == '\\' ? 1 : rqlen);
			i += c == '\\' ? 1 : rqlen;
			continue;
		}
		size_t n = locale_printable(s + i, len - i, &st);
		if (n == 0) {
			add_escape(sb, c);
			i++;
			continue;
		}
		sb_add(sb, s + i, n);
		i += n;
	}
	sb_adds(sb, rq);
}

const char *quote_locale_n(int slot, const char *s)
{
	static __thread struct strbuf bufs[2];
	return quote_in_slot(bufs, slot, s, quote_locale_append);
}
