// SPDX-License-Identifier: GPL-3.0-or-later
/* A growable byte buffer for building messages and paths off the hot path. */
#ifndef ADAPTRM_STRBUF_H
#define ADAPTRM_STRBUF_H
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
};

#define STRBUF_INIT \
	{ \
		0 \
	}

void sb_reset(struct strbuf *sb);
void sb_add(struct strbuf *sb, const void *p, size_t n);
void sb_addc(struct strbuf *sb, char c);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sb_str(struct strbuf *sb); /* NUL-terminated view, never NULL */
void sb_free(struct strbuf *sb);

#endif
