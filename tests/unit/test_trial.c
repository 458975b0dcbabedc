// SPDX-License-Identifier: GPL-3.0-or-later
/* The trials of an engine switch (user/ctl/trial.c) against simulated
 * filesystems: one big directory being read, a rate with or without the
 * switch, multiplicative noise; ticks of 100 ms. Sharing (a helper needed,
 * two workers at least) for the most part; inode order (no helper, reads
 * of a sorted batch measure nothing) at the end. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "ctl/trial.h"
#include "support/sim_noise.h"

/* ctl_trial_tick with the sample's fields in a row, as the tables below
 * give them. */
static enum ctl_trial_act tick(struct ctl_trial *t, double rate, double weight, double busy,
			       bool asked, bool active, int n, int *n_out, char *why, size_t whylen)
{
	struct ctl_trial_sample s = {
		.rate = rate,
		.weight = weight,
		.busy = busy,
		.asked = asked,
		.active = active,
		.n = n,
	};
	return ctl_trial_tick(t, &s, n_out, why, whylen);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double noise(double rel)
{
	return 1 + rel * sim_noise(&rng);
}

struct sim {
	double base;   /* entries/s with sharing off */
	double gain;   /* factor with sharing on */
	double noise;  /* relative sd per tick */
	int big_until; /* ticks during which the big directory is read */
	double busy;   /* busy share of the active workers */
};

struct outcome {
	enum ctl_trial_act last; /* the deciding action */
	int tick;		 /* when */
	int n;			 /* workers after it */
	bool tried;
};

/* Run up to TICKS ticks from N workers; stop at the first decision. */
static struct outcome run(struct ctl_trial *s, const struct sim *m, int n, int ticks)
{
	struct outcome o = { TRIAL_ACT_NONE, -1, n, false };
	for (int t = 0; t < ticks; t++) {
		bool big = t < m->big_until;
		bool on = ctl_trial_on(s);
		double rate = m->base * (on ? m->gain : 1) * noise(m->noise);
		char why[160];
		int to = n;
		enum ctl_trial_act a =
			tick(s, rate, 0.1, m->busy, big && !on, big && on, n, &to, why, sizeof why);
		if (a == TRIAL_ACT_NONE)
			continue;
		cr_assert(strlen(why) > 0, "every action says why");
		n = to;
		o.n = n;
		if (a == TRIAL_ACT_TRY) {
			o.tried = true;
			cr_assert(ctl_trial_on(s), "a trial shares");
			cr_assert(ctl_trial_measuring(s));
			cr_assert_geq(n, 2, "a trial needs a helper");
			continue;
		}
		o.last = a;
		o.tick = t;
		return o;
	}
	return o;
}

static struct ctl_trial fresh(int cap, bool fixed, int known)
{
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, cap, 2);
	struct ctl_trial_cfg tc = { .band = cfg.band,
				    .cap = cap,
				    .min_workers = 2,
				    .need_helper = true,
				    .measure = "throughput",
				    .unit = "entries/s" };
	struct ctl_trial s;
	ctl_trial_init(&s, &tc, fixed, known);
	return s;
}

/* One big directory from N0 workers, sharing's GAIN, 5% noise: the first
 * decision, and the state it leaves. */
static struct outcome decide(struct ctl_trial *s, double gain, double busy, int n0)
{
	*s = fresh(64, false, -1);
	struct sim m = { .base = 100000, .gain = gain, .noise = 0.05, .big_until = 1000, .busy = busy };
	struct outcome o = run(s, &m, n0, 100);
	cr_assert(o.tried);
	cr_assert_leq(o.tick, 10, "decided at tick %d", o.tick);
	cr_assert(!ctl_trial_measuring(s));
	return o;
}

Test(ctl_trial, sharing_that_pays_is_kept_within_a_second)
{
	struct ctl_trial s;
	struct outcome o = decide(&s, 1.6, 0.5, 1);
	cr_assert_eq(o.last, TRIAL_ACT_KEEP);
	cr_assert_eq(o.n, 2, "the trial's workers stay");
	cr_assert(ctl_trial_on(&s));
	cr_assert_eq(ctl_trial_learned(&s), 1);
}

Test(ctl_trial, sharing_that_loses_is_dropped_and_workers_restored)
{
	struct ctl_trial s;
	struct outcome o = decide(&s, 0.45, 1, 1);
	cr_assert_eq(o.last, TRIAL_ACT_DROP);
	cr_assert_eq(o.n, 1, "back to the count before the trial");
	cr_assert(!ctl_trial_on(&s));
	cr_assert_eq(ctl_trial_learned(&s), 0);
	/* decided: no second trial */
	struct sim m = { .base = 100000, .gain = 0.45, .noise = 0.05, .big_until = 1000, .busy = 1 };
	cr_assert(!run(&s, &m, 1, 100).tried);
}

/* Noise must not switch sharing on where it costs: over many seeds of a
 * 5%-noise machine (sd per tick), a 10% loss never turns it on, and a tie
 * rarely (where it does, nothing is lost). */
static int count_on(double gain, int seeds)
{
	int on = 0;
	for (int seed = 1; seed <= seeds; seed++) {
		rng = 0x9e3779b97f4a7c15ull * (uint64_t)seed;
		struct ctl_trial s = fresh(64, false, -1);
		struct sim m = { .base = 80000,
				 .gain = gain,
				 .noise = 0.05,
				 .big_until = 1000,
				 .busy = 0.5 };
		struct outcome o = run(&s, &m, 2, 100);
		cr_assert(o.tried);
		on += o.last == TRIAL_ACT_KEEP;
	}
	return on;
}

Test(ctl_trial, noise_does_not_turn_on_a_loss_and_rarely_a_tie)
{
	int on = count_on(0.9, 500);
	cr_assert_eq(on, 0, "a 10%% loss switched sharing on in %d of 500 runs", on);
	on = count_on(1.0, 500);
	cr_assert_leq(on, 5, "a tie switched sharing on in %d of 500 runs", on);
}

/* A real gain on a noisier machine is still found in most runs. */
Test(ctl_trial, a_clear_gain_is_found_through_noise)
{
	int on = 0;
	for (int seed = 1; seed <= 200; seed++) {
		rng = 0x2545f4914f6cdd1dull * (uint64_t)seed;
		struct ctl_trial s = fresh(64, false, -1);
		struct sim m = { .base = 80000,
				 .gain = 1.5,
				 .noise = 0.08,
				 .big_until = 1000,
				 .busy = 0.5 };
		on += run(&s, &m, 1, 100).last == TRIAL_ACT_KEEP;
	}
	cr_assert_geq(on, 190, "found in %d of 200 runs", on);
}

Test(ctl_trial, big_directory_ending_mid_trial_abandons_and_retries_later)
{
	struct ctl_trial s = fresh(64, false, -1);
	/* base needs ticks 1-2, the trial starts at 3 (hand-over) and measures 4-5 */
	struct sim m = { .base = 100000, .gain = 1.6, .noise = 0, .big_until = 4, .busy = 0.5 };
	struct outcome o = run(&s, &m, 1, 20);
	cr_assert(o.tried);
	cr_assert_eq(o.last, TRIAL_ACT_ABANDON);
	cr_assert_eq(o.n, 1);
	cr_assert(!ctl_trial_on(&s));
	cr_assert_eq(ctl_trial_learned(&s), -1, "nothing learned");
	m.big_until = 1000;
	o = run(&s, &m, 1, 100);
	cr_assert_eq(o.last, TRIAL_ACT_KEEP, "the next big directory gets its trial");
}

Test(ctl_trial, base_interrupted_waits_for_the_next_big_directory)
{
	struct ctl_trial s = fresh(64, false, -1);
	struct sim m = { .base = 100000, .gain = 1.6, .noise = 0, .big_until = 2, .busy = 0.5 };
	struct outcome o = run(&s, &m, 1, 20);
	cr_assert(!o.tried, "no trial without a whole base window");
	cr_assert_eq(s.st, TRIAL_UNTRIED);
}

Test(ctl_trial, no_trial_while_every_worker_is_busy_elsewhere)
{
	struct ctl_trial s = fresh(64, false, -1);
	struct sim m = { .base = 100000, .gain = 1.6, .noise = 0.02, .big_until = 1000, .busy = 0.97 };
	struct outcome o = run(&s, &m, 4, 100);
	cr_assert(!o.tried);
	/* ...but at one worker a helper is always free */
	o = run(&s, &m, 1, 100);
	cr_assert(o.tried);
}

Test(ctl_trial, no_trial_without_a_big_directory)
{
	struct ctl_trial s = fresh(64, false, -1);
	struct sim m = { .base = 100000, .gain = 1.6, .noise = 0.02, .big_until = 0, .busy = 0.3 };
	cr_assert(!run(&s, &m, 1, 200).tried);
}

Test(ctl_trial, profile_answers_and_fixed_types_never_try)
{
	struct sim m = { .base = 100000, .gain = 1.6, .noise = 0.02, .big_until = 1000, .busy = 0.3 };
	struct ctl_trial on = fresh(64, false, 1), off = fresh(64, false, 0),
			 fixed = fresh(64, true, -1), one = fresh(1, false, -1);
	cr_assert(ctl_trial_on(&on));
	cr_assert(!ctl_trial_on(&off));
	cr_assert(!run(&on, &m, 1, 100).tried);
	cr_assert(!run(&off, &m, 1, 100).tried);
	cr_assert(!run(&fixed, &m, 1, 100).tried);
	cr_assert(!run(&one, &m, 1, 100).tried, "a cap of one worker has no helper");
	cr_assert_eq(ctl_trial_learned(&on), 1);
	cr_assert_eq(ctl_trial_learned(&off), 0);
	cr_assert_eq(ctl_trial_learned(&fixed), -1);
}

Test(ctl_trial, trial_workers_respect_the_cap_and_keep_a_larger_count)
{
	struct sim m = { .base = 100000, .gain = 1.6, .noise = 0, .big_until = 1000, .busy = 0.5 };
	struct ctl_trial s = fresh(64, false, -1);
	struct outcome o = run(&s, &m, 8, 100);
	cr_assert_eq(o.last, TRIAL_ACT_KEEP);
	cr_assert_eq(o.n, 8, "a trial at 8 workers keeps 8");
	s = fresh(2, false, -1);
	o = run(&s, &m, 1, 100);
	cr_assert_eq(o.n, 2);
}

/* Inode order: no helper needed, the worker count never moves, and the
 * ticks in which a sorted batch is read (the switch acts, nothing is
 * measured) are waited out, not counted and not taken for its end. */
static struct ctl_trial fresh_sort(void)
{
	struct ctl_trial_cfg tc = { .band = 0.08,
				    .cap = 64,
				    .min_workers = 1,
				    .need_helper = false,
				    .measure = "unlinkat rate",
				    .unit = "unlinks/s" };
	struct ctl_trial s;
	ctl_trial_init(&s, &tc, false, -1);
	return s;
}

/* Ticks: base unsorted unlinks for BASE_TICKS, then READ_TICKS with the
 * batch being read (active, no measure), then sorted unlinks at GAIN. */
static enum ctl_trial_act sort_run(struct ctl_trial *s, double gain, int read_ticks,
				   int sorted_ticks, int n, int *n_after, char *why)
{
	int t_on = -1;
	for (int t = 0; t < 60; t++) {
		bool on = ctl_trial_on(s);
		if (on && t_on < 0)
			t_on = t;
		int since = on ? t - t_on : 0;
		bool reading = on && since < read_ticks;
		bool sorted_left = on && since < read_ticks + sorted_ticks;
		double w = reading ? 0 : 0.05 * n;
		double rate = 50000 * (on ? gain : 1) * noise(0.03);
		int to = n;
		enum ctl_trial_act a = tick(s, rate, w, 1.0, !on, sorted_left, n, &to, why, 160);
		cr_assert_eq(to, n, "inode order never moves the worker count");
		if (a == TRIAL_ACT_NONE || a == TRIAL_ACT_TRY)
			continue;
		*n_after = to;
		return a;
	}
	return TRIAL_ACT_NONE;
}

Test(ctl_trial, inode_order_waits_out_the_read_of_a_sorted_batch)
{
	char why[160];
	int n = 0;
	struct ctl_trial s = fresh_sort();
	/* every worker busy: no helper is needed for this switch */
	cr_assert_eq(sort_run(&s, 1.5, 6, 100, 2, &n, why), TRIAL_ACT_KEEP, "%s", why);
	cr_assert_eq(n, 2);
	cr_assert(strstr(why, "unlinkat rate +"), "%s", why);
	cr_assert_eq(ctl_trial_learned(&s), 1);
	s = fresh_sort();
	cr_assert_eq(sort_run(&s, 0.95, 6, 100, 1, &n, why), TRIAL_ACT_DROP, "%s", why);
	cr_assert_eq(ctl_trial_learned(&s), 0);
}

Test(ctl_trial, inode_order_abandoned_when_the_directory_ends_in_the_read)
{
	char why[160];
	int n = 0;
	struct ctl_trial s = fresh_sort();
	/* the rest of the directory was too small to be sorted: nothing acts */
	cr_assert_eq(sort_run(&s, 1.5, 0, 0, 1, &n, why), TRIAL_ACT_ABANDON, "%s", why);
	cr_assert_eq(ctl_trial_learned(&s), -1);
	cr_assert(!ctl_trial_on(&s));
}

Test(ctl_trial, base_waits_out_ticks_without_a_measure)
{
	struct ctl_trial s = fresh_sort();
	char why[160];
	int to = 1;
	tick(&s, 0, 0, 1, true, false, 1, &to, why, sizeof why);
	cr_assert_eq(s.st, TRIAL_BASE);
	for (int i = 0; i < 5; i++) /* a slow read: asked, nothing timed */
		cr_assert_eq(tick(&s, 0, 0, 1, true, false, 1, &to, why, sizeof why), TRIAL_ACT_NONE);
	cr_assert_eq(s.st, TRIAL_BASE);
	tick(&s, 1000, 0.05, 1, true, false, 1, &to, why, sizeof why);
	cr_assert_eq(tick(&s, 1000, 0.05, 1, true, false, 1, &to, why, sizeof why), TRIAL_ACT_TRY);
}

/* Inode order leaves the count alone, so its two sides must have run as
 * many busy workers: a trial measured while the other worker had finished
 * is not compared (abandoned), and after TRIAL_MAX_ABANDON of those there is
 * no trial for the rest of the run. */
Test(ctl_trial, inode_order_compares_only_at_equal_concurrency)
{
	struct ctl_trial s = fresh_sort();
	cr_assert_not(ctl_trial_moves_workers(&s));
	cr_assert(ctl_trial_moves_workers((struct ctl_trial[]){ fresh(64, false, -1) }));
	char why[160];
	int to = 2;
	for (int round = 0; round < TRIAL_MAX_ABANDON; round++) {
		cr_assert_eq(tick(&s, 0, 0, 1, true, false, 2, &to, why, sizeof why), TRIAL_ACT_NONE);
		cr_assert_eq(s.st, TRIAL_BASE);
		tick(&s, 1000, 0.05, 1.0, true, false, 2, &to, why, sizeof why);
		cr_assert_eq(tick(&s, 1000, 0.05, 1.0, true, false, 2, &to, why, sizeof why),
			     TRIAL_ACT_TRY);
		tick(&s, 0, 0, 1, false, true, 2, &to, why, sizeof why); /* hand-over */
		/* one of two workers busy in the trial: 1.5x faster per call */
		tick(&s, 1500, 0.05, 0.5, false, true, 2, &to, why, sizeof why);
		enum ctl_trial_act a =
			tick(&s, 1500, 0.05, 0.5, false, true, 2, &to, why, sizeof why);
		cr_assert_eq(a, TRIAL_ACT_ABANDON, "%s", why);
		cr_assert(strstr(why, "2.0 busy workers in the base, 1.0 in the trial"), "%s", why);
		cr_assert_eq(to, 2);
		cr_assert_eq(ctl_trial_learned(&s), -1);
	}
	cr_assert_eq(s.st, TRIAL_FIXED, "given up for this run");
	cr_assert(strstr(why, "not tried again"), "%s", why);
}

/* A measure that never comes (batches that never pass the sort threshold)
 * must not keep the trial, and the paused worker count, for the rest of the
 * delete. */
Test(ctl_trial, a_trial_without_a_measure_gives_up)
{
	struct ctl_trial s = fresh_sort();
	char why[160];
	int to = 1;
	enum ctl_trial_act a = TRIAL_ACT_NONE;
	int t;
	for (t = 0; t < 10 * TRIAL_MAX_WAIT && a == TRIAL_ACT_NONE; t++)
		a = tick(&s, 0, 0, 1, true, false, 1, &to, why, sizeof why);
	cr_assert_eq(a, TRIAL_ACT_ABANDON);
	cr_assert_leq(t, TRIAL_MAX_WAIT + 2);
	cr_assert_eq(s.st, TRIAL_FIXED);
	cr_assert_not(ctl_trial_measuring(&s));
}
