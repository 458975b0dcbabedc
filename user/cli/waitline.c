// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/waitline.h"
#include "lib/clock.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct waitline {
	double start;
	bool drawn;
	int width, cols; /* the last line's characters and the width it had */
	/* the most the deleters' status files said: a deleter's file goes
	 * with it, and the summary still counts what it removed */
	uint64_t files, dirs;
	/* the first count seen and when: the pace is what --wait saw go */
	uint64_t first;
	double first_t;
	bool have_first;
};

struct waitline *waitline_new(void)
{
	if (!isatty(STDERR_FILENO))
		return NULL;
	struct waitline *l = xcalloc(1, sizeof *l);
	l->start = now_s();
	return l;
}

static int columns(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* The fields joined by ", ", as many as fit in one row (the first always,
 * cut to the width), so that the line never wraps. */
static void draw(struct waitline *l, char fields[][64], int n, bool last)
{
	int term = columns(), cols = term - 1;
	/* a terminal narrowed since the last line reflowed it onto more rows
	 * (most terminals do): start on the first of them, clear the rest */
	if (l->drawn && term < l->cols && l->width > term)
		fprintf(stderr, "\r\033[%dA\033[J", (l->width - 1) / term);
	l->cols = term;
	char line[512] = "";
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		if (!fields[i][0])
			continue;
		size_t add = strlen(fields[i]) + (len ? 2 : 0);
		if (len && len + add > (size_t)cols)
			break;
		len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", len ? ", " : "",
					fields[i]);
	}
	if (len > (size_t)cols && cols > 0)
		line[cols] = '\0';
	fprintf(stderr, "\r%s\033[K%s", line, last ? "\n" : "");
	l->width = (int)strlen(line);
	fflush(stderr);
	l->drawn = true;
}

void waitline_update(struct waitline *l, const struct wait_view *v)
{
	if (!l)
		return;
	double t = now_s();
	uint64_t n = v->files + v->dirs;
	if (v->files + v->dirs > l->files + l->dirs) {
		l->files = v->files;
		l->dirs = v->dirs;
	}
	if (!l->have_first && n) {
		l->first = n;
		l->first_t = t;
		l->have_first = true;
	}
	char f[5][64] = { { 0 } };
	snprintf(f[0], sizeof f[0], "waiting: %zu held", v->held);
	snprintf(f[1], sizeof f[1], "%llu removed", (unsigned long long)n);
	if (l->have_first && t - l->first_t >= 1.0 && n >= l->first)
		snprintf(f[2], sizeof f[2], "%.0f/s", (double)(n - l->first) / (t - l->first_t));
	snprintf(f[3], sizeof f[3], "%.0fs", t - l->start);
	if (v->yielding)
		snprintf(f[4], sizeof f[4], "yielding to others' syncs");
	/* the yield is news the user waits on: before the time when it fits */
	char order[5][64];
	memcpy(order[0], f[0], 64);
	memcpy(order[1], f[1], 64);
	memcpy(order[2], f[4], 64);
	memcpy(order[3], f[2], 64);
	memcpy(order[4], f[3], 64);
	draw(l, order, 5, false);
}

void waitline_finish(struct waitline *l, bool ok)
{
	if (!l)
		return;
	char f[3][64] = { { 0 } };
	snprintf(f[0], sizeof f[0], "%s in %.1f s", ok ? "done waiting" : "stopped waiting",
		 now_s() - l->start);
	if (l->files + l->dirs)
		snprintf(f[1], sizeof f[1], "the deleter removed %llu files, %llu directories",
			 (unsigned long long)l->files, (unsigned long long)l->dirs);
	draw(l, f, 2, true);
	free(l);
}
