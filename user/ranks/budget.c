// SPDX-License-Identifier: GPL-3.0-or-later
/* The shared budget's rule (budget.h): AIMD on the total in flight, from
 * windows of the ranks' summed counts, starting low (BUDGET_START_TOTAL
 * over the ranks) so that the first window's latency is the server's unqueued one,
 * doubling until the first cut. Mean unlink latency, not a log2
 * histogram: a knee shows as a rise of tens of percent, finer than one
 * histogram bucket. */
#include "ranks/budget.h"

#define MIN_UNLINKS 16 /* timed unlinks a window needs to say anything */
#define CONGESTED 1.5  /* latency this far above its floor: queueing */
#define GAINED 1.05    /* throughput this far above the last window's */
#define CUT_NUM 3      /* a cut keeps 3/4 */
#define CUT_DEN 4

void budget_init(struct budget *b, int nranks)
{
	*b = (struct budget){ .nranks = nranks > 0 ? nranks : 1 };
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

bool budget_step(struct budget *b, const struct budget_sample *s)
{
	b->why = BUDGET_HOLD;
	if (!b->have_last) {
		b->last = *s;
		b->have_last = true;
		return false;
	}
	double dt = s->t - b->last.t;
	uint64_t unlinks = s->unlinks - b->last.unlinks;
	if (dt <= 0 || unlinks < MIN_UNLINKS)
		return false; /* too little seen: the window goes on */
	double rate = (double)(s->ops - b->last.ops) / dt;
	double lat = (double)(s->unlink_ns - b->last.unlink_ns) / (double)unlinks;
	b->last = *s;
	int hi = s->max_threads > 0 ? (int)s->max_threads : b->nranks;
	int lo = b->nranks < hi ? b->nranks : hi;
	int old = b->cap;
	if (!b->cap) {
		b->cap = clamp((int)s->threads, lo, hi);
		b->floor_ns = lat;
		b->why = BUDGET_START;
	} else {
		if (lat < b->floor_ns)
			b->floor_ns = lat;
		bool congested = lat > CONGESTED * b->floor_ns;
		bool gained = rate > GAINED * b->prev_rate;
		/* the cap binds only where the ranks run up to it */
		bool binding = (int)s->threads + b->nranks >= b->cap;
		if (congested && !gained) {
			b->cap = clamp(b->cap * CUT_NUM / CUT_DEN, lo, hi);
			b->why = BUDGET_CUT;
			b->probed = true;
		} else if (!congested && binding) {
			/* double until the first cut, then one a rank */
			b->cap = clamp(b->probed ? b->cap + b->nranks : 2 * b->cap, lo, hi);
			b->why = BUDGET_GROW;
		}
	}
	b->prev_rate = rate;
	b->last_ns = lat;
	return b->cap != old;
}

/* Ranks with work share alike: a backlog in proportion would give most of
 * the budget to the rank with the most directories waiting, which one
 * client's own cap on requests in flight (Lustre's 7) may not let it use. */
int budget_start_share(int nranks)
{
	int n = nranks > 0 ? BUDGET_START_TOTAL / nranks : BUDGET_START_TOTAL;
	return n > 0 ? n : 1;
}

int budget_share(const struct budget *b, uint64_t backlog, uint64_t with_work)
{
	if (!b->cap)
		return 0;
	if (!backlog || !with_work)
		return 1; /* nothing to do: a worker for what it may steal */
	int idle = b->nranks - (int)with_work;
	int n = (b->cap - (idle > 0 ? idle : 0)) / (int)with_work;
	return n > 0 ? n : 1;
}

uint64_t budget_ops_share(uint64_t max_ops, int nranks, uint64_t backlog, uint64_t with_work)
{
	/* an idle rank keeps an eighth of an equal share for what it steals */
	uint64_t idle_share = max_ops / (uint64_t)nranks / 8;
	uint64_t idle = (uint64_t)nranks > with_work ? (uint64_t)nranks - with_work : 0;
	uint64_t share = !backlog || !with_work ? idle_share :
						  (max_ops - idle * idle_share) / with_work;
	return share > 0 ? share : 1;
}

const char *budget_why_name(enum budget_why why)
{
	switch (why) {
	case BUDGET_START: return "the controllers' own choice";
	case BUDGET_GROW: return "throughput grew, latency held";
	case BUDGET_CUT: return "latency rose without gain";
	case BUDGET_HOLD:
	default: return "hold";
	}
}
