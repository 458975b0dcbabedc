// SPDX-License-Identifier: GPL-3.0-or-later
/* The start on a cold cache (see cold.h). */
#include "ctl/cold.h"

#include <string.h>

/* Cold, each worker mostly waits for one read (a directory block, an inode
 * table block), so the count is what keeps the disk busy: two per CPU keeps
 * the disk's queue and the CPUs fed; at least four, which beat the warm
 * priors of one and two on cold trees; at most sixteen, so that a big
 * machine does not start dozens on a guess
 * (docs/design.md#the-start-on-a-cold-cache). */
#define COLD_MIN 4
#define COLD_MAX 16

/* Only trees have several directories to read at once. In one directory
 * (flat) every unlink looks its inode up, a read when cold, under the
 * parent's lock, so a second worker there waits instead of reading; a chain
 * or a small tree has one directory in flight. */
static bool has_dirs_to_overlap(const char *shape)
{
	return shape && (!strcmp(shape, "tree-small") || !strcmp(shape, "tree-wide"));
}

int ctl_cold_start(int start, const struct ctl_cold_evidence *ev)
{
	if (!ev->read_disk || !ev->steer || !has_dirs_to_overlap(ev->shape))
		return start;
	int n = 2 * ev->ncpu;
	if (n < COLD_MIN)
		n = COLD_MIN;
	if (n > COLD_MAX)
		n = COLD_MAX;
	if (n > ev->cap)
		n = ev->cap;
	return n > start ? n : start;
}
