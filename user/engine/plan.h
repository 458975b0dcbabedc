// SPDX-License-Identifier: GPL-3.0-or-later
/* One plan per directory: how its entries are read and removed, decided in
 * one place (plan.c) from its filesystem, the knobs, the cold check and the
 * controller's trials, so that the scanner (scan.c, scan_dir) only
 * follows it. The plan is decided as the directory opens and looked at
 * again before each read: a knob may change while a directory is read. */
#ifndef ADAPTRM_ENGINE_PLAN_H
#define ADAPTRM_ENGINE_PLAN_H

#include "engine/engine_int.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dir_plan {
	unsigned fs;	   /* the directory's policy bits (DN_SORT...): its filesystem's */
	uint64_t dir_size; /* st_size as opened: whether a sort can pay */
	/* The order. */
	bool sort;	     /* batches past the threshold go in inode order */
	bool reverse;	     /* last-first: each read's entries, each batch */
	bool subdirs_by_ino; /* subdirectories are pushed in inode order */
	/* The batch. */
	bool batch;	     /* entries gather in a batch (flush_batch), not unlinked as read */
	bool whole;	     /* batches are read whole before they go (sorted, or not) */
	unsigned batch_size; /* entries gathered at most before a batch goes */
	unsigned threshold;  /* a batch is sorted only above this many entries */
	/* The workers. */
	bool shareable;	  /* sharing pays here (by type, or the controller asks) */
	unsigned share_k; /* workers that may unlink in it at once (1: the reader only) */
	/* The clock. */
	bool timed;	 /* each read is timed, for the reader's slice */
	bool watch_cold; /* each read is timed for the cold check */
	/* What the reads and unlinks are counted under (enum plan_id). */
	uint8_t share_id, order_id;
	bool past; /* past the threshold: reads count under order_id */
};

/* The plan of directory D, open as FD with DIR_SIZE bytes, as it opens. */
void plan_start(struct engine *e, struct dnode *d, int fd, uint64_t dir_size, struct dir_plan *p);
/* Before a read, with NREAD entries read so far and BIG whether the last
 * read could fill a split: what the knobs change from here on. True if
 * how entries are batched changed (the batch begun goes first, as begun). */
bool plan_next(struct engine *e, struct dir_plan *p, uint64_t nread, bool big);
/* The tree turned out cold (the cold check): the order again. */
void plan_cold(struct engine *e, struct dir_plan *p);
/* Whether directory D goes last-first (a slice of it another worker runs). */
bool plan_reverse(struct engine *e, const struct dnode *d);

/* Count a read under P's plans (BIG: it could fill a split). */
static inline void plan_count_read(struct worker_stats *st, const struct dir_plan *p, bool big)
{
	if (big && p->share_id != PLAN_SETTLED)
		stat_add(&st->plan[p->share_id].reads, 1);
	if (p->past)
		stat_add(&st->plan[p->order_id].reads, 1);
}

/* The plan the unlinks of a read count under, unlinked as read. */
static inline uint8_t plan_read_id(const struct dir_plan *p)
{
	return p->past && !p->batch ? p->order_id : PLAN_SETTLED;
}

/* The plan the unlinks of a batch of N entries count under: a sorted or
 * whole batch only above the threshold, where it differs from a read. */
static inline uint8_t plan_batch_id(const struct dir_plan *p, size_t n)
{
	if (p->order_id == PLAN_SETTLED)
		return PLAN_SETTLED;
	if (p->sort)
		return n > p->threshold ? PLAN_SORTED : PLAN_SETTLED;
	if (p->whole && n > p->threshold)
		return PLAN_BATCHED;
	return p->past ? PLAN_READDIR : PLAN_SETTLED;
}

#endif
