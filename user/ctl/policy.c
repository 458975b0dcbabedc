/* The adaptive controller's decision logic (see ctl_policy.h).
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

static void pct(char *buf, size_t len, const char *what, double v)
{
	if (v < 0)
		snprintf(buf, len, ", %s n/a", what);
	else
		snprintf(buf, len, ", %s %.0f%%", what, v * 100);
}

/* Evidence for --explain: "throughput +38%, contention 2%, blocked 61%". */
static void evidence(char *out, double gain, double cont, double blk, const char *note)
{
	char c[40], b[40];
	pct(c, sizeof c, "contention", cont);
	pct(b, sizeof b, "blocked", blk);
	snprintf(out, CTL_WHY_LEN, "throughput %+.0f%%%s%s%s%s", gain * 100, c, b,
		 note && *note ? ", " : "", note ? note : "");
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
 * CW candidate windows and the reference, an EWMA worth about 2 windows: estimates from few windows run low). */
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

static double avg(double sum, double n)
{
	return n > 0 ? sum / n : -1;
}

bool ctl_policy_tick(struct ctl_policy *p, const struct ctl_sample *s, struct ctl_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->from = d->to = p->n;
	if (!(s->dt > 0))
		return false;
	p->w_ops += s->ops;
	p->w_dt += s->dt;
	p->w_r += s->ops / s->dt;
	p->w_r2 += (s->ops / s->dt) * (s->ops / s->dt);
	p->w_ticks++;
	if (s->lat_mean_us >= 0)
		p->w_lat += s->lat_mean_us, p->w_lat_n++;
	if (s->contention >= 0)
		p->w_cont += s->contention, p->w_cont_n++;
	if (s->blocked >= 0)
		p->w_blk += s->blocked, p->w_blk_n++;
	if (s->busy >= 0)
		p->w_busy += s->busy, p->w_busy_n++;
	if (s->cpu >= 0)
		p->w_cpu += s->cpu, p->w_cpu_n++;
	if (s->spare >= 0)
		p->w_spare += s->spare, p->w_spare_n++;
	int need = p->fast_up ? 1 : p->cfg.window_ticks;
	/* Workers clearly blocked from the first tick on (a latency-bound
	 * filesystem): a one-tick first window, so that a short delete gets to
	 * climb at all (slowfs 64 x 100 lasts three ticks). */
	if (p->windows == 0 && p->phase == CTL_CLIMB && s->blocked >= 0.6 && s->busy >= 0.8)
		need = 1;
	if (p->w_ticks < need)
		return false;

	double ops = p->w_ops, dt = p->w_dt;
	double rate = ops / dt;
	double lat = avg(p->w_lat, p->w_lat_n), cont = avg(p->w_cont, p->w_cont_n);
	double blk = avg(p->w_blk, p->w_blk_n), busy = avg(p->w_busy, p->w_busy_n);
	double cpu = avg(p->w_cpu, p->w_cpu_n);
	double spare = avg(p->w_spare, p->w_spare_n);
	p->w_cpu = p->w_cpu_n = 0;
	p->w_spare = p->w_spare_n = 0;
	p->w_ops = p->w_dt = p->w_lat = p->w_lat_n = p->w_cont = p->w_cont_n = 0;
	p->w_blk = p->w_blk_n = p->w_busy = p->w_busy_n = 0;
	if (p->w_ticks >= 2 && p->w_r > 0) {
		/* Tick-to-tick spread: a noise estimate from the very first
		 * window, before any hold could measure one. */
		double m = p->w_r / p->w_ticks;
		double v = (p->w_r2 / p->w_ticks - m * m) / (m * m);
		v = v * p->w_ticks / (p->w_ticks - 1) / p->w_ticks;	/* of the window mean */
		if (v > 0) {
			p->noise_var = p->noise_n ? 0.8 * p->noise_var + 0.2 * v : v;
			p->noise_n++;
		}
	}
	p->w_r = p->w_r2 = 0;
	p->w_ticks = 0;
	p->windows++;
	if (p->seen_at[p->n]++ == 0)
		p->rate_at[p->n] = rate;
	else
		p->rate_at[p->n] = 0.6 * p->rate_at[p->n] + 0.4 * rate;
	if (lat > 0 && (p->lat_min < 0 || lat < p->lat_min))
		p->lat_min = lat;

	double band = p->cfg.band;
	char note[96] = "";

	if (p->phase == CTL_HOLD) {
		double g = p->ref_rate > 0 ? rate / p->ref_rate - 1 : 0;
		double dband = 2 * band;
		if (p->noise_n >= 1 && 3 * sqrt(p->noise_var) > dband)
			dband = 3 * sqrt(p->noise_var);
		p->drift_down = g < -dband ? p->drift_down + 1 : 0;
		p->drift_up = g > dband ? p->drift_up + 1 : 0;
		if (p->ref_rate > 0 && !p->drift_down && !p->drift_up) {
			p->noise_var = p->noise_n ? 0.8 * p->noise_var + 0.2 * g * g : g * g;
			p->noise_n++;
		}
		/* A drop must last three windows: a journal commit or log
		 * stall takes 0.3-0.5 s (btrfs chain: -78% for one window),
		 * and a climb based on a stalled window takes any count
		 * after it for a gain (a simulated 0.4 s stall every 5 s
		 * walked the count from 1 to 64). */
		if ((p->drift_down >= 3 || p->drift_up >= 2) && p->ref_rate > 0) {
			/* The settled point's rate moved: the filesystem or the
			 * tree changed under us. Climb again, towards more
			 * threads first unless locks say otherwise. */
			int dir = (cont >= 0.25 && p->n > 1) ? -1 : +1;
			if (dir > 0 && spare >= 0 && spare < band && p->n == 1) {
				/* Nothing waited for a second worker (a chain):
				 * the move is the filesystem's, not ours to chase. */
				p->drift_down = p->drift_up = 0;
				p->ref_rate = rate;
				p->hold_left = p->hold_len;
				return false;
			}
			snprintf(note, sizeof note, "rate moved at %d threads, re-probing", p->n);
			evidence(d->why, g, cont, blk, note);
			p->ceiling = 0;
			p->up_failed_at = p->down_failed_at = 0;
			p->hold_len = p->cfg.hold_min;
			return start_climb(p, dir, rate, lat, cont, d);
		}
		if (!p->drift_down)	/* a drop is not averaged in while it is judged */
			p->ref_rate = p->ref_rate > 0 ? 0.7 * p->ref_rate + 0.3 * rate : rate;
		p->starved = busy >= 0 && busy < 0.6 && p->n > 1 ? p->starved + 1 : 0;
		if (p->starved >= 2) {
			int to = trimmed_count(busy, p->n);
			snprintf(note, sizeof note, "workers idle (busy %.0f%%): trimming", busy * 100);
			evidence(d->why, 0, cont, blk, note);
			p->starved = 0;
			p->trimmed = true;
			p->hold_len = p->cfg.hold_min;
			return enter_hold(p, to, rate, false, d);
		}
		if (p->trimmed && busy >= 0.95 && p->hold_left > 1)
			p->hold_left = 1;	/* work came back: probe up soon */
		if (busy >= 0.95)
			p->trimmed = false;
		int dir = 0;
		bool contended = cont >= 0.4 && p->n > 1;	/* most busy time waits on locks */
		bool halve = false;
		if (contended && p->down_failed_at != p->n) {
			dir = -1;	/* clear signal */
			halve = true;
			snprintf(note, sizeof note, "lock contention high");
		} else if (blk >= 0.6 && busy >= 0.8 && p->n < clampn(p, p->n + 1) &&
			   p->up_failed_at != p->n) {
			dir = +1;	/* clear signal: workers mostly blocked, all busy */
			snprintf(note, sizeof note, "workers blocked, probing up");
		} else if (--p->hold_left > 0) {
			/* holding */
		} else if (contended) {
			/* A halving under contention lost once here: retry it
			 * after a hold, not never (xfs windows are noisy: one
			 * bad window kept 16 workers where one is 1.6x faster). */
			dir = -1;
			halve = true;
			snprintf(note, sizeof note, "lock contention high, retrying fewer");
		} else {
			dir = p->probe_dir;
			p->probe_dir = -p->probe_dir;
			if (gentle_step(p, p->n, dir) == p->n)
				dir = -dir;
			if (dir > 0 && busy >= 0 && busy < 0.6) {
				p->hold_left = p->hold_len;	/* idle workers: more cannot help */
				return false;
			}
			if (dir > 0 && spare >= 0 && spare < p->cfg.band) {
				/* Another worker could only take work that waited
				 * for one: waiting less than the band, it cannot
				 * show a gain, and its hand-offs cost (btrfs chain
				 * at one worker: each probe to 2 lost 24-63% for
				 * 0.2 s, auto 2.3 s against 1.9 at -t 1). */
				p->hold_left = p->hold_len;
				return false;
			}
			if (dir < 0 && p->n <= p->cfg.ncpu && blk >= 0 && blk < 0.4 &&
			    (cont < 0 || cont < 0.1)) {
				/* CPU-bound at most one worker per CPU: fewer
				 * workers would only leave a CPU idle. */
				p->hold_left = p->hold_len;
				return false;
			}
			if (dir > 0 && cpu_saturated(p, blk, cont, busy)) {
				/* Every CPU already has a worker that rarely
				 * leaves it: another could only time-slice, and a
				 * lucky window would ratchet the count up (tmpfs
				 * trees settled at 4-5 workers on 2 CPUs). */
				p->hold_left = p->hold_len;
				return false;
			}
			snprintf(note, sizeof note, "gentle probe");
		}
		if (!dir || gentle_step(p, p->n, dir) == p->n) {
			if (dir)
				p->hold_left = p->hold_len;
			return false;
		}
		p->phase = CTL_PROBE;
		p->dir = dir;
		set_base(p, p->ref_rate, lat, cont);
		p->base_blk = blk;	/* for the CPU-bound keep rule */
		evidence(d->why, 0, cont, blk, note);
		/* Halve on high contention: a one-worker step is lost in the
		 * noise (xfs 20,000 x 10 from 8: settled at 4 after 4->3 read
		 * flat, 7.4 s where one worker takes 4.1), and the profile then
		 * kept 4 for the next runs. */
		int to = halve ? clampn(p, p->n / 2) : gentle_step(p, p->n, dir);
		if (dir < 0 && to < p->cfg.ncpu && p->n > p->cfg.ncpu && cpu_bound(blk, cont))
			to = p->cfg.ncpu;	/* CPU-bound above the CPUs: try one per CPU */
		return move_to(p, to, d);
	}

	if (p->phase == CTL_CLIMB && p->n == p->base_n) {
		/* First window at the start point: measure, then step. */
		if (busy >= 0 && busy < 0.6 && p->dir > 0) {
			int to = trimmed_count(busy, p->n);
			snprintf(note, sizeof note, "workers idle (busy %.0f%%): trimming", busy * 100);
			evidence(d->why, 0, cont, blk, note);
			set_base(p, rate, lat, cont);
			p->trimmed = to < p->n;
			return enter_hold(p, to, rate, false, d);
		}
		if (p->dir > 0 && cpu_saturated(p, blk, cont, busy)) {
			/* Every CPU has a worker that rarely leaves it: more
			 * workers would only time-slice. Hold; gentle probes
			 * look above only once that stops being true. */
			set_base(p, rate, lat, cont);
			return enter_hold(p, p->n, rate, false, d);
		}
		if (p->dir > 0 && clampn(p, p->n + 1) == p->n && blk >= 0.6 && busy >= 0.8) {
			/* At the cap with workers mostly blocked: the clear signal
			 * says more, so fewer can only lose. Hold; gentle probes
			 * may still look below later. */
			set_base(p, rate, lat, cont);
			return enter_hold(p, p->n, rate, false, d);
		}
		snprintf(note, sizeof note, "first window %.0f ops/s", rate);
		if (p->dir > 0 && cont >= 0.25 && p->n > 1) {
			/* A quarter of the busy time already waits on locks: look
			 * below first. Up would add waiters (xfs 20,000 x 10: 29%
			 * at 2 workers, 2 -> 4 lost 23% and 50% waited). */
			p->dir = -1;
			snprintf(note, sizeof note, "first window %.0f ops/s, contended: trying fewer", rate);
		}
		bool ch = start_climb(p, p->dir, rate, lat, cont, d);
		p->base_cpu = cpu;
		p->base_blk = blk;
		if (ch)
			evidence(d->why, 0, cont, blk, note);
		return ch;
	}

	/* At a candidate (climb step or gentle probe): compare with the base. */
	p->cand_ops += ops;
	p->cand_dt += dt;
	p->cand_windows++;
	double crate = p->cand_ops / p->cand_dt;
	double gain = p->base_rate > 0 ? crate / p->base_rate - 1 : 0;
	bool up = p->n > p->base_n;
	bool probe = p->phase == CTL_PROBE;
	band = threshold(p, p->cand_windows);

	/* Clear signals, decided at once. */
	if (up && gain < band && busy >= 0 && busy < 0.6) {
		snprintf(note, sizeof note, "workers idle (busy %.0f%%)", busy * 100);
		evidence(d->why, gain, cont, blk, note);
		goto reject;
	}
	if (up && gain < band && cont >= 0.25 && cont > (p->base_cont > 0 ? p->base_cont : 0) + 0.05) {
		snprintf(note, sizeof note, "contention rose with threads");
		evidence(d->why, gain, cont, blk, note);
		p->ceiling = p->base_n;
		goto reject;
	}
	if (up && gain < band && lat > 0 && p->base_lat > 0 && lat > 1.5 * p->base_lat) {
		snprintf(note, sizeof note, "latency x%.1f, no gain (queueing)", lat / p->base_lat);
		evidence(d->why, gain, cont, blk, note);
		goto reject;
	}

	if (gain > band && (!probe || p->cand_windows >= 2 || gain > 3 * band)) {
		/* Accept; keep going the same way with big steps. */
		snprintf(note, sizeof note, "%s", up && blk >= 0.5 ? "blocked workers, adding" : "");
		evidence(d->why, gain, cont, blk, note);
		if (p->phase != CTL_CLIMB)
			p->climb_accepts = 0, p->tried_down = !up;
		p->phase = CTL_CLIMB;
		p->climb_accepts++;
		p->dir = up ? +1 : -1;
		p->fast_up = up && blk >= 0.5;
		set_base(p, crate, lat, cont);
		p->base_n = p->n;
		int to = big_step(p, p->n, p->dir);
		if (to == p->n)
			return enter_hold(p, p->n, crate, false, d);
		/* Report the accepted move (base -> here) and step on. */
		bool ch = move_to(p, to, d);
		return ch;
	}
	/* A step down is judged on two windows: the first still pays for
	 * the work the larger count left behind (xfs inode GC after 8
	 * workers: 8 -> 4 read -51% in its first window, one worker is
	 * 1.4x faster than 8). */
	if (!up && p->cand_windows < 2 && gain < band)
		return false;
	/* Going back to the base needs less proof than leaving it: a loss
	 * beyond the plain band ends the trial after one window, even when
	 * the noise makes the threshold for a gain wider. */
	if (gain >= -p->cfg.band && gain <= band && p->cand_windows < 2)
		return false;	/* inside the band: one more window */
	if (gain < -p->cfg.band && gain >= -band)
		goto worse;
	if (gain >= -band && !up &&
	    ((!probe && !p->settled_once) || p->base_cont >= 0.4 ||
	     (probe && p->n >= p->cfg.ncpu && cpu_bound(p->base_blk, p->base_cont)))) {
		/* Flat going down on the first climb: the smaller count does as
		 * well; keep it. Later, flat means "stay": a noisy flat curve
		 * must not ratchet the count down, except down to one worker
		 * per CPU from a CPU-bound start above it (the extra workers
		 * only time-slice), or away from a count whose workers mostly
		 * waited on locks (xfs 20,000 x 10: held 8 workers, 7.0 s,
		 * after 8 -> 6 read "flat" at +28% in noisy windows; one
		 * worker takes 4.1 s). */
		evidence(d->why, gain, cont, blk, "flat, fewer threads");
		return enter_hold(p, p->n, crate, false, d);
	}
	if (gain < -band) {
worse:
		evidence(d->why, gain, cont, blk, "worse");
	} else {
		evidence(d->why, gain, cont, blk, "flat");
	}
reject:
	p->fast_up = false;
	if (up)
		p->up_failed_at = p->base_n;
	else
		p->down_failed_at = p->base_n;
	/* Runnable (on a CPU or waiting for one) most of their busy time, and
	 * not waiting on locks: the start was CPU-bound. On a loaded machine
	 * the run-queue wait is large, so "on CPU" alone would not say it. */
	bool cpu_bound = (p->base_blk >= 0 ? p->base_blk < 0.4 : p->base_cpu >= 0.6) &&
			 (p->base_cont < 0 || p->base_cont < 0.1);
	if (!probe && up && !p->tried_down && p->base_n > 1 && p->climb_accepts == 0 &&
	    !(cpu_bound && p->base_n <= p->cfg.ncpu)) {
		/* The very first step up lost: the peak may be below the start
		 * (not when the start was CPU-bound on at most one worker per
		 * CPU: fewer workers would only leave CPUs idle). */
		p->tried_down = true;
		p->dir = -1;
		int to = big_step(p, p->base_n, -1);
		if (to != p->base_n)
			return move_to(p, to, d);
	}
	if (gain < -2 * band) {
		/* A clear loss (btrfs with a second worker: -30%) is not worth
		 * re-checking soon: wait the longest hold before the next gentle
		 * probe. A changed filesystem or tree still shows as drift. */
		p->hold_len = p->cfg.hold_max;
		return enter_hold(p, p->base_n, p->base_rate, true, d);
	}
	return enter_hold(p, p->base_n, p->base_rate, probe, d);
}

int ctl_policy_best(const struct ctl_policy *p, double *rate)
{
	if (p->windows < 2)
		return -1;
	int n = p->phase == CTL_HOLD ? p->n : p->base_n;
	/* Ended while climbing up on blocked workers (a short delete on a
	 * latency-bound filesystem: slowfs 64 x 100 lasts 2-3 windows): every
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
