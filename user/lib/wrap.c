// SPDX-License-Identifier: GPL-3.0-or-later
/* Long lines broken at spaces (wrap.h). */
#include "lib/wrap.h"
#include "lib/env.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int wrap_width(int fd)
{
	const char *c = env_str(ENV_COLUMNS);
	struct winsize ws;
	long w = 0;

	if (c && *c)
		w = strtol(c, NULL, 10);
	else if (isatty(fd) && !ioctl(fd, TIOCGWINSZ, &ws))
		w = ws.ws_col;
	if (w <= 0)
		w = WRAP_DEFAULT_WIDTH;
	return w < WRAP_MIN_WIDTH ? WRAP_MIN_WIDTH : w > 10000 ? 10000 : (int)w;
}

/* Screen columns of the LEN bytes at S: UTF-8 continuation bytes take none. */
static int cols(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* Where a continuation of line S (LEN bytes) starts, in columns: after the
 * leading spaces and a list marker, or two past the leading spaces. */
static int hang(const char *s, size_t len)
{
	size_t i = 0, j;

	while (i < len && s[i] == ' ')
		i++;
	j = i;
	while (j < len && isdigit((unsigned char)s[j]))
		j++;
	if (j > i && j + 1 < len && s[j] == '.' && s[j + 1] == ' ') {
		j += 2;
		if (j < len && s[j] == '[') {
			const char *close = memchr(s + j, ']', len - j);
			if (close && (size_t)(close - s) + 1 < len && close[1] == ' ')
				j = (size_t)(close - s) + 2;
		}
		return (int)j;
	}
	if (i + 1 < len && (s[i] == '-' || s[i] == '*') && s[i + 1] == ' ')
		return (int)i + 2;
	/* a label ending in ": " early in the line, such as "why: " */
	for (j = i; j < len && j < i + 12 && isalpha((unsigned char)s[j]); j++)
		;
	if (j > i && j + 1 < len && s[j] == ':' && s[j + 1] == ' ')
		return (int)j + 2;
	return (int)i + 2;
}

static void wrap_line(FILE *f, const char *s, size_t len, int width)
{
	int indent = hang(s, len);
	bool first = true;

	/* a hanging indent that leaves no room falls back to a narrow one */
	if (indent > width / 2)
		indent = 4;
	if (!len)
		fputc('\n', f);
	while (len) {
		int room = first ? width : width - indent;
		if (!first) {
			while (len && *s == ' ')
				s++, len--;
			if (!len)
				break;
			fprintf(f, "%*s", indent, "");
		}
		if (cols(s, len) <= room) {
			fwrite(s, 1, len, f);
			fputc('\n', f);
			break;
		}
		/* the last space within the room, else the first after it */
		size_t cut = 0, i = 0;
		for (int c = 0; i < len && c <= room; i++) {
			if (s[i] == ' ' && i > 0 && s[i - 1] != ' ')
				cut = i;
			c += ((unsigned char)s[i] & 0xc0) != 0x80;
		}
		if (!cut)
			for (cut = i; cut < len && s[cut] != ' '; cut++)
				;
		fwrite(s, 1, cut, f);
		fputc('\n', f);
		s += cut;
		len -= cut;
		first = false;
	}
}

void wrap_text(FILE *f, const char *text, int width)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		wrap_line(f, text, len, width);
		text += len + (nl != NULL);
	}
}
