// SPDX-License-Identifier: GPL-3.0-or-later
/* The start on a cold cache: where the tree's first directory reads went to
 * the disk, the prior or the profile (counts measured warm, or climbed to
 * over a whole delete) starts too low for a delete that may last a fraction
 * of a second, spent mostly waiting for directory blocks and inodes. Pure:
 * tests/unit/test_cold.c gives it the evidence and checks the count. */
#ifndef ADAPTRM_CTL_COLD_H
#define ADAPTRM_CTL_COLD_H
#include <stdbool.h>

/* What the controller knows of a tree before its workers start. */
struct ctl_cold_evidence {
	bool read_disk;	   /* the shape sample's reads went to the disk */
	bool steer;	   /* the count is the controller's (not --threads) */
	const char *shape; /* the profile's shape class of the tree */
	int ncpu;	   /* online CPUs */
	int cap;	   /* the largest worker count */
};

/* The count to start at instead of START on evidence EV: START where the
 * tree is not cold or not a tree of directories (flat, chain, small: a
 * second worker has nothing to read in parallel), else at least enough
 * workers to keep a few directory reads in flight. */
int ctl_cold_start(int start, const struct ctl_cold_evidence *ev);

#endif
