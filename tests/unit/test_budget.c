// SPDX-License-Identifier: GPL-3.0-or-later
/* The ranks' shared budget (user/ranks/budget.c): the rule every rank applies
 * to the same sums, and the shares; and the policy following it
 * (ctl_policy_set_budget). */
#include <criterion/criterion.h>

#include "ctl/policy.h"
#include "ranks/budget.h"

/* A window of one second at RATE entries/s, LAT µs mean unlink latency,
 * THREADS running of MAX allowed, after PREV. */
static struct budget_sample next(const struct budget_sample *prev, double rate, double lat,
				 unsigned threads, unsigned max)
{
	struct budget_sample s = *prev;
	s.t += 1;
	s.ops += (uint64_t)rate;
	s.unlinks += 100;
	s.unlink_ns += (uint64_t)(100 * lat * 1000);
	s.threads = threads;
	s.max_threads = max;
	return s;
}

Test(budget, starts_from_what_the_ranks_run_then_doubles_while_latency_holds)
{
	struct budget b;
	budget_init(&b, 4);
	struct budget_sample s = { 0 };
	cr_assert_not(budget_step(&b, &s)); /* the first sample only starts the window */
	s = next(&s, 1000, 2000, 16, 64);
	cr_assert(budget_step(&b, &s));
	cr_assert_eq(b.cap, 16);
	cr_assert_eq(b.why, BUDGET_START);
	s = next(&s, 2000, 2050, 16, 64);
	cr_assert(budget_step(&b, &s));
	cr_assert_eq(b.cap, 32);
	cr_assert_eq(b.why, BUDGET_GROW);
}

Test(budget, cuts_when_latency_rises_without_gain_then_grows_one_a_rank)
{
	struct budget b;
	budget_init(&b, 4);
	struct budget_sample s = { 0 };
	budget_step(&b, &s);
	s = next(&s, 1000, 2000, 32, 64);
	budget_step(&b, &s);
	cr_assert_eq(b.cap, 32);
	s = next(&s, 1010, 4000, 32, 64); /* the knee: queueing, no gain */
	cr_assert(budget_step(&b, &s));
	cr_assert_eq(b.why, BUDGET_CUT);
	cr_assert_eq(b.cap, 24);
	s = next(&s, 1000, 2100, 24, 64); /* latency back: grow by one per rank */
	cr_assert(budget_step(&b, &s));
	cr_assert_eq(b.cap, 28);
}

Test(budget, latency_with_gain_holds_and_a_cap_nobody_reaches_does_not_grow)
{
	struct budget b;
	budget_init(&b, 2);
	struct budget_sample s = { 0 };
	budget_step(&b, &s);
	s = next(&s, 1000, 2000, 8, 64);
	budget_step(&b, &s);
	s = next(&s, 1500, 4000, 8, 64); /* slower but more done: not a knee */
	cr_assert_not(budget_step(&b, &s));
	cr_assert_eq(b.cap, 8);
	s = next(&s, 1600, 2000, 3, 64); /* the ranks run 3 of 8: not binding */
	cr_assert_not(budget_step(&b, &s));
	cr_assert_eq(b.cap, 8);
}

Test(budget, a_window_with_too_few_unlinks_says_nothing)
{
	struct budget b;
	budget_init(&b, 2);
	struct budget_sample s = { 0 };
	budget_step(&b, &s);
	struct budget_sample t = s;
	t.t += 1;
	t.unlinks += 3;
	cr_assert_not(budget_step(&b, &t));
	cr_assert_eq(b.cap, 0);
}

Test(budget, the_cap_stays_between_the_ranks_and_their_maximum)
{
	struct budget b;
	budget_init(&b, 4);
	struct budget_sample s = { 0 };
	budget_step(&b, &s);
	s = next(&s, 1000, 2000, 60, 64);
	budget_step(&b, &s);
	s = next(&s, 2000, 2000, 60, 64);
	budget_step(&b, &s);
	cr_assert_eq(b.cap, 64);
	for (int i = 0; i < 20; i++) {
		s = next(&s, 1000, 9000 + 1000 * i, b.cap, 64);
		budget_step(&b, &s);
	}
	cr_assert_eq(b.cap, 4);
}

Test(budget, ranks_with_work_share_alike_and_none_drops_to_zero)
{
	struct budget b;
	budget_init(&b, 4);
	b.cap = 40;
	/* one rank has work: 40 less a worker for each idle one */
	cr_assert_eq(budget_share(&b, 36, 1), 37);
	cr_assert_eq(budget_share(&b, 0, 1), 1);
	/* all four: alike, whatever each backlog */
	cr_assert_eq(budget_share(&b, 1, 4), 10);
	cr_assert_eq(budget_share(&b, 900, 4), 10);
	/* --max-ops=1000 over 4 ranks, one busy: the shares add up to the total */
	uint64_t sum = budget_ops_share(1000, 4, 36, 1) + 3 * budget_ops_share(1000, 4, 0, 1);
	cr_assert(sum >= 990 && sum <= 1000, "%llu", (unsigned long long)sum);
	cr_assert_eq(budget_ops_share(1000, 4, 5, 4), 250);
	cr_assert_eq(budget_ops_share(1, 4, 0, 1), 1);
}

Test(budget, the_policy_takes_its_share_as_its_count)
{
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 64, 2);
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, 12, true);
	struct ctl_decision d;
	cr_assert(ctl_policy_set_budget(&p, 4, &d));
	cr_assert_eq(d.to, 4);
	cr_assert_str_eq(d.rule, CTL_RULE_BUDGET);
	cr_assert(ctl_policy_set_budget(&p, 8, &d)); /* the share is the count */
	cr_assert_eq(p.n, 8);
	cr_assert(ctl_policy_set_budget(&p, 3, &d));
	cr_assert_eq(p.n, 3);
	cr_assert(ctl_policy_set_budget(&p, 0, &d) == false); /* lifted: stays */
	cr_assert_eq(p.n, 3);
}
