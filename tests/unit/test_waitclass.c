// SPDX-License-Identifier: GPL-3.0-or-later
/* Wait causes from kernel stacks (probes/waitclass.h): the throttling test
 * the controller adds to the classification --trace uses. */
#include <criterion/criterion.h>
#include "probes/waitclass.h"

Test(waitclass, throttled_stacks)
{
	const char *wbt[] = { "__schedule+0x1", "io_schedule+0x2",	  "rq_qos_wait+0x90",
			      "wbt_wait+0x70",	"__rq_qos_throttle+0x20", "blk_mq_submit_bio+0x1" };
	const char *tag[] = { "__schedule+0x1", "io_schedule+0x2", "blk_mq_get_tag+0x100",
			      "submit_bio_wait+0x5" };
	const char *read[] = { "__schedule+0x1",
			       "io_schedule+0x2",
			       "bit_wait_io+0x1",
			       "__wait_on_bit+0x1",
			       "out_of_line_wait_on_bit+0x1",
			       "__ext4_get_inode_loc+0x520" };
	cr_expect(wait_stack_throttled(wbt, 6));
	cr_expect(wait_stack_throttled(tag, 4));
	cr_expect_not(wait_stack_throttled(read, 6));
	int site;
	const char *lock;
	bool space;
	cr_expect_eq(wait_classify(read, 6, &site, &lock, &space), WAIT_META_READ);
	cr_expect_eq(wait_classify(tag, 4, &site, &lock, &space), WAIT_BLOCK_IO);
	cr_expect_str_eq(wait_cause_id(WAIT_META_READ), "metadata_read");
}
