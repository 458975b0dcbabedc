// SPDX-License-Identifier: GPL-3.0-or-later
/* The controller's reading of wait causes (ctl_capped_share): which blocked
 * time more workers cannot overlap. */
#include <criterion/criterion.h>
#include <stdint.h>
#include "ctl/signals.h"
#include "probes/waitclass.h"

static uint64_t ns[WAIT_COUNT], count[WAIT_COUNT];

static void reset(void)
{
	for (int c = 0; c < WAIT_COUNT; c++)
		ns[c] = count[c] = 0;
}

Test(signals_capped, nothing_classified_is_unknown)
{
	reset();
	cr_expect_lt(ctl_capped_share(ns, count, 0, 0, 0, 0), 0);
	ns[WAIT_JOURNAL] = 1000;
	cr_expect_lt(ctl_capped_share(ns, count, 0, 0, 0, 5000), 0, "under the floor");
}

Test(signals_capped, journal_and_log_space_are_capped)
{
	reset();
	ns[WAIT_JOURNAL] = 600, ns[WAIT_META_READ] = 400;
	count[WAIT_META_READ] = 4;
	cr_expect_float_eq(ctl_capped_share(ns, count, 0, 0, 0, 0), 0.6, 1e-9);
	reset();
	ns[WAIT_XFS_LOG] = 1, ns[WAIT_XFS_INODEGC] = 1, ns[WAIT_WRITEBACK] = 1;
	cr_expect_float_eq(ctl_capped_share(ns, count, 0, 0, 0, 0), 1.0, 1e-9);
}

Test(signals_capped, throttled_stacks_are_capped)
{
	reset();
	ns[WAIT_BLOCK_IO] = 1000;
	cr_expect_float_eq(ctl_capped_share(ns, count, 900, 0, 0, 0), 0.9, 1e-9);
}

Test(signals_capped, reads_held_above_the_device)
{
	/* blkio.throttle 400 iops: 100 ms per read wait, 0.1 ms per request */
	reset();
	ns[WAIT_META_READ] = 1000000000ull;
	count[WAIT_META_READ] = 10;
	cr_expect_float_eq(ctl_capped_share(ns, count, 0, 100, 12, 0), 1.0, 1e-9);
	/* a slow device: the wait is its service time, the reads overlap */
	cr_expect_float_eq(ctl_capped_share(ns, count, 0, 90000, 12, 0), 0.0, 1e-9);
	/* too few requests for a median */
	cr_expect_float_eq(ctl_capped_share(ns, count, 0, 100, 2, 0), 0.0, 1e-9);
	/* a fast device and sub-millisecond waits: a cold read, not a cap */
	reset();
	ns[WAIT_META_READ] = 5000000ull;
	count[WAIT_META_READ] = 10;
	cr_expect_float_eq(ctl_capped_share(ns, count, 0, 50, 12, 0), 0.0, 1e-9);
}
