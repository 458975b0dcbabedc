// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/progress.h"
#include "cli/freed.h"
#include "ctl/controller.h"
#include "lib/clock.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* A delete that showed the line this long ends with a one-line summary. */
#define SUMMARY_AFTER_S 3.0
/* Fields of the line, least important last: the narrower the terminal, the
 * more of them are dropped from the end of this order. */
enum field { F_REMOVED, F_TIME, F_SPACE, F_RATE, F_RANKS, F_THREADS, F_HELD, F_COUNT };

struct progress {
	double last;
	bool drawn;   /* something was written: finish clears it */
	bool tty;     /* stderr is a terminal: its width and \033[K apply */
	bool summary; /* a long delete ends with the summary line */
	int cols;     /* the terminal's width, 0 when not known */
	int width;    /* characters of the last line, to blank it off a terminal */
	bool resized; /* the width changed since the last line was drawn */
	struct freed *freed;
	uint64_t free_rate;
	struct sigaction old_winch;
};

/* Set by SIGWINCH, read by the thread that draws: the width is read again
 * before the next line, which is drawn at once. */
static volatile sig_atomic_t g_resized;

static void on_winch(int sig)
{
	(void)sig;
	g_resized = 1;
}

static double t_start = -1;
/* A terminal the user sees though stderr is not one, or -1 (progress.h). */
static int g_terminal = -1;

void progress_set_terminal(int fd)
{
	g_terminal = fd;
}
static bool (*g_cluster)(void *arg, struct progress_cluster *c);
static void *g_cluster_arg;

void progress_set_cluster(bool (*fn)(void *arg, struct progress_cluster *c), void *arg)
{
	g_cluster = fn;
	g_cluster_arg = arg;
}

/* The counts of every rank, if this is one of several. */
static bool cluster(struct progress_cluster *c)
{
	return g_cluster && g_cluster(g_cluster_arg, c);
}

void progress_clock_start(void)
{
	t_start = now_s();
}

double progress_elapsed(void)
{
	return now_s() - t_start;
}

/* The rate the lane's paced freeing held so far, bytes per second (0
 * before its second step). */
static double held_rate(const struct lane_totals *l)
{
	return l->paced_ns ? (double)l->paced_bytes * 1e9 / (double)l->paced_ns : 0.0;
}

/* The terminal's width, read again after a SIGWINCH, or before every line
 * when it is one given by progress_set_terminal (its SIGWINCH goes to
 * another process). */
static void read_width(struct progress *p)
{
	struct winsize ws;
	int fd = g_terminal >= 0 ? g_terminal : STDERR_FILENO;
	g_resized = 0;
	if (!p->tty || ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0)
		return;
	p->resized |= p->cols != ws.ws_col;
	p->cols = ws.ws_col;
}

struct progress *progress_new(struct freed *freed, uint64_t free_rate, bool summary)
{
	struct progress *p = xcalloc(1, sizeof(struct progress));
	p->freed = freed;
	p->free_rate = free_rate;
	p->summary = summary;
	p->tty = isatty(STDERR_FILENO) || g_terminal >= 0;
	if (p->tty) {
		struct sigaction sa = { .sa_handler = on_winch, .sa_flags = SA_RESTART };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGWINCH, &sa, &p->old_winch);
		read_width(p);
	}
	return p;
}

/* The line's fields, each "" when it has nothing to say. */
typedef char fields_t[F_COUNT][48];

/* Where the fields go: their order on the line and what parts them. */
struct layout {
	enum field order[F_COUNT];
	const char *sep;
};
static const struct layout line_layout = { { F_REMOVED, F_RATE, F_TIME, F_THREADS, F_SPACE, F_HELD,
					     F_RANKS },
					   "  " };
static const struct layout summary_layout = { { F_REMOVED, F_TIME, F_RATE, F_SPACE, F_THREADS,
						F_HELD, F_RANKS },
					      ", " };

/* Join the fields of L whose rank is below KEEP into BUF; its length. */
static size_t join(fields_t f, const struct layout *l, int keep, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < F_COUNT; i++) {
		enum field k = l->order[i];
		if ((int)k >= keep || !f[k][0])
			continue;
		int w = snprintf(buf + n, size - n, "%s%s", n ? l->sep : "", f[k]);
		if (w > 0)
			n = n + (size_t)w < size ? n + (size_t)w : size - 1;
	}
	return n;
}

/* The fields of L that fit COLS columns less one (the cursor never reaches the
 * last column, where some terminals wrap), in BUF; cut short if even the
 * first does not fit. Its length. */
static size_t fit(fields_t f, const struct layout *l, int cols, char *buf, size_t size)
{
	size_t n = 0;
	for (int keep = F_COUNT; keep >= 1; keep--) {
		n = join(f, l, keep, buf, size);
		if (cols <= 0 || n < (size_t)cols)
			return n;
	}
	n = cols > 1 ? (size_t)cols - 1 : 0;
	buf[n] = '\0';
	return n;
}

/* One write of the whole line, so no half line is seen. */
static void put(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Draw TEXT over the line (and end it with a newline if LAST): on a
 * terminal "\r", the text, then clear to the end of the line; elsewhere
 * spaces blank what is left of a longer line before. */
static void draw(struct progress *p, const char *text, size_t n, bool last)
{
	char buf[512], up[32] = "";
	int pad = !p->tty && (int)n < p->width ? p->width - (int)n : 0;
	/* A terminal that reflows (most do) wrapped a last line wider than its
	 * width now onto more rows, the cursor on the last: this line starts
	 * on the first of them and clears the rest. */
	if (p->tty && p->resized && p->drawn && p->cols > 0 && p->width > p->cols)
		snprintf(up, sizeof up, "\r\033[%dA\033[J", (p->width - 1) / p->cols);
	p->resized = false;
	int w = snprintf(buf, sizeof buf, "%s\r%s%s%*s%s", up, text, p->tty ? "\033[K" : "", pad,
			 "", last ? "\n" : "");
	if (w > 0)
		put(buf, (size_t)w < sizeof buf ? (size_t)w : sizeof buf - 1);
	p->width = (int)n;
	p->drawn = true;
}

/* "free space +1.2 GiB": the growth of the operands' filesystems' free
 * space, which is theirs and not the delete's (others write there too), so
 * it is not called freed; nothing where it cannot be known or did not grow.
 * PREFIX is how the line or the summary words it. */
static void grew_field(const struct progress *p, const char *prefix, fields_t f)
{
	char grew[32];
	uint64_t by = p->freed && freed_known(p->freed) ? freed_now(p->freed) : 0;
	if (by)
		snprintf(f[F_SPACE], sizeof f[F_SPACE], "%s%s", prefix,
			 units_format_bytes(by, grew, sizeof grew));
}

/* The space clause: "free space +1.2 GiB" and, with --free-rate, "at 250.0
 * MiB/s of 256.0 MiB/s". */
static void space_fields(const struct progress *p, const struct engine_totals *t, fields_t f)
{
	char held[32], rate[32];
	grew_field(p, "free space +", f);
	if (p->freed && p->free_rate)
		snprintf(f[F_HELD], sizeof f[F_HELD], "at %s/s of %s/s",
			 units_format_bytes((uint64_t)held_rate(&t->lane), held, sizeof held),
			 units_format_bytes(p->free_rate, rate, sizeof rate));
}

void progress_update(struct progress *p, struct engine *e)
{
	double t = progress_elapsed();
	if (!p || (t - p->last < 0.1 && !g_resized))
		return;
	p->last = t;
	if (g_resized || g_terminal >= 0)
		read_width(p);
	struct engine_totals tot;
	engine_totals(e, &tot);
	uint64_t n = tot.files + tot.dirs;
	fields_t f = { { 0 } };
	space_fields(p, &tot, f);
	struct progress_cluster c;
	if (cluster(&c)) {
		/* the ranks' sum is up to 200 ms old: never below this rank's own */
		uint64_t all = c.files + c.dirs;
		n = all > n ? all : n;
		snprintf(f[F_RANKS], sizeof f[F_RANKS], "%llu/%llu ranks busy",
			 (unsigned long long)c.busy, (unsigned long long)c.ranks);
	}
	snprintf(f[F_REMOVED], sizeof f[F_REMOVED], "%llu removed", (unsigned long long)n);
	snprintf(f[F_RATE], sizeof f[F_RATE], "%.0f/s", t > 0 ? n / t : 0.0);
	snprintf(f[F_TIME], sizeof f[F_TIME], "%.1fs", t);
	int threads = engine_active_threads(e);
	snprintf(f[F_THREADS], sizeof f[F_THREADS], "%d thread%s", threads, threads == 1 ? "" : "s");
	char line[400];
	draw(p, line, fit(f, &line_layout, p->cols, line, sizeof line), false);
}

/* "removed 1200 files, 300 directories, in 4.6 s, 326/s, free space grew by
 * 1.2 GiB":
 * the end of a delete that showed the line for a while. */
static void summary(struct progress *p, struct engine *e)
{
	struct engine_totals t = { 0 };
	if (e)
		engine_totals(e, &t);
	struct progress_cluster c;
	if (cluster(&c)) {
		t.files = c.files;
		t.dirs = c.dirs;
	}
	double secs = progress_elapsed();
	fields_t f = { { 0 } };
	snprintf(f[F_REMOVED], sizeof f[F_REMOVED], "removed %llu files, %llu directories",
		 (unsigned long long)t.files, (unsigned long long)t.dirs);
	snprintf(f[F_TIME], sizeof f[F_TIME], "in %.1f s", secs);
	snprintf(f[F_RATE], sizeof f[F_RATE], "%.0f/s", secs > 0 ? (t.files + t.dirs) / secs : 0.0);
	grew_field(p, "free space grew by ", f);
	char line[400];
	draw(p, line, fit(f, &summary_layout, p->cols, line, sizeof line), true);
}

void progress_abort(struct progress *p)
{
	if (p)
		p->summary = false;
	progress_finish(p, NULL);
}

void progress_finish(struct progress *p, struct engine *e)
{
	if (!p)
		return;
	if (g_resized || g_terminal >= 0)
		read_width(p);
	if (p->drawn && p->summary && progress_elapsed() >= SUMMARY_AFTER_S)
		summary(p, e);
	else if (p->drawn)
		draw(p, "", 0, false);
	if (p->drawn && !p->tty)
		put("\r", 1);
	if (p->tty)
		sigaction(SIGWINCH, &p->old_winch, NULL);
	free(p);
}

/* The lane's line, when it did anything or was asked for: "large files: 3
 * by the lane (auto: ...)" and --free-rate's "asked, held". */
static void print_lane(const struct engine_totals *t, uint64_t free_rate)
{
	const struct lane_totals *l = &t->lane;
	if (!l->files && !l->auto_lane && !free_rate)
		return;
	fprintf(stderr, "large files: %llu by the lane%s\n", (unsigned long long)l->files,
		l->auto_lane ? " (auto: switched on by a long unlinkat)" : "");
	if (!free_rate)
		return;
	char asked[32], held[32];
	fprintf(stderr, "free rate: %s/s asked, %s/s held (%llu truncations)\n",
		units_format_bytes(free_rate, asked, sizeof asked),
		units_format_bytes((uint64_t)held_rate(l), held, sizeof held),
		(unsigned long long)l->truncations);
}

void progress_print_stats(struct engine *e, const struct controller *c, struct freed *freed,
			  uint64_t free_rate)
{
	struct engine_totals t = { 0 };
	if (e)
		engine_totals(e, &t);
	struct progress_cluster cl;
	bool spread = cluster(&cl);
	if (spread) {
		t.files = cl.files;
		t.dirs = cl.dirs;
		t.errors = cl.errors;
	}
	double secs = progress_elapsed();
	uint64_t n = t.files + t.dirs;
	char threads[96];
	if (c)
		controller_describe(c, threads, sizeof(threads));
	else if (e)
		snprintf(threads, sizeof(threads), "%d (fixed)", engine_max_threads(e));
	else
		snprintf(threads, sizeof(threads), "0 (no tree)");
	fprintf(stderr,
		"removed: %llu files, %llu directories in %.3f s (%.0f entries/s)\n"
		"threads: %s\n"
		"syscalls: %llu (%.3f per entry; %llu getdents64 calls, %llu bytes)\n"
		"errors: %llu\n",
		(unsigned long long)t.files, (unsigned long long)t.dirs, secs,
		secs > 0 ? n / secs : 0.0, threads, (unsigned long long)t.syscalls,
		n ? (double)t.syscalls / n : 0.0, (unsigned long long)t.getdents_calls,
		(unsigned long long)t.getdents_bytes, (unsigned long long)t.errors);
	if (spread)
		fprintf(stderr,
			"ranks: %llu (%llu donations taken; syscalls and threads: rank 0's)\n",
			(unsigned long long)cl.ranks, (unsigned long long)cl.steals);
	if (t.heavy_splits)
		fprintf(stderr, "slow slices shared: %llu (heavy unlinks: big files)\n",
			(unsigned long long)t.heavy_splits);
	if (t.heavy_lanes)
		fprintf(stderr,
			"slow slices to the large-file lane: %llu (one worker: its big files)\n",
			(unsigned long long)t.heavy_lanes);
	freed_print(freed, stderr);
	print_lane(&t, free_rate);
}
