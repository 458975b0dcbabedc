#include "cli/progress.h"
#include "cli/freed.h"
#include "ctl/controller.h"
#include "lib/clock.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <time.h>

struct progress {
	double last;
	int width; /* characters of the last line, to blank it */
	struct freed *freed;
	uint64_t free_rate;
};

static double t_start = -1;
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

struct progress *progress_new(struct freed *freed, uint64_t free_rate)
{
	struct progress *p = xcalloc(1, sizeof(struct progress));
	p->freed = freed;
	p->free_rate = free_rate;
	return p;
}

/* The rate the lane's paced freeing held so far, bytes per second (0
 * before its second step). */
static double held_rate(const struct lane_totals *l)
{
	return l->paced_ns ? (double)l->paced_bytes * 1e9 / (double)l->paced_ns : 0.0;
}

/* "  freed 1.2 GiB" and, with --free-rate, "  at 250.0 MiB/s of 256.0 MiB/s"
 * in BUF. */
static const char *space_clause(const struct progress *p, const struct engine_totals *t, char *buf,
				size_t size)
{
	char freed[32], held[32], rate[32];
	int n = snprintf(buf, size, "  freed %s",
			 units_format_bytes(freed_now(p->freed), freed, sizeof freed));
	if (p->free_rate && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "  at %s/s of %s/s",
			 units_format_bytes((uint64_t)held_rate(&t->lane), held, sizeof held),
			 units_format_bytes(p->free_rate, rate, sizeof rate));
	return buf;
}

void progress_update(struct progress *p, struct engine *e)
{
	double t = progress_elapsed();
	if (!p || t - p->last < 0.1)
		return;
	p->last = t;
	struct engine_totals tot;
	engine_totals(e, &tot);
	uint64_t n = tot.files + tot.dirs;
	int active = atomic_load(&engine_knobs(e)->active_threads);
	char space[96] = "";
	if (p->freed)
		space_clause(p, &tot, space, sizeof space);
	struct progress_cluster c;
	if (cluster(&c)) {
		/* the ranks' sum is up to 200 ms old: never below this rank's own */
		uint64_t all = c.files + c.dirs;
		n = all > n ? all : n;
		snprintf(space, sizeof space, "  %llu/%llu ranks busy", (unsigned long long)c.busy,
			 (unsigned long long)c.ranks);
	}
	int w = fprintf(stderr, "\r%llu removed  %.0f/s  %.1fs  %d threads%s",
			(unsigned long long)n, t > 0 ? n / t : 0.0, t, active, space);
	if (w < p->width)
		fprintf(stderr, "%*s", p->width - w, "");
	if (w > 0)
		p->width = w;
	fflush(stderr);
}

void progress_finish(struct progress *p, struct engine *e)
{
	if (!p)
		return;
	if (p->width)
		fprintf(stderr, "\r%*s\r", p->width, "");
	fflush(stderr);
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
	freed_print(freed, stderr);
	print_lane(&t, free_rate);
}
