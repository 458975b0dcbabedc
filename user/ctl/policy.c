// SPDX-License-Identifier: GPL-3.0-or-later
/* The adaptive controller's decision logic (see policy.h).
 *
 * Shape: each tick adds its sample to a window (window_close); when the
 * window closes, the phase's handler walks its table of named rules in order
 * and the first that applies acts: start_rules for the first window at the
 * start point, candidate_rules for a climb step or a gentle probe against its
 * base, hold_rules at the settled point. The rule's name is the decision's
 * (CTL_RULE_* in policy.h). Measurements behind the rules:
 * docs/lab/log.md#controller.
 *
 * Why these numbers:
 * - A window is 2 ticks of ~100 ms. One tick of a deletion holds a few
 *   hundred (FUSE) to tens of thousands (tmpfs) of unlinks: enough for a rate,
 *   but directory boundaries make single ticks jumpy; 2 ticks halve the noise
 *   and still let a climb 1 -> 64 finish in about a second.
 * - A gain counts only beyond 8% (band): less is within what a shared 2-CPU
 *   machine does on its own, and 90% of the optimum is the goal anyway.
 *   Gains inside the band are measured once more before being called flat,
 *   and flat means "keep the smaller count" (fewer threads, less contention).
 * - Gentle probes are ±25% (at least one worker) and wait 3 windows, doubling
 *   to 25 windows (5 s) while they find nothing: a flat noisy curve then
 *   costs a short excursion every few seconds, never an oscillation.
 * - The settled rate moving by more than 2 bands for 2 windows in a row means
 *   the filesystem or the tree shape changed: climb again at once. */
#include "ctl/policy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ctl_policy_defaults(struct ctl_policy_cfg *cfg, int cap, int ncpu)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ncpu = ncpu < 1 ? 1 : ncpu;
	cfg->cap = cap < 1 ? 1 : cap >= CTL_TABLE ? CTL_TABLE - 1 : cap;
	cfg->window_ticks = 2;
	cfg->band = 0.08;
	cfg->hold_min = 3;
	cfg->hold_max = 25;
}

const char *ctl_phase_name(enum ctl_phase ph)
{
	switch (ph) {
	case CTL_CLIMB: return "climb";
	case CTL_HOLD: return "hold";
	case CTL_PROBE: return "probe";
	}
	return "?";
}

static int clampn(const struct ctl_policy *p, int n)
{
	int hi = p->cfg.cap;
	if (p->ceiling > 0 && p->ceiling < hi)
		hi = p->ceiling;
	if (p->budget > 0 && p->budget < hi)
		hi = p->budget;
	if (p->knee > 1 && p->knee - 1 < hi)
		hi = p->knee - 1;
	if (n > hi)
		n = hi;
	return n < 1 ? 1 : n;
}

static int big_step(const struct ctl_policy *p, int n, int dir)
{
	return clampn(p, dir > 0 ? n * 2 : n / 2);
}

static int gentle_step(const struct ctl_policy *p, int n, int dir)
{
	int s = n / 4 > 1 ? n / 4 : 1;
	return clampn(p, dir > 0 ? n + s : n - s);
}

void ctl_policy_init(struct ctl_policy *p, const struct ctl_policy_cfg *cfg, int start, bool known)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->n = clampn(p, start);
	p->dir = +1;
	p->lat_min = -1;
	p->base_n = p->n;
	p->probe_dir = +1;
	p->hold_len = cfg->hold_min;
	if (known) {
		/* A stored profile is trusted: hold first, probe gently later
		 * (a probe costs ~1 window at a worse count: not in the first
		 * 0.6 s, which is all a short delete lasts). */
		p->phase = CTL_HOLD;
		p->hold_left = cfg->hold_min;
	} else {
		p->phase = CTL_CLIMB;
	}
}

static bool move_to(struct ctl_policy *p, int to, struct ctl_decision *d)
{
	d->from = p->n;
	d->to = to;
	d->changed = to != p->n;
	p->n = to;
	p->cand_windows = 0;
	p->cand_ops = p->cand_dt = 0;
	return d->changed;
}

static void set_base(struct ctl_policy *p, double rate, double lat, double cont)
{
	p->base_cpu = p->base_blk = -1;
	p->base_n = p->n;
	p->base_rate = rate;
	p->base_lat = lat;
	p->base_cont = cont;
}

static bool enter_hold(struct ctl_policy *p, int at, double rate, bool grow, struct ctl_decision *d)
{
	p->phase = CTL_HOLD;
	p->settled_once = true;
	if (grow) {
		p->hold_len *= 2;
		if (p->hold_len > p->cfg.hold_max)
			p->hold_len = p->cfg.hold_max;
	} else {
		p->hold_len = p->cfg.hold_min;
	}
	p->hold_left = p->hold_len;
	p->ref_rate = rate;
	p->drift_up = p->drift_down = 0;
	p->starved = 0;
	p->fast_up = false;
	p->base_n = at;
	p->base_rate = rate;
	return move_to(p, at, d);
}

bool ctl_policy_set_budget(struct ctl_policy *p, int budget, struct ctl_decision *d)
{
	int old = p->budget;
	*d = (struct ctl_decision){ .rule = CTL_RULE_BUDGET };
	p->budget = budget;
	/* the share is the count: every rank's own climb would read the
	 * others' work as its own gain */
	int to = clampn(p, budget > 0 ? budget : p->n);
	if (to == p->n)
		return false;
	memset(&p->w, 0, sizeof p->w);
	snprintf(d->why, CTL_WHY_LEN, "the ranks' shared budget %d -> %d", old, budget);
	return enter_hold(p, to, p->ref_rate, false, d);
}

/* Start a climb from the current point, whose rate is RATE. */
static bool start_climb(struct ctl_policy *p, int dir, double rate, double lat, double cont,
			struct ctl_decision *d)
{
	p->phase = CTL_CLIMB;
	p->dir = dir;
	p->tried_down = dir < 0;
	p->climb_accepts = 0;
	set_base(p, rate, lat, cont);
	int to = big_step(p, p->n, dir);
	if (to == p->n && dir > 0 && p->n > 1) {
		p->dir = -1;
		p->tried_down = true;
		to = big_step(p, p->n, -1);
	}
	if (to == p->n)
		return enter_hold(p, p->n, rate, false, d);
	return move_to(p, to, d);
}

/* The gain that counts as real: the band, or more when the windows measured
 * in hold show noisier rates (2.5 standard errors of the difference between
 * CW candidate windows and the reference, an EWMA worth about 2 windows:
 * estimates from few windows run low). */
static double threshold(const struct ctl_policy *p, int cw)
{
	double t = p->cfg.band;
	if (p->noise_n >= 1) {
		double se = 2.5 * sqrt(p->noise_var * (1.0 / (cw > 0 ? cw : 1) + 1.0 / 2));
		if (se > t)
			t = se;
	}
	return t;
}

/* Workers rarely off the CPU for anything but the run queue: the blocked
 * share (schedstat or the probes) is measured and low, lock waits too. */
static bool cpu_bound(double blk, double cont)
{
	return blk >= 0 && blk < 0.2 && (cont < 0 || cont < 0.1);
}

/* Every CPU has such a busy worker: more workers can only time-slice. */
static bool cpu_saturated(const struct ctl_policy *p, double blk, double cont, double busy)
{
	return p->n >= p->cfg.ncpu && cpu_bound(blk, cont) && busy >= 0.8;
}

/* Workers without work (one huge directory, a chain) cost nothing but make
 * the count meaningless: cut it to the busy ones, at least one. */
static int trimmed_count(double busy, int n)
{
	int to = (int)ceil(busy * n - 0.05);
	return to < 1 ? 1 : to > n ? n : to;
}

/* Add sample S to the window; when the window closes, fill W and remember
 * the window's rate, latency and noise. The first window at the start of a
 * climb is one tick where the workers are clearly blocked from the first
 * tick on (a latency-bound filesystem): a short delete, which there may
 * last only a few ticks, gets to climb at all. */
static bool window_close(struct ctl_policy *p, const struct ctl_sample *s, struct ctl_window *w)
{
	int need = p->fast_up ? 1 : p->cfg.window_ticks;
	if (p->windows == 0 && p->phase == CTL_CLIMB && s->blocked >= 0.6 && s->busy >= 0.8 &&
	    !(s->capped >= 0.5))
		need = 1;
	double v;
	if (!ctl_window_add(&p->w, s, need, w, &v))
		return false;
	if (v > 0) {
		p->noise_var = p->noise_n ? 0.8 * p->noise_var + 0.2 * v : v;
		p->noise_n++;
	}
	p->windows++;
	if (p->seen_at[p->n]++ == 0)
		p->rate_at[p->n] = w->rate;
	else
		p->rate_at[p->n] = 0.6 * p->rate_at[p->n] + 0.4 * w->rate;
	if (w->lat > 0 && (p->lat_min < 0 || w->lat < p->lat_min))
		p->lat_min = w->lat;
	return true;
}

/* --explain's evidence for D with a printf-made note (at most 95 bytes). */
__attribute__((format(printf, 4, 5))) static void explainf(struct ctl_decision *d, double gain,
							   const struct ctl_window *w,
							   const char *fmt, ...)
{
	char note[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(note, sizeof note, fmt, ap);
	va_end(ap);
	ctl_window_evidence(d->why, gain, w, note);
}

/* A rule: the first in its table that applies acts. A row without a name is
 * bookkeeping, done where it stands in the order (TRACK). */
struct rule {
	const char *name;
	bool (*applies)(const struct ctl_policy *p, const struct ctl_window *w);
	bool (*act)(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d);
	void (*track)(struct ctl_policy *p, const struct ctl_window *w);
};
#define RULE(n, if_, then) \
	{ \
		.name = n, .applies = if_, .act = then \
	}
#define TRACK(fn) \
	{ \
		.track = fn \
	}

static bool walk(const struct rule *r, struct ctl_policy *p, const struct ctl_window *w,
		 struct ctl_decision *d)
{
	for (;; r++) {
		if (!r->name) {
			r->track(p, w);
		} else if (r->applies(p, w)) {
			d->rule = r->name;
			return r->act(p, w, d);
		}
	}
}

static bool always(const struct ctl_policy *p, const struct ctl_window *w)
{
	return true;
}

/* Nothing changes this window. */
static bool stay(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	return false;
}

static bool idle(const struct ctl_window *w)
{
	return w->busy >= 0 && w->busy < 0.6;
}

static bool blocked_busy(const struct ctl_window *w)
{
	return w->blk >= 0.6 && w->busy >= 0.8;
}

/* Most of the blocked time is on a cap more workers cannot pass: journal or
 * log space, writeback, block throttling, reads held above the device. More
 * requests in flight only queue behind it (docs/design.md#controller). */
static bool capped(const struct ctl_window *w)
{
	return w->capped >= 0.5;
}

/* Blocked on something more workers overlap: reads on a slow device, FUSE
 * round trips (or the cause is not measured: as before the probes said). */
static bool blocked_overlaps(const struct ctl_window *w)
{
	return blocked_busy(w) && !capped(w);
}

/* ---- The first window at the start point: measure, then step. ---- */

static bool first_idle(const struct ctl_policy *p, const struct ctl_window *w)
{
	return idle(w) && p->dir > 0;
}

static bool first_saturated(const struct ctl_policy *p, const struct ctl_window *w)
{
	return p->dir > 0 && cpu_saturated(p, w->blk, w->cont, w->busy);
}

/* At the cap with workers mostly blocked: the clear signal says more, so
 * fewer can only lose. */
static bool first_at_cap(const struct ctl_policy *p, const struct ctl_window *w)
{
	return p->dir > 0 && clampn(p, p->n + 1) == p->n && blocked_busy(w);
}

/* At the cap with workers blocked on nothing measured as a cap: a service
 * with a fixed number of requests in flight (a client's RPC slots, a FUSE
 * daemon's threads, a small queue depth) looks the same from here, so half
 * the workers are tried once; the knee rules below keep fewer or come back
 * after one window. */
static bool first_knee(const struct ctl_policy *p, const struct ctl_window *w)
{
	return p->dir > 0 && p->n >= 4 && clampn(p, p->n + 1) == p->n && blocked_busy(w) &&
	       !capped(w);
}

/* Workers blocked on a cap from the start: more would queue behind it, and
 * the throughput comparison of a climb reads the cap's bursts as gains. */
static bool first_capped(const struct ctl_policy *p, const struct ctl_window *w)
{
	return p->dir > 0 && w->blk >= 0.6 && capped(w);
}

/* A quarter of the busy time already waits on locks: look below first, up
 * would add waiters (docs/design.md#controller). */
static bool first_contended(const struct ctl_policy *p, const struct ctl_window *w)
{
	return p->dir > 0 && w->cont >= 0.25 && p->n > 1;
}

/* One worker on a filesystem whose second worker usually loses (btrfs: both
 * write-lock the fs tree's root node) and not blocked on reads: a climb
 * would spend a window at two, more than a short delete can win back. The
 * hold is one window, so a delete that lasts tries two soon after; blocked
 * workers climb as before. */
static bool first_one(const struct ctl_policy *p, const struct ctl_window *w)
{
	return p->windows == 1 && p->n == 1 && p->cfg.one_first && w->blk < 0.3;
}

static bool first_cut(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	int to = trimmed_count(w->busy, p->n);
	explainf(d, 0, w, "workers idle (busy %.0f%%): trimming", w->busy * 100);
	set_base(p, w->rate, w->lat, w->cont);
	p->trimmed = to < p->n;
	return enter_hold(p, to, w->rate, false, d);
}

/* Hold here; gentle probes look elsewhere once the signal changes. */
static bool first_hold(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	set_base(p, w->rate, w->lat, w->cont);
	return enter_hold(p, p->n, w->rate, false, d);
}

static bool first_hold_one(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	ctl_window_evidence(d->why, 0, w,
			    "one worker not blocked where a second usually loses: holding a window");
	bool ch = first_hold(p, w, d);
	p->hold_left = 1;
	return ch;
}

static bool climb_from_start(struct ctl_policy *p, const struct ctl_window *w,
			     struct ctl_decision *d, const char *note)
{
	bool ch = start_climb(p, p->dir, w->rate, w->lat, w->cont, d);
	p->base_cpu = w->cpu;
	p->base_blk = w->blk;
	if (ch)
		ctl_window_evidence(d->why, 0, w, note);
	return ch;
}

static bool first_climb(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	char note[96];
	snprintf(note, sizeof note, "first window %.0f ops/s", w->rate);
	return climb_from_start(p, w, d, note);
}

static bool first_knee_check(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	char note[96];
	snprintf(note, sizeof note,
		 "first window %.0f ops/s at the cap: do half the workers as well?", w->rate);
	p->dir = -1;
	return climb_from_start(p, w, d, note);
}

static bool first_climb_down(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	char note[96];
	snprintf(note, sizeof note, "first window %.0f ops/s, contended: trying fewer", w->rate);
	p->dir = -1;
	return climb_from_start(p, w, d, note);
}

static const struct rule start_rules[] = {
	RULE(CTL_RULE_FIRST_IDLE, first_idle, first_cut),
	RULE(CTL_RULE_FIRST_SATURATED, first_saturated, first_hold),
	RULE(CTL_RULE_FIRST_KNEE, first_knee, first_knee_check),
	RULE(CTL_RULE_FIRST_AT_CAP, first_at_cap, first_hold),
	RULE(CTL_RULE_FIRST_CAPPED, first_capped, first_hold),
	RULE(CTL_RULE_FIRST_CONTENDED, first_contended, first_climb_down),
	RULE(CTL_RULE_FIRST_ONE, first_one, first_hold_one),
	RULE(CTL_RULE_FIRST_CLIMB, always, first_climb),
};

/* ---- A candidate (climb step or gentle probe) against its base. ---- */

static bool up(const struct ctl_policy *p)
{
	return p->n > p->base_n;
}

static bool probing(const struct ctl_policy *p)
{
	return p->phase == CTL_PROBE;
}

/* Clear signals, decided at once: more workers gained nothing, and they
 * idled, or waited on locks more, or queued (latency x1.5). */
static bool up_idle(const struct ctl_policy *p, const struct ctl_window *w)
{
	return up(p) && w->gain < w->thr && idle(w);
}

static bool up_contended(const struct ctl_policy *p, const struct ctl_window *w)
{
	return up(p) && w->gain < w->thr && w->cont >= 0.25 &&
	       w->cont > (p->base_cont > 0 ? p->base_cont : 0) + 0.05;
}

/* Latency up by half and the gain below a quarter of the workers added:
 * by Little's law most of the new ones only queued (the knee of a service
 * with a fixed number of requests in flight), even where the small gain
 * passes the band. */
static double knee_gain(const struct ctl_policy *p, const struct ctl_window *w)
{
	double g = 0.25 * ((double)p->n / p->base_n - 1);
	return g > w->thr ? g : w->thr;
}

static bool up_queueing(const struct ctl_policy *p, const struct ctl_window *w)
{
	return up(p) && w->lat > 0 && p->base_lat > 0 && w->lat > 1.5 * p->base_lat &&
	       w->gain < knee_gain(p, w);
}

/* A probe's gain needs a second window unless it is large. */
static bool gained(const struct ctl_policy *p, const struct ctl_window *w)
{
	return w->gain > w->thr && (!probing(p) || p->cand_windows >= 2 || w->gain > 3 * w->thr);
}

/* The knee of a service with a fixed concurrency: fewer blocked workers
 * kept the throughput while the latency fell with their count. By Little's
 * law the ones removed only waited in a queue elsewhere (docs/design.md#the-knee).
 * A gentle probe's flat window is confirmed by a second, as its gain is.
 * Blocked on a measured cap, the cap's own rules decide (blocked_on_cap). */
static bool knee_below(const struct ctl_policy *p, const struct ctl_window *w)
{
	return !up(p) && w->gain >= -p->cfg.band && w->blk >= 0.5 && !capped(w) && w->lat > 0 &&
	       p->base_lat > 0 && w->lat <= 1.25 * p->base_lat * p->n / p->base_n &&
	       (!probing(p) || p->cand_windows >= 2);
}

/* Fewer workers at the latency of more: nothing queued, so the loss is
 * real from the first window (a step down is otherwise judged on two). */
static bool down_no_queue(const struct ctl_policy *p, const struct ctl_window *w)
{
	return !up(p) && w->gain < -2 * p->cfg.band && w->lat > 0 && p->base_lat > 0 &&
	       w->lat >= 0.8 * p->base_lat;
}

/* A step down is judged on two windows: the first still pays for the work
 * the larger count left behind (docs/design.md#controller). */
static bool down_unconfirmed(const struct ctl_policy *p, const struct ctl_window *w)
{
	return !up(p) && p->cand_windows < 2 && w->gain < w->thr;
}

/* Going back to the base needs less proof than leaving it: a loss beyond the
 * plain band ends the trial after one window, even where the noise makes
 * the threshold for a gain wider. */
static bool inside_band(const struct ctl_policy *p, const struct ctl_window *w)
{
	return w->gain >= -p->cfg.band && w->gain <= w->thr && p->cand_windows < 2;
}

/* A loss beyond the plain band (the threshold is never below the band, so
 * this includes every loss beyond the threshold). */
static bool worse(const struct ctl_policy *p, const struct ctl_window *w)
{
	return w->gain < -p->cfg.band;
}

/* Flat going down on the first climb: the smaller count does as well; keep
 * it. Later, flat means "stay" (a noisy flat curve must not ratchet the count
 * down), except down to one worker per CPU from a CPU-bound start above it,
 * or away from a count whose workers mostly waited on locks
 * (docs/design.md#controller). */
static bool flat_down_keeps(const struct ctl_policy *p, const struct ctl_window *w)
{
	bool probe = probing(p);
	return w->gain >= -w->thr && !up(p) &&
	       ((!probe && !p->settled_once) || p->base_cont >= 0.4 ||
		(probe && p->n >= p->cfg.ncpu && cpu_bound(p->base_blk, p->base_cont)));
}

static bool accept(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	bool is_up = up(p);
	bool overlap = w->blk >= 0.5 && !capped(w);
	const char *note = is_up && overlap ? "blocked workers, adding" : "";
	ctl_window_evidence(d->why, w->gain, w, note);
	if (p->phase != CTL_CLIMB)
		p->climb_accepts = 0, p->tried_down = !is_up;
	p->phase = CTL_CLIMB;
	p->climb_accepts++;
	p->dir = is_up ? +1 : -1;
	p->fast_up = is_up && overlap;
	set_base(p, w->crate, w->lat, w->cont);
	int to = big_step(p, p->n, p->dir);
	if (to == p->n)
		return enter_hold(p, p->n, w->crate, false, d);
	return move_to(p, to, d); /* reports the accepted step and steps on */
}

/* Past the knee: remember where queueing began and step down again. */
static bool knee_step(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	explainf(d, w->gain, w, "latency x%.2f with %d of %d workers: the rest queued elsewhere",
		 w->lat / p->base_lat, p->n, p->base_n);
	if (p->phase != CTL_CLIMB)
		p->climb_accepts = 0;
	p->phase = CTL_CLIMB;
	p->climb_accepts++;
	p->dir = -1;
	p->tried_down = true;
	p->fast_up = false;
	p->knee = p->base_n;
	set_base(p, w->crate, w->lat, w->cont);
	p->base_blk = w->blk;
	int to = big_step(p, p->n, -1);
	if (to == p->n)
		return enter_hold(p, p->n, w->crate, false, d);
	return move_to(p, to, d);
}

static bool keep_fewer(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	ctl_window_evidence(d->why, w->gain, w, "flat, fewer threads");
	return enter_hold(p, p->n, w->crate, false, d);
}

/* The candidate lost: back to the base (or, the first step up lost, below
 * it), holding the longer the clearer the loss. */
static bool reject(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	bool is_up = up(p), probe = probing(p);
	p->fast_up = false;
	if (is_up)
		p->up_failed_at = p->base_n;
	else
		p->down_failed_at = p->base_n;
	/* Runnable most of their busy time and not waiting on locks: the start
	 * was CPU-bound ("on CPU" alone would miss a loaded machine's run queue). */
	bool cpu_start = (p->base_blk >= 0 ? p->base_blk < 0.4 : p->base_cpu >= 0.6) &&
			 (p->base_cont < 0 || p->base_cont < 0.1);
	if (!probe && is_up && !p->tried_down && p->base_n > 1 && p->climb_accepts == 0 &&
	    !(cpu_start && p->base_n <= p->cfg.ncpu)) {
		/* The very first step up lost: the peak may be below the start
		 * (not when CPU-bound at most one worker per CPU: fewer workers
		 * would only leave CPUs idle). */
		p->tried_down = true;
		p->dir = -1;
		int to = big_step(p, p->base_n, -1);
		if (to != p->base_n)
			return move_to(p, to, d);
	}
	if (w->gain < -2 * w->thr) {
		/* A clear loss is not worth re-checking soon: the longest hold.
		 * A changed filesystem or tree still shows as drift. */
		p->hold_len = p->cfg.hold_max;
		return enter_hold(p, p->base_n, p->base_rate, true, d);
	}
	return enter_hold(p, p->base_n, p->base_rate, probe, d);
}

static bool reject_idle(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	explainf(d, w->gain, w, "workers idle (busy %.0f%%)", w->busy * 100);
	return reject(p, w, d);
}

static bool reject_contention(struct ctl_policy *p, const struct ctl_window *w,
			      struct ctl_decision *d)
{
	explainf(d, w->gain, w, "contention rose with threads");
	p->ceiling = p->base_n;
	return reject(p, w, d);
}

static bool reject_queueing(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	explainf(d, w->gain, w, "latency x%.1f, %+.0f%% workers, no gain to match (queueing)",
		 w->lat / p->base_lat, 100.0 * (p->n - p->base_n) / p->base_n);
	return reject(p, w, d);
}

static bool reject_no_queue(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	if (p->knee)
		explainf(d, w->gain, w,
			 "latency x%.2f with fewer: nothing queued, the knee is %d (queueing from %d)",
			 w->lat / p->base_lat, p->base_n, p->knee);
	else
		explainf(d, w->gain, w, "latency x%.2f with fewer: nothing queued",
			 w->lat / p->base_lat);
	return reject(p, w, d);
}

static bool reject_worse(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	ctl_window_evidence(d->why, w->gain, w, "worse");
	return reject(p, w, d);
}

static bool reject_flat(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	ctl_window_evidence(d->why, w->gain, w, "flat");
	return reject(p, w, d);
}

static const struct rule candidate_rules[] = {
	RULE(CTL_RULE_REJECT_IDLE, up_idle, reject_idle),
	RULE(CTL_RULE_CONTENTION, up_contended, reject_contention),
	RULE(CTL_RULE_QUEUEING, up_queueing, reject_queueing),
	RULE(CTL_RULE_ACCEPT, gained, accept),
	RULE(CTL_RULE_KNEE, knee_below, knee_step),
	RULE(CTL_RULE_NO_QUEUE, down_no_queue, reject_no_queue),
	RULE(CTL_RULE_CONFIRM_DOWN, down_unconfirmed, stay),
	RULE(CTL_RULE_CONFIRM, inside_band, stay),
	RULE(CTL_RULE_WORSE, worse, reject_worse),
	RULE(CTL_RULE_KEEP_FEWER, flat_down_keeps, keep_fewer),
	RULE(CTL_RULE_FLAT, always, reject_flat),
};

/* ---- Holding at the settled point. ---- */

/* Count windows whose rate left the reference by more than twice the band
 * (or three standard deviations of the noise); learn the noise from the
 * others. */
static void track_drift(struct ctl_policy *p, const struct ctl_window *w)
{
	double g = w->gain, dband = 2 * p->cfg.band;
	if (p->noise_n >= 1 && 3 * sqrt(p->noise_var) > dband)
		dband = 3 * sqrt(p->noise_var);
	p->drift_down = g < -dband ? p->drift_down + 1 : 0;
	p->drift_up = g > dband ? p->drift_up + 1 : 0;
	if (p->ref_rate > 0 && !p->drift_down && !p->drift_up) {
		p->noise_var = p->noise_n ? 0.8 * p->noise_var + 0.2 * g * g : g * g;
		p->noise_n++;
	}
}

/* The reference follows the rate (a drop is not averaged in while it is
 * judged); idle windows are counted; work coming back ends a cut. */
static void track_settled(struct ctl_policy *p, const struct ctl_window *w)
{
	if (!p->drift_down)
		p->ref_rate = p->ref_rate > 0 ? 0.7 * p->ref_rate + 0.3 * w->rate : w->rate;
	p->starved = idle(w) && p->n > 1 ? p->starved + 1 : 0;
	if (p->trimmed && w->busy >= 0.95 && p->hold_left > 1)
		p->hold_left = 1; /* work came back: probe up soon */
	if (w->busy >= 0.95)
		p->trimmed = false;
}

/* One more window of the hold went by (not when a clear signal acted). */
static void count_down(struct ctl_policy *p, const struct ctl_window *w)
{
	p->hold_left--;
}

/* A drop must last three windows: a journal commit or log stall is short,
 * and a climb based on a stalled window takes any count after it for a gain
 * (docs/design.md#controller). A rise needs two. */
static bool drifted(const struct ctl_policy *p, const struct ctl_window *w)
{
	return (p->drift_down >= 3 || p->drift_up >= 2) && p->ref_rate > 0;
}

/* At one worker with nothing waiting for a second (a chain): the move is
 * the filesystem's, not ours to chase. */
static bool drifted_on_chain(const struct ctl_policy *p, const struct ctl_window *w)
{
	return drifted(p, w) && p->n == 1 && w->spare >= 0 && w->spare < p->cfg.band;
}

/* The rate rose while the workers stay blocked on a cap: the cap's own
 * burst (a throttle's budget, a commit ending), not room for more workers. */
static bool drifted_up_on_cap(const struct ctl_policy *p, const struct ctl_window *w)
{
	return drifted(p, w) && p->drift_up && blocked_busy(w) && capped(w);
}

static bool contended(const struct ctl_policy *p, const struct ctl_window *w)
{
	return w->cont >= 0.4 && p->n > 1; /* most busy time waits on locks */
}

static bool contended_clear(const struct ctl_policy *p, const struct ctl_window *w)
{
	return contended(p, w) && p->down_failed_at != p->n;
}

static bool blocked_clear(const struct ctl_policy *p, const struct ctl_window *w)
{
	return blocked_overlaps(w) && p->n < clampn(p, p->n + 1) && p->up_failed_at != p->n;
}

/* Blocked and all busy, but on a cap: the clear signal to add workers is
 * not one; the hold runs on (its probes up are vetoed too). */
static bool blocked_on_cap(const struct ctl_policy *p, const struct ctl_window *w)
{
	return blocked_busy(w) && capped(w) && p->hold_left > 1;
}

static bool hold_on(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	p->hold_left--;
	return false;
}

static bool starved(const struct ctl_policy *p, const struct ctl_window *w)
{
	return p->starved >= 2;
}

static bool holding(const struct ctl_policy *p, const struct ctl_window *w)
{
	return p->hold_left > 0;
}

static bool rebase(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	p->drift_down = p->drift_up = 0;
	p->ref_rate = w->rate;
	p->hold_left = p->hold_len;
	return false;
}

/* The settled point's rate moved: the filesystem or the tree changed under
 * us. Climb again, towards more threads first unless locks or a cap say
 * otherwise (a cap's bursts read as drift). */
static bool reclimb(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	/* locks, or a rate that fell on a cap: more workers would only wait
	 * longer */
	int dir = ((w->cont >= 0.25 || (blocked_busy(w) && capped(w))) && p->n > 1) ? -1 : +1;
	explainf(d, w->gain, w, "rate moved at %d threads, re-probing", p->n);
	p->ceiling = p->knee = 0;
	p->up_failed_at = p->down_failed_at = 0;
	p->hold_len = p->cfg.hold_min;
	return start_climb(p, dir, w->rate, w->lat, w->cont, d);
}

static bool cut(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	int to = trimmed_count(w->busy, p->n);
	explainf(d, 0, w, "workers idle (busy %.0f%%): trimming", w->busy * 100);
	p->starved = 0;
	p->trimmed = true;
	p->hold_len = p->cfg.hold_min;
	return enter_hold(p, to, w->rate, false, d);
}

/* Leave the hold for a neighbour in DIR, halving under contention: a
 * one-worker step is lost in the noise (docs/design.md#controller). */
static bool start_probe(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d,
			int dir, bool halve, const char *note)
{
	if (gentle_step(p, p->n, dir) == p->n) {
		d->rule = CTL_RULE_HOLD; /* no neighbour that way */
		p->hold_left = p->hold_len;
		return false;
	}
	p->phase = CTL_PROBE;
	p->dir = dir;
	set_base(p, p->ref_rate, w->lat, w->cont);
	p->base_blk = w->blk; /* for the CPU-bound keep rule */
	ctl_window_evidence(d->why, 0, w, note);
	int to = halve ? clampn(p, p->n / 2) : gentle_step(p, p->n, dir);
	if (dir < 0 && to < p->cfg.ncpu && p->n > p->cfg.ncpu && cpu_bound(w->blk, w->cont))
		to = p->cfg.ncpu; /* CPU-bound above the CPUs: try one per CPU */
	return move_to(p, to, d);
}

static bool halve(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	return start_probe(p, w, d, -1, true, "lock contention high");
}

/* A halving under contention lost once here: retry it after a hold, not
 * never (noisy windows: docs/design.md#controller). */
static bool halve_again(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	return start_probe(p, w, d, -1, true, "lock contention high, retrying fewer");
}

static bool probe_up(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	return start_probe(p, w, d, +1, false, "workers blocked, probing up");
}

/* Reasons not to probe in DIR after all (then the hold starts over). */
static bool veto_idle(const struct ctl_policy *p, const struct ctl_window *w, int dir)
{
	return dir > 0 && idle(w); /* more cannot help */
}

/* Another worker could only take work that waited for one: waiting less than
 * the band, it cannot show a gain, and its hand-offs cost
 * (docs/design.md#controller). */
static bool veto_no_waiting(const struct ctl_policy *p, const struct ctl_window *w, int dir)
{
	return dir > 0 && w->spare >= 0 && w->spare < p->cfg.band;
}

/* CPU-bound at most one worker per CPU: fewer would leave a CPU idle. */
static bool veto_cpu_bound(const struct ctl_policy *p, const struct ctl_window *w, int dir)
{
	return dir < 0 && p->n <= p->cfg.ncpu && w->blk >= 0 && w->blk < 0.4 &&
	       (w->cont < 0 || w->cont < 0.1);
}

/* Every CPU has a worker that rarely leaves it: another could only
 * time-slice, and a lucky window would ratchet the count up. */
static bool veto_saturated(const struct ctl_policy *p, const struct ctl_window *w, int dir)
{
	return dir > 0 && cpu_saturated(p, w->blk, w->cont, w->busy);
}

/* Blocked on a cap: another worker would queue behind it. */
static bool veto_capped(const struct ctl_policy *p, const struct ctl_window *w, int dir)
{
	return dir > 0 && blocked_busy(w) && capped(w);
}

static const struct veto {
	const char *name;
	bool (*applies)(const struct ctl_policy *p, const struct ctl_window *w, int dir);
} vetoes[] = {
	{ CTL_RULE_VETO_IDLE, veto_idle },	     { CTL_RULE_VETO_NO_WAITING, veto_no_waiting },
	{ CTL_RULE_VETO_CPU_BOUND, veto_cpu_bound }, { CTL_RULE_VETO_SATURATED, veto_saturated },
	{ CTL_RULE_VETO_CAPPED, veto_capped },
};

/* Probe the neighbours in turn, skipping a side without one. */
static bool gentle_probe(struct ctl_policy *p, const struct ctl_window *w, struct ctl_decision *d)
{
	int dir = p->probe_dir;
	p->probe_dir = -p->probe_dir;
	if (gentle_step(p, p->n, dir) == p->n)
		dir = -dir;
	for (size_t i = 0; i < sizeof vetoes / sizeof vetoes[0]; i++) {
		if (vetoes[i].applies(p, w, dir)) {
			d->rule = vetoes[i].name;
			p->hold_left = p->hold_len;
			return false;
		}
	}
	return start_probe(p, w, d, dir, false, "gentle probe");
}

static const struct rule hold_rules[] = {
	TRACK(track_drift),
	RULE(CTL_RULE_DRIFT_CHAIN, drifted_on_chain, rebase),
	RULE(CTL_RULE_DRIFT_CAPPED, drifted_up_on_cap, rebase),
	RULE(CTL_RULE_DRIFT, drifted, reclimb),
	TRACK(track_settled),
	RULE(CTL_RULE_IDLE_CUT, starved, cut),
	/* clear signals, at once */
	RULE(CTL_RULE_CONTENTION_HALVE, contended_clear, halve),
	RULE(CTL_RULE_BLOCKED_UP, blocked_clear, probe_up),
	RULE(CTL_RULE_BLOCKED_CAPPED, blocked_on_cap, hold_on),
	TRACK(count_down),
	RULE(CTL_RULE_HOLD, holding, stay),
	/* the hold is over */
	RULE(CTL_RULE_CONTENTION_RETRY, contended, halve_again),
	RULE(CTL_RULE_PROBE, always, gentle_probe),
};

/* ---- One tick. ---- */

static bool on_hold(struct ctl_policy *p, struct ctl_window *w, struct ctl_decision *d)
{
	w->gain = p->ref_rate > 0 ? w->rate / p->ref_rate - 1 : 0;
	return walk(hold_rules, p, w, d);
}

static bool on_start(struct ctl_policy *p, struct ctl_window *w, struct ctl_decision *d)
{
	return walk(start_rules, p, w, d);
}

static bool on_candidate(struct ctl_policy *p, struct ctl_window *w, struct ctl_decision *d)
{
	p->cand_ops += w->ops;
	p->cand_dt += w->dt;
	p->cand_windows++;
	w->crate = p->cand_ops / p->cand_dt;
	w->gain = p->base_rate > 0 ? w->crate / p->base_rate - 1 : 0;
	w->thr = threshold(p, p->cand_windows);
	return walk(candidate_rules, p, w, d);
}

bool ctl_policy_tick(struct ctl_policy *p, const struct ctl_sample *s, struct ctl_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->from = d->to = p->n;
	d->rule = CTL_RULE_MEASURING;
	struct ctl_window w;
	if (!(s->dt > 0) || !window_close(p, s, &w))
		return false;
	switch (p->phase) {
	case CTL_HOLD: return on_hold(p, &w, d);
	case CTL_CLIMB:
		if (p->n == p->base_n) /* the first window at the start point */
			return on_start(p, &w, d);
		break;
	case CTL_PROBE: break;
	}
	return on_candidate(p, &w, d); /* a climb step or a gentle probe */
}

int ctl_policy_best(const struct ctl_policy *p, double *rate)
{
	if (p->windows < 2)
		return -1;
	int n = p->phase == CTL_HOLD ? p->n : p->base_n;
	/* Ended while climbing up on blocked workers (a short delete on a
	 * latency-bound filesystem may last two or three windows): every
	 * step so far gained and more blocked workers cost little, so the step
	 * being tried is the better start for the next run; its gentle probes
	 * correct an overshoot. */
	if (p->phase == CTL_CLIMB && p->dir > 0 && p->fast_up && p->n > p->base_n) {
		if (rate)
			*rate = p->base_rate;
		return p->n;
	}
	if (rate)
		*rate = p->seen_at[n] ? p->rate_at[n] : p->base_rate;
	return n;
}
