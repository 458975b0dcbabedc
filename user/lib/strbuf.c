// SPDX-License-Identifier: GPL-3.0-or-later
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (sb->buf && need <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	sb->buf = xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_add(struct strbuf *sb, const void *p, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

const char *sb_str(struct strbuf *sb)
{
	if (!sb->buf)
		sb_grow(sb, 0), sb->buf[0] = '\0';
	return sb->buf;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}
