// SPDX-License-Identifier: GPL-3.0-or-later
/* The controller's decision logic against simulated filesystems: deterministic
 * throughput models with multiplicative noise. Each tick is 100 ms; the model
 * is evaluated at the worker count the policy chose. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ctl/policy.h"
#include "support/sim_noise.h"

struct model {
	double (*rate)(int n, int tick); /* entries/s, noise-free */
	double (*cont)(int n);		 /* contention share, or NULL */
	double (*blocked)(int n);	 /* blocked share, or NULL */
	double noise;			 /* relative, uniform-sum ~ gaussian */
	bool cpu_bound;			 /* workers on CPU most of their busy time */
	int tasks;			 /* parallel work available (0: unlimited) */
	bool spare_on;			 /* the engine measures waiting work: */
	double spare;			 /* share of time a task waited for a worker */
	double capped;			 /* share of blocked time on a cap (0: none) */
};

static int sim_cpus = 4; /* CPUs of the simulated machine */

static uint64_t rng = 88172645463325252ull;
static double unit_noise(void)
{
	return sim_noise(&rng);
}

/* xfs flat directory: every added thread waits on the parent's lock. */
static double m_one(int n, int t)
{
	return 100000.0 / (1 + 0.35 * (n - 1));
}
static double m_one_cont(int n)
{
	return 0.6 * (n - 1) / n;
}
/* tmpfs tree on 4 CPUs: CPU-bound, scales to the CPU count. */
static double m_cpu(int n, int t)
{
	return 60000.0 * (n < 4 ? n : 4) / (1 + 0.03 * (n - 1));
}
/* FUSE, 1 ms per op: latency-bound, USL with a peak near 45. */
static double m_fuse(int n, int t)
{
	return 1000.0 * n / (1 + 0.0005 * n * (n - 1));
}
static double m_fuse_blk(int n)
{
	return 0.9;
}
/* The peak moves: a latency-bound part, then a lock-bound one. */
static double m_moving(int n, int t)
{
	return t < 200 ? m_fuse(n, t) : m_one(n, t) / 3;
}
static double m_flat(int n, int t)
{
	return 50000.0;
}
static double m_peak4_sharp(int n, int t)
{
	return 40000.0 * exp(-pow(log2(n) - 2, 2));
}

static double best_of(const struct model *m, int cap, int tick)
{
	double b = 0;
	for (int n = 1; n <= cap; n++)
		if (m->rate(n, tick) > b)
			b = m->rate(n, tick);
	return b;
}

struct run {
	int n[2000];
	const char *rule[2000]; /* the rule of tick t's decision (CTL_RULE_*) */
	int changes;
};

/* Ticks of R whose decision was RULE's and changed the count. */
static int moves_by(const struct run *r, int ticks, const char *rule)
{
	int k = 0;
	for (int t = 0; t + 1 < ticks; t++)
		k += r->n[t + 1] != r->n[t] && !strcmp(r->rule[t], rule);
	return k;
}

/* Ticks of R decided by RULE, whether or not the count changed. */
static int decided_by(const struct run *r, int ticks, const char *rule)
{
	int k = 0;
	for (int t = 0; t < ticks; t++)
		k += !strcmp(r->rule[t], rule);
	return k;
}

static void simulate(const struct model *m, int cap, int start, bool known, int ticks, struct run *r)
{
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, cap, sim_cpus);
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, start, known);
	r->changes = 0;
	for (int t = 0; t < ticks; t++) {
		int n = p.n;
		r->n[t] = n;
		double rate = m->rate(n, t) * (1 + m->noise * unit_noise());
		if (rate < 1)
			rate = 1;
		struct ctl_sample s = {
			.dt = 0.1,
			.ops = rate * 0.1,
			.lat_mean_us = n / rate * 1e6,
			.lat_p99_us = -1,
			.contention = m->cont ? m->cont(n) : -1,
			.blocked = m->blocked ? m->blocked(n) : -1,
			.busy = m->tasks ? (n <= m->tasks ? 1.0 : (double)m->tasks / n) : 1,
			.cpu = m->cpu_bound ? 0.95 : 0.3,
			.spare = m->spare_on ? m->spare : -1,
			.capped = m->capped,
		};
		struct ctl_decision d;
		bool changed = ctl_policy_tick(&p, &s, &d);
		cr_assert(d.rule, "every decision names its rule");
		r->rule[t] = d.rule;
		if (changed) {
			cr_assert(d.to >= 1 && d.to <= cap);
			cr_assert_eq(d.to, p.n);
			cr_assert(d.why[0], "a change has a reason");
			cr_assert_str_neq(d.rule, CTL_RULE_MEASURING, "a change closes a window");
			r->changes++;
		}
	}
}

/* From tick FROM on: at least 90% of ticks run at a count giving ≥90% of
 * the model's best, and the mean over them is ≥90% of the best. */
static void expect_near_best(const struct model *m, int cap, const struct run *r, int from, int to)
{
	int good = 0;
	double sum = 0, bsum = 0;
	for (int t = from; t < to; t++) {
		double b = best_of(m, cap, t), v = m->rate(r->n[t], t);
		good += v >= 0.9 * b;
		sum += v;
		bsum += b;
	}
	cr_expect_geq(good, (to - from) * 9 / 10, "ticks near the best: %d of %d", good, to - from);
	cr_expect_geq(sum, 0.9 * bsum, "mean %.0f%% of best", 100 * sum / bsum);
}

static const int CONVERGE = 30; /* ticks (3 s): about ten decision windows */

Test(controller_policy, peak_at_one_thread_from_wrong_prior)
{
	struct model m = { m_one, m_one_cont, NULL, 0.05, false, 0, false, 0, -1 };
	struct run r;
	for (int start = 1; start <= 16; start *= 4) {
		simulate(&m, 64, start, false, 400, &r);
		expect_near_best(&m, 64, &r, CONVERGE, 400);
	}
}

Test(controller_policy, peak_at_one_thread_without_bpf_signals)
{
	struct model m = { m_one, NULL, NULL, 0.05, false, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 2, false, 400, &r);
	expect_near_best(&m, 64, &r, CONVERGE, 400);
}

Test(controller_policy, peak_at_cpu_count)
{
	struct model m = { m_cpu, NULL, NULL, 0.05, true, 0, false, 0, -1 };
	struct run r;
	for (int start = 1; start <= 64; start *= 8) {
		simulate(&m, 64, start, false, 400, &r);
		expect_near_best(&m, 64, &r, CONVERGE, 400);
	}
}

Test(controller_policy, sharp_peak_at_four)
{
	struct model m = { m_peak4_sharp, NULL, NULL, 0.05, false, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 1, false, 400, &r);
	expect_near_best(&m, 64, &r, CONVERGE, 400);
}

Test(controller_policy, latency_bound_peak_at_32_to_64)
{
	struct model m = { m_fuse, NULL, m_fuse_blk, 0.05, false, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 128, 1, false, 400, &r);
	expect_near_best(&m, 128, &r, CONVERGE, 400);
	simulate(&m, 128, 16, false, 400, &r);
	expect_near_best(&m, 128, &r, CONVERGE, 400);
	cr_expect_gt(r.n[399], 16);
}

Test(controller_policy, latency_bound_without_bpf_signals)
{
	struct model m = { m_fuse, NULL, NULL, 0.05, false, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 1, false, 400, &r);
	expect_near_best(&m, 64, &r, CONVERGE, 400);
}

Test(controller_policy, follows_a_moving_peak)
{
	struct model m = { m_moving, NULL, NULL, 0.05, false, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 1, false, 600, &r);
	expect_near_best(&m, 64, &r, CONVERGE, 200);
	expect_near_best(&m, 64, &r, 200 + CONVERGE, 600);
	cr_expect_gt(r.n[199], 8);
	cr_expect_leq(r.n[599], 2);
	cr_expect_geq(moves_by(&r, 600, CTL_RULE_DRIFT), 1, "the moved rate started a new climb");
}

Test(controller_policy, flat_noisy_curve_does_not_oscillate)
{
	struct model m = { m_flat, NULL, NULL, 0.10, false, 0, false, 0, -1 };
	struct run r;
	for (int start = 1; start <= 16; start *= 4) {
		simulate(&m, 64, start, false, 1000, &r);
		/* Settled: runs of ≥10 ticks at one count hold ≥85% of the time;
		 * the settled level changes at most 4 times in 100 s and stays
		 * low; other changes are gentle probes out and back, one every
		 * few seconds. */
		int settled = 0, levels = 0, last = -1, lo = 64, hi = 1;
		for (int t = 0, u; t < 1000; t = u) {
			for (u = t; u < 1000 && r.n[u] == r.n[t]; u++)
				;
			if (u - t < 10)
				continue;
			settled += u - t;
			if (last >= 0 && r.n[t] != last)
				levels++;
			last = r.n[t];
			lo = last < lo ? last : lo;
			hi = last > hi ? last : hi;
		}
		cr_expect_geq(settled, 850, "start %d: settled %d ticks of 1000", start, settled);
		cr_expect_leq(levels, 4, "start %d: settled level changed %d times", start, levels);
		cr_expect_leq(r.changes, 60, "start %d: %d changes in 100 s", start, r.changes);
		cr_expect_leq(hi, 4 * lo, "start %d: settled between %d and %d", start, lo, hi);
		cr_expect_leq(hi, 2 * start + 2, "start %d: flat curve climbed to %d", start, hi);
	}
}

Test(controller_policy, stored_profile_is_kept)
{
	struct model m = { m_cpu, NULL, NULL, 0.05, true, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 4, true, 300, &r);
	expect_near_best(&m, 64, &r, 0, 300);
	cr_expect_eq(r.n[299], 4);
}

Test(controller_policy, contention_rising_backs_off_at_once)
{
	struct model m = { m_one, m_one_cont, NULL, 0.0, false, 0, false, 0, -1 };
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 64, 4);
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, 1, false);
	struct ctl_decision d;
	int t = 0, went_up = 0, back = -1;
	for (; t < 20 && back < 0; t++) {
		int n = p.n;
		struct ctl_sample s = { .dt = 0.1,
					.ops = m.rate(n, t) * 0.1,
					.lat_mean_us = -1,
					.lat_p99_us = -1,
					.contention = m.cont(n),
					.blocked = -1,
					.busy = 1,
					.cpu = -1,
					.spare = -1 };
		if (ctl_policy_tick(&p, &s, &d)) {
			if (d.to > d.from)
				went_up = t;
			else {
				back = t;
				cr_expect(strstr(d.why, "contention"), "why: %s", d.why);
				cr_expect_str_eq(d.rule, CTL_RULE_CONTENTION);
			}
		}
	}
	cr_assert_geq(back, 0, "never backed off");
	cr_expect_leq(back - went_up, 2, "backed off one window after the step");
	cr_expect_eq(p.n, 1);
}

/* Started above one (a prior of 2) where a quarter of the busy time
 * already waits on locks: the first step is down, never up. */
Test(controller_policy, contended_start_looks_below_first)
{
	struct model m = { m_one, m_one_cont, NULL, 0.05, false, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 2, false, 100, &r);
	int first = 0;
	const char *rule = "";
	for (int t = 1; t < 100 && !first; t++)
		if (r.n[t] != r.n[t - 1])
			first = r.n[t], rule = r.rule[t - 1];
	cr_expect_eq(first, 1, "first move from 2 went to %d", first);
	cr_expect_str_eq(rule, CTL_RULE_FIRST_CONTENDED);
	for (int t = 0; t < 100; t++)
		cr_expect_leq(r.n[t], 2, "tick %d ran %d workers", t, r.n[t]);
	expect_near_best(&m, 64, &r, CONVERGE, 100);
}

Test(controller_policy, best_needs_measurements)
{
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 8, 4);
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, 2, false);
	cr_expect_eq(ctl_policy_best(&p, NULL), -1);
	cr_expect_eq(cfg.cap, 8);
	ctl_policy_defaults(&cfg, 100000, 4);
	cr_expect_eq(cfg.cap, CTL_TABLE - 1);
}

Test(controller_policy, cpu_bound_start_is_not_undercut)
{
	/* Started at the CPU count on CPU-bound work, a losing step up must not
	 * be followed by a step below the CPU count (it could only lose). */
	struct model m = { m_cpu, NULL, NULL, 0.02, true, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 4, false, 20, &r);
	for (int t = 0; t < 20; t++)
		cr_expect_geq(r.n[t], 4, "tick %d at %d threads", t, r.n[t]);
}

/* One huge directory on a filesystem where it is not shared: one worker
 * works, the others idle. The count is cut to the busy workers. */
static double m_single(int n, int t)
{
	return 30000.0;
}

Test(controller_policy, idle_workers_are_trimmed)
{
	struct model m = { m_single, NULL, NULL, 0.05, false, 1, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 8, false, 100, &r);
	cr_expect_eq(r.n[99], 1);
	cr_expect_eq(moves_by(&r, 100, CTL_RULE_FIRST_IDLE), 1, "cut in the first window");
	cr_expect_eq(moves_by(&r, 100, CTL_RULE_REJECT_IDLE), moves_by(&r, 100, CTL_RULE_PROBE),
		     "every probe up lost to idle workers");
	/* At one busy worker it still probes 2 now and then (nothing says
	 * whether more work is queued), each time for one window. */
	cr_expect_leq(r.changes, 12, "%d changes", r.changes);
	int off = 0;
	for (int t = 10; t < 100; t++) {
		cr_expect_leq(r.n[t], 2, "tick %d at %d", t, r.n[t]);
		off += r.n[t] != 1;
	}
	cr_expect_leq(off, 12, "%d ticks above one worker", off);
	simulate(&m, 64, 8, true, 100, &r); /* from a (stale) profile too */
	cr_expect_leq(r.n[99], 2);
}

Test(controller_policy, cpu_bound_start_at_cpu_count_holds)
{
	/* One busy worker per CPU, on CPU nearly all the time: the first
	 * window must not step up (it would only time-slice). */
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 64, 2);
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, 2, false);
	struct ctl_decision d;
	for (int t = 0; t < 4; t++) {
		struct ctl_sample s = { .dt = 0.1,
					.ops = 20000,
					.lat_mean_us = 5,
					.lat_p99_us = -1,
					.contention = -1,
					.blocked = 0.05,
					.busy = 1,
					.cpu = 0.9,
					.spare = -1 };
		cr_expect_not(ctl_policy_tick(&p, &s, &d), "changed at tick %d: %s", t, d.why);
		if (t == 1) /* the first window */
			cr_expect_str_eq(d.rule, CTL_RULE_FIRST_SATURATED);
	}
	cr_expect_eq(p.n, 2);
	cr_expect_eq(p.phase, CTL_HOLD);
	/* the same with blocked workers climbs */
	ctl_policy_init(&p, &cfg, 2, false);
	bool up = false;
	for (int t = 0; t < 4; t++) {
		struct ctl_sample s = { .dt = 0.1,
					.ops = 200,
					.lat_mean_us = 1000,
					.lat_p99_us = -1,
					.contention = -1,
					.blocked = 0.9,
					.busy = 1,
					.cpu = 0.05,
					.spare = -1 };
		bool ch = ctl_policy_tick(&p, &s, &d) && d.to > d.from;
		if (ch && !up)
			cr_expect_str_eq(d.rule, CTL_RULE_FIRST_CLIMB);
		up |= ch;
	}
	cr_expect(up, "blocked workers did not climb");
}

/* btrfs with many small directories: a second worker costs 40% and no lock
 * signal says why (no BPF). After a clear loss the next probe waits the
 * longest hold at once (the doubling from 3 windows probed 28 ticks of 600). */
static double m_btrfs(int n, int t)
{
	return 30000.0 / (1 + 0.7 * (n - 1));
}
Test(controller_policy, clear_loss_probes_rarely)
{
	struct model m = { m_btrfs, NULL, NULL, 0.05, false, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 1, false, 600, &r);
	int above = 0;
	for (int t = 0; t < 600; t++)
		above += r.n[t] > 1;
	/* one 2-tick probe per longest hold (25 windows of 2 ticks) at most */
	cr_assert_leq(above, 2 * 600 / 50, "%d of 600 ticks above one worker", above);
	cr_expect_eq(moves_by(&r, 600, CTL_RULE_ACCEPT), 0, "a step up was accepted");
	expect_near_best(&m, 64, &r, CONVERGE, 600);
}

/* tmpfs tree: CPU-bound (blocked ~2%), as fast at 5 or 8 workers as at one
 * per CPU. Started from a stored profile above the CPU count, flat probes
 * down keep the smaller count until one worker per CPU, and from there it
 * does not probe up: lucky windows must not ratchet the count back up
 * (tmpfs profiles had drifted to 4-5 workers on 2 CPUs). */
static double m_cpu_flat(int n, int t)
{
	return 60000.0 * (n < 4 ? n : 4);
}
static double m_cpu_blk(int n)
{
	return 0.02;
}
static double m_cpu8_flat(int n, int t)
{
	return 30000.0 * (n < 8 ? n : 8);
}
Test(controller_policy, cpu_bound_settles_at_one_worker_per_cpu)
{
	struct model m = { m_cpu_flat, NULL, m_cpu_blk, 0.10, true, 0, false, 0, -1 };
	struct run r;
	for (int start = 4; start <= 8; start += 4) {
		simulate(&m, 64, start, true, 600, &r);
		cr_expect_eq(r.n[599], 4, "from %d: %d workers at the end", start, r.n[599]);
		int above = 0;
		for (int t = 300; t < 600; t++)
			above += r.n[t] > 4;
		cr_expect_eq(above, 0, "from %d: %d of the last 300 ticks above 4", start, above);
		cr_expect_gt(decided_by(&r, 600, CTL_RULE_VETO_SATURATED), 0,
			     "from %d: no probe up vetoed", start);
		if (start > 4)
			cr_expect_gt(decided_by(&r, 600, CTL_RULE_KEEP_FEWER), 0,
				     "from %d: fewer never kept", start);
		expect_near_best(&m, 64, &r, 0, 600);
	}
	/* 8 CPUs: a gentle step down from 9-12 (-25%) lands below the CPU
	 * count; it must try one per CPU instead, not lose and stay at 9. */
	struct model m8 = { m_cpu8_flat, NULL, m_cpu_blk, 0.10, true, 0, false, 0, -1 };
	sim_cpus = 8;
	for (int start = 9; start <= 12; start++) {
		simulate(&m8, 64, start, true, 600, &r);
		cr_expect_eq(r.n[599], 8, "8 CPUs from %d: %d workers at the end", start, r.n[599]);
	}
	sim_cpus = 4;
}

/* Tick POLICY on model M until STOP says so (at most MAX ticks). */
static void tick_until(struct ctl_policy *p, const struct model *m, int max,
		       bool (*stop)(const struct ctl_policy *))
{
	for (int t = 0; t < max && !stop(p); t++) {
		double rate = m->rate(p->n, t);
		struct ctl_sample s = {
			.dt = 0.1,
			.ops = rate * 0.1,
			.lat_mean_us = p->n / rate * 1e6,
			.lat_p99_us = -1,
			.contention = -1,
			.blocked = m->blocked ? m->blocked(p->n) : -1,
			.busy = 1,
			.cpu = 0.3,
			.spare = -1,
		};
		struct ctl_decision d;
		ctl_policy_tick(p, &s, &d);
	}
}

static bool climbing_past_an_accept(const struct ctl_policy *p)
{
	return p->phase == CTL_CLIMB && p->n > p->base_n && p->climb_accepts > 0;
}

/* A delete that ends two windows into a climb on blocked workers (slowfs
 * 64 x 100: 0.3-0.5 s) teaches the step being tried, not the one before it:
 * otherwise every later run starts one doubling short and ends before its
 * gentle probes reach the peak. Without blocked workers, only what was
 * measured is learned. */
Test(controller_policy, short_latency_bound_delete_learns_the_step_being_tried)
{
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 128, 2);
	struct ctl_policy p;
	struct model fuse = { m_fuse, NULL, m_fuse_blk, 0, false, 0, false, 0, -1 };
	ctl_policy_init(&p, &cfg, 16, false);
	tick_until(&p, &fuse, 40, climbing_past_an_accept);
	cr_assert(climbing_past_an_accept(&p), "the climb accepted a step up");
	cr_expect_eq(ctl_policy_best(&p, NULL), p.n, "learns %d, tried %d",
		     ctl_policy_best(&p, NULL), p.n);

	struct model cpu = { m_cpu_flat, NULL, m_cpu_blk, 0, true, 0, false, 0, -1 };
	ctl_policy_init(&p, &cfg, 1, false);
	tick_until(&p, &cpu, 40, climbing_past_an_accept);
	cr_assert(climbing_past_an_accept(&p), "the climb accepted a step up");
	cr_expect_eq(ctl_policy_best(&p, NULL), p.base_n, "CPU-bound: only what was measured");
}

/* Most busy time waiting on locks: the count is halved, not trimmed by one
 * (a one-worker step is lost in a noisy window: xfs 20,000 x 10 held 4
 * workers after 4 -> 3 read flat, where one worker is 1.8x faster). */
static double m_cont_half(int n)
{
	return n > 1 ? 0.5 : 0.0;
}
Test(controller_policy, high_contention_halves_the_count)
{
	struct model m = { m_flat, m_cont_half, NULL, 0.0, false, 0, false, 0, -1 };
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 64, 4);
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, 8, true); /* from a profile: holding at 8 */
	struct ctl_decision d;
	int to = -1;
	for (int t = 0; t < 40 && to < 0; t++) {
		int n = p.n;
		struct ctl_sample s = { .dt = 0.1,
					.ops = m.rate(n, t) * 0.1,
					.lat_mean_us = -1,
					.lat_p99_us = -1,
					.contention = m.cont(n),
					.blocked = -1,
					.busy = 1,
					.cpu = -1,
					.spare = -1 };
		if (ctl_policy_tick(&p, &s, &d) && strstr(d.why, "lock contention high")) {
			cr_expect_eq(d.from, 8);
			cr_expect_str_eq(d.rule, CTL_RULE_CONTENTION_HALVE);
			to = d.to;
		}
	}
	cr_assert_eq(to, 4, "contention step from 8 went to %d", to);

	/* and, the curve being flat, fewer workers are kept down to one */
	for (int t = 0; t < 200; t++) {
		int n = p.n;
		struct ctl_sample s = { .dt = 0.1,
					.ops = m.rate(n, t) * 0.1,
					.lat_mean_us = -1,
					.lat_p99_us = -1,
					.contention = m.cont(n),
					.blocked = -1,
					.busy = 1,
					.cpu = -1,
					.spare = -1 };
		ctl_policy_tick(&p, &s, &d);
	}
	cr_expect_eq(p.n, 1, "a flat curve under contention settled at %d", p.n);
}

/* A chain at one worker: one directory in flight, its child waits for a
 * worker only while the parent reads its last, empty getdents64 (a few % of
 * the time). A second worker can only hand the chain back and forth (btrfs:
 * -24 to -63% per probe), and the filesystem's own stalls (a commit every
 * 5 s) move the rate at one worker. Nothing may make it try two. */
static double m_chain(int n, int t)
{
	return (n == 1 ? 25000.0 : 12000.0) * (t % 50 < 4 ? 0.3 : 1);
}

Test(controller_policy, no_probe_up_when_no_work_waits)
{
	struct model m = { .rate = m_chain, .noise = 0.05, .spare_on = true, .spare = 0.03 };
	struct run r;
	simulate(&m, 64, 1, true, 600, &r);
	for (int t = 0; t < 600; t++)
		cr_assert_eq(r.n[t], 1, "tick %d ran %d workers with nothing waiting for them", t,
			     r.n[t]);
	cr_expect_eq(r.changes, 0);
	cr_expect_gt(decided_by(&r, 600, CTL_RULE_VETO_NO_WAITING), 0, "no probe up was vetoed");
}

/* The same curve with work waiting: the probes still run (and lose), and
 * the stalls, taken for the rate moving, do not walk the count up (a climb
 * based on a stalled window reads any count after it as a gain). */
Test(controller_policy, probes_up_when_work_waits_and_stalls_do_not_ratchet)
{
	struct model m = { .rate = m_chain, .noise = 0.05, .spare_on = true, .spare = 0.5 };
	struct run r;
	simulate(&m, 64, 1, true, 600, &r);
	cr_expect_gt(r.changes, 0, "no probe in 60 s with work waiting");
	cr_expect_gt(moves_by(&r, 600, CTL_RULE_PROBE), 0, "no gentle probe");
	int at1 = 0;
	for (int t = 0; t < 600; t++)
		at1 += r.n[t] == 1;
	cr_expect_geq(at1, 540, "one worker most of the time: %d of 600 ticks", at1);
}

/* Behind a rate cap (blkio.throttle, 400 iops): every count deletes at the
 * cap's rate, the workers are blocked nearly all the time, and the cap's
 * bursts make ticks jumpy. */
static double m_capped(int n, int t)
{
	return 2000.0;
}
static double m_capped_blk(int n)
{
	return 0.98;
}

/* The rule of the first window that closed. */
static const char *first_rule(const struct run *r, int ticks)
{
	for (int t = 0; t < ticks; t++)
		if (strcmp(r->rule[t], CTL_RULE_MEASURING))
			return r->rule[t];
	return CTL_RULE_MEASURING;
}

static int max_count(const struct run *r, int ticks)
{
	int m = 0;
	for (int t = 0; t < ticks; t++)
		m = r->n[t] > m ? r->n[t] : m;
	return m;
}

Test(controller_policy, blocked_on_a_cap_adds_no_workers)
{
	struct model m = { m_capped, NULL, m_capped_blk, 0.3, false, 0, false, 0, 0.9 };
	struct run r;
	simulate(&m, 64, 2, false, 400, &r);
	cr_expect_str_eq(first_rule(&r, 400), CTL_RULE_FIRST_CAPPED);
	cr_expect_eq(moves_by(&r, 400, CTL_RULE_BLOCKED_UP), 0, "no probe up on blocked workers");
	cr_expect_gt(decided_by(&r, 400, CTL_RULE_BLOCKED_CAPPED), 0);
	cr_expect_leq(max_count(&r, 400), 2, "never above the start: %d", max_count(&r, 400));
	cr_expect_gt(decided_by(&r, 400, CTL_RULE_DRIFT_CAPPED), 0, "the cap's bursts read as drift");
}

Test(controller_policy, blocked_without_a_cause_still_climbs)
{
	/* the same curve where the wait causes are not measured (no BPF, or
	 * overlapping reads): blocked workers are a reason to look up */
	struct model m = { m_capped, NULL, m_capped_blk, 0.3, false, 0, false, 0, -1 };
	struct run r;
	simulate(&m, 64, 2, false, 400, &r);
	cr_expect_str_eq(first_rule(&r, 400), CTL_RULE_FIRST_CLIMB);
	cr_expect_gt(max_count(&r, 400), 2);
}

Test(controller_policy, overlapping_reads_climb_past_a_small_capped_share)
{
	/* reads on a slow device overlap: a little journal time must not stop
	 * the climb */
	struct model m = { m_fuse, NULL, m_fuse_blk, 0.05, false, 0, false, 0, 0.2 };
	struct run r;
	simulate(&m, 128, 2, false, 400, &r);
	expect_near_best(&m, 128, &r, CONVERGE, 400);
	cr_expect_eq(decided_by(&r, 400, CTL_RULE_BLOCKED_CAPPED), 0);
}

Test(controller_policy, capped_probe_up_is_vetoed)
{
	/* settled from a profile, blocked on a cap: the hold's probes up are
	 * vetoed, a probe down still runs */
	struct model m = { m_capped, NULL, m_capped_blk, 0.02, false, 0, false, 0, 0.9 };
	struct run r;
	simulate(&m, 64, 4, true, 600, &r);
	cr_expect_gt(decided_by(&r, 600, CTL_RULE_VETO_CAPPED), 0);
	cr_expect_leq(max_count(&r, 600), 4);
}

/* A client that lets 7 requests in flight, 2 ms each: every worker past 7
 * waits in the client, so the latency grows with the count and the
 * throughput does not. */
static double m_client_cap(int n, int t)
{
	return 500.0 * (n < 7 ? n : 7);
}

Test(controller_policy, client_cap_settles_at_the_knee)
{
	struct model m = { m_client_cap, NULL, m_fuse_blk, 0.05, false, 0, false, 0, -1 };
	struct run r;
	/* from the cap, and from below the knee */
	const int starts[] = { 64, 8, 2 };
	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
		simulate(&m, 64, starts[i], false, 400, &r);
		expect_near_best(&m, 64, &r, CONVERGE, 400);
		int above = 0;
		for (int t = CONVERGE; t < 400; t++)
			above += r.n[t] > 14;
		cr_expect_leq(above, 20, "start %d: %d ticks above twice the knee", starts[i], above);
		cr_expect_leq(r.n[399], 14, "start %d: ended at %d", starts[i], r.n[399]);
	}
	simulate(&m, 64, 64, false, 400, &r);
	cr_expect_str_eq(first_rule(&r, 400), CTL_RULE_FIRST_KNEE);
	cr_expect_geq(moves_by(&r, 400, CTL_RULE_KNEE), 1, "the knee rule stepped down");
}

/* One sample of a single worker at 20,000 entries/s, BLK of it blocked. */
static struct ctl_sample one_worker(double blk)
{
	return (struct ctl_sample){ .dt = 0.1,
				    .ops = 2000,
				    .lat_mean_us = 50,
				    .lat_p99_us = -1,
				    .contention = 0.01,
				    .blocked = blk,
				    .busy = 1,
				    .cpu = 0.95,
				    .spare = 1,
				    .capped = -1 };
}

/* The first decision at one worker, with or without the btrfs start rule. */
static const char *first_decision(bool one_first, double blk, int *to)
{
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 64, 2);
	cfg.one_first = one_first;
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, 1, false);
	struct ctl_decision d;
	struct ctl_sample s = one_worker(blk);
	for (int t = 0; t < 20; t++) {
		ctl_policy_tick(&p, &s, &d);
		if (strcmp(d.rule, CTL_RULE_MEASURING)) {
			*to = p.n;
			return d.rule;
		}
	}
	*to = p.n;
	return "";
}

/* btrfs: a first window at one worker, not blocked, holds there instead of
 * climbing; blocked on reads (cold) it climbs as on other filesystems, and
 * without the rule it climbs. */
Test(controller_policy, one_first_holds_an_unblocked_worker)
{
	int to;
	cr_expect_str_eq(first_decision(true, 0.02, &to), CTL_RULE_FIRST_ONE);
	cr_expect_eq(to, 1);
	cr_expect_str_eq(first_decision(true, 0.9, &to), CTL_RULE_FIRST_CLIMB);
	cr_expect_eq(to, 2);
	cr_expect_str_eq(first_decision(false, 0.02, &to), CTL_RULE_FIRST_CLIMB);
	cr_expect_eq(to, 2);
}

/* A delete that lasts tries two workers one window after the hold (the
 * third window), by a gentle probe. */
Test(controller_policy, one_first_probes_two_later)
{
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 64, 2);
	cfg.one_first = true;
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, 1, false);
	struct ctl_decision d;
	struct ctl_sample s = one_worker(0.02);
	const char *up = NULL;
	int t = 0;
	for (; t < 40 && !up; t++)
		if (ctl_policy_tick(&p, &s, &d) && d.to > d.from)
			up = d.rule;
	cr_assert(up, "never tried two workers");
	cr_expect_eq(t, 2 * cfg.window_ticks, "tried two at tick %d", t);
	cr_expect_str_eq(up, CTL_RULE_PROBE);
}
