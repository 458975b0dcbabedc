// SPDX-License-Identifier: GPL-3.0-or-later
/* One plan per directory (see plan.h): the only place that reads the
 * filesystem's policy bits, the order and sharing knobs and the
 * controller's trial plans. */
#include "engine/plan.h"

#include "engine/dirnode.h"
#include "engine/engine_int.h"
#include "engine/fsinfo.h"

#include <stdatomic.h>

#define POLICY_BITS \
	(DN_SORT | DN_SORT_ASK | DN_SHARE | DN_SHARE_ASK | DN_REVERSE | DN_COLD_ASK | \
	 DN_SIZE_BOUND | DN_DIRENT_MASK)

static unsigned knob(const _Atomic unsigned *k)
{
	return atomic_load_explicit(k, memory_order_relaxed);
}

static int knob_int(const _Atomic int *k)
{
	return atomic_load_explicit(k, memory_order_relaxed);
}

void engine_use_plan(struct engine *e, enum plan_id plan, bool on)
{
	if (on)
		atomic_fetch_or(&e->knobs.trial_plans, 1u << plan);
	else
		atomic_fetch_and(&e->knobs.trial_plans, ~(1u << plan));
}

/* The controller's trial asks for PLAN where the filesystem type leaves
 * it open. */
static bool trial_asks(struct engine *e, enum plan_id plan)
{
	return knob(&e->knobs.trial_plans) & (1u << plan);
}

/* The policy bits of directory D, by fstatfs only where the device changes
 * (the root, mount points); below that they are inherited. */
static void fs_policy(struct dnode *d, int fd)
{
	struct dnode *p = d->parent;
	unsigned flags;
	if (!(atomic_load(&p->flags) & (DN_ANCHOR | DN_PATH)) && p->dev == d->dev) {
		flags = atomic_load(&p->flags) & POLICY_BITS;
	} else {
		uint64_t type = fsinfo_type(fd);
		flags = (fsinfo_type_sort_pays(type) ? DN_SORT : 0) |
			(fsinfo_type_sort_known(type) ? 0 : DN_SORT_ASK) |
			(fsinfo_type_share_pays(type) ? DN_SHARE : 0) |
			(fsinfo_type_share_known(type) ? 0 : DN_SHARE_ASK) |
			(fsinfo_type_reverse_pays(type) ? DN_REVERSE : 0) |
			(fsinfo_type_order_by_cache(type) ? DN_COLD_ASK : 0) |
			(fsinfo_type_dirsize_bounds(type) ? DN_SIZE_BOUND : 0) |
			(fsinfo_type_min_dirent(type) << DN_DIRENT_SHIFT);
	}
	atomic_fetch_or(&d->flags, flags);
}

/* Whether a directory with policy FS and DIR_SIZE bytes is read in sorted
 * batches. A batch is sorted only past the threshold, and reading a
 * directory whole before unlinking costs where it cannot get there
 * (docs/design.md#inode-order). */
static bool want_sort(struct engine *e, unsigned fs, uint64_t dir_size)
{
	int policy = knob_int(&e->knobs.sort_policy);
	if (policy == SORT_NEVER)
		return false;
	bool by_type = (fs & DN_SORT) || ((fs & DN_SORT_ASK) && trial_asks(e, PLAN_SORTED));
	if (policy != SORT_ALWAYS && !by_type)
		return false;
	return !(fs & DN_SIZE_BOUND) || dir_size / FSINFO_MIN_DIRENT > knob(&e->knobs.sort_threshold);
}

/* Last-first, by the knob or the filesystem type, but not once the tree is
 * found cold where the type's order depends on the cache: last-first walks
 * the disk backwards against every readahead below. */
static bool want_reverse(struct engine *e, unsigned fs)
{
	int policy = knob_int(&e->knobs.reverse_policy);
	if (policy != SORT_AUTO)
		return policy == SORT_ALWAYS;
	return (fs & DN_REVERSE) &&
	       !((fs & DN_COLD_ASK) && atomic_load_explicit(&e->cold, memory_order_relaxed));
}

/* Whether subdirectories are pushed in inode order: where the filesystem's
 * inode order pays and is ascending (ext2/3/4 by type, or --sort=always),
 * every directory, however small. Cold, each subdirectory's inode is a
 * read; in inode order they come from the same inode-table blocks
 * (docs/design.md#inode-order). */
static bool want_subdir_order(struct engine *e, unsigned fs)
{
	int policy = knob_int(&e->knobs.sort_policy);
	if (policy == SORT_NEVER || want_reverse(e, fs))
		return false;
	return policy == SORT_ALWAYS || (fs & DN_SORT);
}

/* Sharing pays where the filesystem type gains, or where nobody knows and
 * the controller's trial asks for it. */
static bool shares(struct engine *e, unsigned fs)
{
	return (fs & DN_SHARE) || ((fs & DN_SHARE_ASK) && trial_asks(e, PLAN_SHARED));
}

bool plan_reverse(struct engine *e, const struct dnode *d)
{
	return want_reverse(e, atomic_load(&d->flags));
}

static void decide_order(struct engine *e, struct dir_plan *p)
{
	p->reverse = want_reverse(e, p->fs);
	p->subdirs_by_ino = want_subdir_order(e, p->fs);
}

void plan_start(struct engine *e, struct dnode *d, int fd, uint64_t dir_size, struct dir_plan *p)
{
	fs_policy(d, fd);
	*p = (struct dir_plan){
		.fs = atomic_load(&d->flags) & POLICY_BITS,
		.dir_size = dir_size,
		.batch_size = knob(&e->knobs.sort_batch),
		.threshold = knob(&e->knobs.sort_threshold),
		.share_k = 1,
	};
	p->sort = want_sort(e, p->fs, dir_size);
	p->whole = p->sort;
	if (p->fs & DN_SORT_ASK)
		p->order_id = p->sort ? PLAN_SORTED : PLAN_READDIR;
	p->watch_cold = p->fs & DN_COLD_ASK;
	decide_order(e, p);
}

/* Where inode order is untried, the controller's trial switches it
 * mid-directory: sorted batches, whole batches in readdir order (its
 * base), or entries as read. True if that changed. */
static bool next_order(struct engine *e, struct dir_plan *p, uint64_t nread)
{
	if (!(p->fs & DN_SORT_ASK))
		return false;
	bool sort = want_sort(e, p->fs, p->dir_size);
	bool whole = sort || trial_asks(e, PLAN_BATCHED);
	bool changed = sort != p->sort || whole != p->whole;
	p->sort = sort;
	p->whole = whole;
	p->past = nread > p->threshold;
	p->order_id = sort ? PLAN_SORTED : whole ? PLAN_BATCHED : PLAN_READDIR;
	return changed;
}

/* Workers that may share the directory: the knob, or under DIR_SHARE_AUTO
 * all active workers where sharing pays, else 1. Big reads count as shared
 * where sharing pays, as unshared where it is untried and left to AUTO. */
static void next_share(struct engine *e, struct dir_plan *p)
{
	unsigned k = knob(&e->knobs.dir_share);
	p->shareable = shares(e, p->fs);
	p->share_id = p->shareable				    ? PLAN_SHARED :
		      (p->fs & DN_SHARE_ASK) && k == DIR_SHARE_AUTO ? PLAN_UNSHARED :
								      PLAN_SETTLED;
	if (k == DIR_SHARE_AUTO)
		k = p->shareable ? (unsigned)knob_int(&e->knobs.active_threads) : 1;
	p->share_k = k;
}

bool plan_next(struct engine *e, struct dir_plan *p, uint64_t nread, bool big)
{
	bool changed = next_order(e, p, nread);
	next_share(e, p);
	/* other ranks that found no work take slices where sharing pays */
	bool remote = p->shareable &&
		      atomic_load_explicit(&e->remote_hunger, memory_order_relaxed) > 0;
	p->batch = p->whole || p->share_k > 1 || remote;
	/* Only reads of a big directory are timed: the rest never split, and
	 * a small directory's two reads need no clock. */
	p->timed = p->batch && big;
	if (p->watch_cold && atomic_load_explicit(&e->cold, memory_order_relaxed))
		plan_cold(e, p); /* another worker found it out */
	return changed;
}

void plan_cold(struct engine *e, struct dir_plan *p)
{
	p->watch_cold = false;
	decide_order(e, p);
}
