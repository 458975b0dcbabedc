// SPDX-License-Identifier: GPL-3.0-or-later
/* The start on a cold cache (user/ctl/cold.c): which evidence raises the
 * start, to what, and that the policy then holds there and still comes back
 * down on a clear signal that the extra workers have nothing to do. */
#include <criterion/criterion.h>
#include "ctl/cold.h"
#include "ctl/policy.h"

static struct ctl_cold_evidence cold_tree(const char *shape, int ncpu, int cap)
{
	return (struct ctl_cold_evidence){
		.read_disk = true,
		.steer = true,
		.shape = shape,
		.ncpu = ncpu,
		.cap = cap,
	};
}

Test(cold, warm_tree_keeps_the_start)
{
	struct ctl_cold_evidence ev = cold_tree("tree-small", 2, 64);
	ev.read_disk = false;
	cr_expect_eq(ctl_cold_start(1, &ev), 1);
	cr_expect_eq(ctl_cold_start(2, &ev), 2);
}

Test(cold, cold_tree_starts_with_reads_in_flight)
{
	struct ctl_cold_evidence ev = cold_tree("tree-small", 2, 64);
	cr_expect_eq(ctl_cold_start(1, &ev), 4, "xfs's prior of 1 on 2 CPUs");
	cr_expect_eq(ctl_cold_start(2, &ev), 4, "ext4's prior of 2 on 2 CPUs");
	ev.shape = "tree-wide";
	cr_expect_eq(ctl_cold_start(2, &ev), 4);
}

Test(cold, never_lowers_a_higher_start)
{
	struct ctl_cold_evidence ev = cold_tree("tree-wide", 2, 64);
	cr_expect_eq(ctl_cold_start(8, &ev), 8, "a FUSE or network prior");
	cr_expect_eq(ctl_cold_start(32, &ev), 32, "a profile's count");
}

Test(cold, scales_with_cpus_within_bounds)
{
	struct ctl_cold_evidence ev = cold_tree("tree-small", 1, 64);
	cr_expect_eq(ctl_cold_start(1, &ev), 4, "at least four");
	ev.ncpu = 6;
	cr_expect_eq(ctl_cold_start(2, &ev), 12, "two per CPU");
	ev.ncpu = 64;
	cr_expect_eq(ctl_cold_start(2, &ev), 16, "at most sixteen");
	ev.cap = 3;
	cr_expect_eq(ctl_cold_start(1, &ev), 3, "--max-threads bounds it");
}

/* In one directory every inode is looked up under the parent's lock. */
Test(cold, one_directory_at_a_time_keeps_the_start)
{
	const char *shapes[] = { "flat", "chain", "small", "empty", NULL };
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		struct ctl_cold_evidence ev = cold_tree(shapes[i], 2, 64);
		cr_expect_eq(ctl_cold_start(1, &ev), 1, "shape %s",
			     shapes[i] ? shapes[i] : "unknown");
	}
}

Test(cold, pinned_count_is_left_alone)
{
	struct ctl_cold_evidence ev = cold_tree("tree-small", 2, 64);
	ev.steer = false;
	cr_expect_eq(ctl_cold_start(1, &ev), 1);
}

/* The controller starts the policy at the raised count as at a known point:
 * it holds there, and workers left idle are cut at once. */
Test(cold, holds_then_cuts_idle_workers)
{
	struct ctl_cold_evidence ev = cold_tree("tree-small", 2, 64);
	struct ctl_policy_cfg cfg;
	ctl_policy_defaults(&cfg, 64, 2);
	struct ctl_policy p;
	ctl_policy_init(&p, &cfg, ctl_cold_start(2, &ev), true);
	cr_assert_eq(p.n, 4);
	cr_expect_eq(p.phase, CTL_HOLD);
	struct ctl_decision d;
	struct ctl_sample busy = { .dt = 0.1,
				   .ops = 4000,
				   .lat_mean_us = -1,
				   .lat_p99_us = -1,
				   .contention = -1,
				   .blocked = 0.5,
				   .busy = 1,
				   .cpu = -1,
				   .spare = -1,
				   .capped = -1 };
	for (int t = 0; t < 2; t++)
		cr_expect_not(ctl_policy_tick(&p, &busy, &d), "moved at tick %d", t);
	cr_expect_eq(p.n, 4);
	struct ctl_sample idle = busy;
	idle.busy = 0.4;
	bool moved = false;
	for (int t = 0; t < 4 && !moved; t++)
		moved = ctl_policy_tick(&p, &idle, &d);
	cr_assert(moved);
	cr_expect_str_eq(d.rule, CTL_RULE_IDLE_CUT);
	cr_expect_eq(d.to, 2);
}
