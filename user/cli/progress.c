#include "cli/progress.h"
#include "ctl/controller.h"
#include "lib/clock.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <time.h>

struct progress {
	double last;
	int width; /* characters of the last line, to blank it */
};

static double t_start = -1;

void progress_clock_start(void)
{
	t_start = now_s();
}

double progress_elapsed(void)
{
	return now_s() - t_start;
}

struct progress *progress_new(void)
{
	return xcalloc(1, sizeof(struct progress));
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
	int w = fprintf(stderr, "\r%llu removed  %.0f/s  %.1fs  %d threads", (unsigned long long)n,
			t > 0 ? n / t : 0.0, t, active);
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

void progress_print_stats(struct engine *e, const struct controller *c)
{
	struct engine_totals t = { 0 };
	if (e)
		engine_totals(e, &t);
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
}
