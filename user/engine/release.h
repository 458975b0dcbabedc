// SPDX-License-Identifier: GPL-3.0-or-later
/* The release protocol: children remove their parents
 * (docs/design.md#children-remove-their-parents). Whoever drops a
 * directory's last reference removes it and drops its parent's. Inline here
 * because most directories are removed at the end of their own scan, where
 * the rmdir stays an inline syscall (rawsys.h); engine_node_release is the
 * one out-of-line copy for every other caller. */
#ifndef ADAPTRM_ENGINE_RELEASE_H
#define ADAPTRM_ENGINE_RELEASE_H

#include "engine/dirnode.h"
#include "engine/engine_int.h"
#include "engine/rawsys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The operand's root is gone (or failed): wake the caller (release.c). */
void engine_operand_finished(struct engine *e);
/* Drop one reference of directory D, removing it (and its ancestors) if it
 * was the last (release.c). */
void engine_node_release(struct worker *w, struct dnode *d);

#define RELEASE_STEP static inline __attribute__((always_inline))

/* D is an anchor, a thief's way down or a directory given to this engine:
 * the operand ends, or the node goes back to its donor (steal.c). The node
 * whose count to drop next, or NULL. */
RELEASE_STEP struct dnode *release_special(struct worker *w, struct dnode *d)
{
	if (d == &w->e->anchor) {
		engine_operand_finished(w->e);
		return NULL;
	}
	return engine_remote_finished(w, d);
}

/* D cannot be removed, or need not be said to be: D failed (something
 * inside stays) or the engine halts, and its ancestors stay too, silently;
 * or a cycle below kept it, and its parent's rmdir says why the parent
 * stays, as GNU's does (the operand fails). True if so. */
RELEASE_STEP bool release_left_behind(struct engine *e, struct dnode *d)
{
	struct dnode *p = d->parent;
	unsigned flags = atomic_load(&d->flags);
	if ((flags & DN_FAILED) || atomic_load_explicit(&e->halt, memory_order_relaxed)) {
		fdc_drop(&e->fdc, d);
		engine_mark_failed(p);
		return true;
	}
	if (flags & DN_KEPT) {
		fdc_drop(&e->fdc, d);
		atomic_fetch_or(&p->flags, (atomic_load(&p->flags) & DN_ANCHOR) ?
						   (unsigned)DN_FAILED :
						   (unsigned)DN_NO_RESCAN);
		return true;
	}
	return false;
}

/* D stays with error ERR: said, and its parent fails, unless someone else
 * removed it first. */
RELEASE_STEP void release_error(struct worker *w, struct dnode *d, int err)
{
	if (!engine_gone(w->e, err)) {
		engine_msg_cannot_remove(w, d, NULL, err);
		engine_mark_failed(d->parent);
	}
}

/* D's rmdir failed with ERR because D was refilled while it was emptied: it
 * is scanned again while each pass makes progress, and within the entries
 * D could hold when first opened (its budget: a writer that keeps filling
 * it gets GNU's "Directory not empty"). */
RELEASE_STEP bool refilled(const struct engine *e, struct dnode *d, int err)
{
	return (err == ENOTEMPTY || err == EEXIST) && atomic_load(&d->progress) > 0 &&
	       d->retries < e->cfg.max_retries && d->budget > 0 &&
	       !(atomic_load(&d->flags) & DN_NO_RESCAN);
}

/* Queue D to be scanned again, holding its one reference; false if out of
 * memory (its count back to none). */
RELEASE_STEP bool rescan(struct engine *e, struct dnode *d)
{
	d->retries++;
	atomic_store(&d->progress, 0);
	atomic_store(&d->refs, 1);
	if (engine_push_tasks(e, &(struct subdir){ .n = d }, 1))
		return true;
	atomic_store(&d->refs, 0);
	return false;
}

/* Remove D, empty, through its parent's fd. True if D is done with
 * (removed, or failed and said), false if it was queued to be scanned
 * again and lives on. */
RELEASE_STEP bool rmdir_or_rescan(struct worker *w, struct dnode *d)
{
	struct engine *e = w->e;
	struct dnode *p = d->parent;
	int err = 0;
	int pfd = fdc_get_parent(&e->fdc, d, &err);
	fdc_drop(&e->fdc, d);
	if (pfd == -1) {
		/* the parent is no longer reachable by name: D went with it */
		release_error(w, d, err);
		return true;
	}
	stat_add(&w->st->syscalls, 1);
	engine_pace(e);
	int r = sys_unlinkat(pfd, d->name, AT_REMOVEDIR);
	if (r == 0) {
		stat_add(&w->st->dirs, 1);
		atomic_fetch_add_explicit(&p->progress, 1, memory_order_relaxed);
		if (e->cfg.verbose)
			engine_msg_removed(w, d, NULL, true);
	} else if (refilled(e, d, -r)) {
		/* unpinned first: once the rescan is out, another worker may
		 * finish D and P with it */
		fdc_put(&e->fdc, p);
		if (rescan(e, d))
			return false;
		release_error(w, d, ENOMEM); /* the rescan could not be queued */
		return true;
	} else {
		release_error(w, d, -r);
	}
	fdc_put(&e->fdc, p);
	return true;
}

/* D's last reference was dropped: D is empty, or failed. The node whose
 * count to drop next (the parent, once D is removed or left behind), or
 * NULL where the walk ends: the operand is done, D is rescanned, or the
 * engine stops and abandons what is left (the process is about to exit). */
RELEASE_STEP struct dnode *release_one(struct worker *w, struct dnode *d)
{
	if (atomic_load(&d->flags) & (DN_ANCHOR | DN_PATH | DN_STOLEN))
		return release_special(w, d);
	if (w->e->stop)
		return NULL;
	struct dnode *p = d->parent;
	if (!release_left_behind(w->e, d) && !rmdir_or_rescan(w, d))
		return NULL;
	dnode_free(d);
	return p;
}

/* Drop one reference of D; whoever drops the last removes D and walks up,
 * iteratively, so deep trees need no stack. Inlined at the end of scan_dir,
 * where most directories are removed; the other callers share one
 * out-of-line copy (engine_node_release). */
RELEASE_STEP void node_release_inline(struct worker *w, struct dnode *d)
{
	while (d && atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) == 1)
		d = release_one(w, d);
}

#endif
