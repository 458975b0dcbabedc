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

/* The operand's root is gone (or failed): wake the caller (release.c). */
void engine_operand_finished(struct engine *e);
/* Drop one reference of directory D, removing it (and its ancestors) if it
 * was the last (release.c). */
void engine_node_release(struct worker *w, struct dnode *d);

/* Drop one reference of D. If it was the last, D is empty (or failed): remove
 * it and continue with its parent, iteratively, so deep trees need no stack.
 * Inlined at the end of scan_dir, where most directories are removed; the
 * other callers share one out-of-line copy (engine_node_release). */
static inline __attribute__((always_inline)) void node_release_inline(struct worker *w,
								      struct dnode *d)
{
	struct engine *e = w->e;
	while (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) == 1) {
		struct dnode *p = d->parent;
		if (atomic_load(&d->flags) & (DN_ANCHOR | DN_PATH | DN_STOLEN)) {
			if (d == &e->anchor) {
				engine_operand_finished(e);
				return;
			}
			/* a thief's: its donor removes it (steal.c) */
			if (!(d = engine_remote_finished(w, d)))
				return;
			continue;
		}
		if (e->stop)
			return; /* abandoned: the process is about to exit */
		unsigned flags = atomic_load(&d->flags);
		if ((flags & DN_FAILED) || atomic_load_explicit(&e->halt, memory_order_relaxed)) {
			/* something inside stays: the ancestors stay too, silently */
			fdc_drop(&e->fdc, d);
			engine_mark_failed(p);
			dnode_free(d);
			d = p;
			continue;
		}
		if (flags & DN_KEPT) {
			/* a cycle below: D stays without a message and P's rmdir
			 * says why P stays, as GNU's does; the operand fails */
			fdc_drop(&e->fdc, d);
			atomic_fetch_or(&p->flags, (atomic_load(&p->flags) & DN_ANCHOR) ?
							   (unsigned)DN_FAILED :
							   (unsigned)DN_NO_RESCAN);
			dnode_free(d);
			d = p;
			continue;
		}
		int err = 0;
		int pfd = fdc_get_parent(&e->fdc, d, &err);
		fdc_drop(&e->fdc, d);
		if (pfd == -1) {
			/* the parent is no longer reachable by name: D went with it */
			if (!engine_gone(e, err)) {
				engine_msg_cannot_remove(w, d, NULL, err);
				engine_mark_failed(p);
			}
			dnode_free(d);
			d = p;
			continue;
		}
		stat_add(&w->st->syscalls, 1);
		engine_pace(e);
		int r = sys_unlinkat(pfd, d->name, AT_REMOVEDIR);
		if (r == 0) {
			stat_add(&w->st->dirs, 1);
			atomic_fetch_add_explicit(&p->progress, 1, memory_order_relaxed);
			if (e->cfg.verbose)
				engine_msg_removed(w, d, NULL, true);
		} else {
			err = -r;
			if ((err == ENOTEMPTY || err == EEXIST) && atomic_load(&d->progress) > 0 &&
			    d->retries < e->cfg.max_retries && d->budget > 0 &&
			    !(atomic_load(&d->flags) & DN_NO_RESCAN)) {
				/* Refilled while we deleted it. Scan again, but only
				 * while each pass makes progress and within the
				 * entries the directory could hold when first
				 * opened (its budget: a writer that keeps filling
				 * it gets GNU's "Directory not empty"). */
				d->retries++;
				atomic_store(&d->progress, 0);
				atomic_store(&d->refs, 1);
				/* unpinned first: once the rescan is out, another
				 * worker may finish D and P with it */
				fdc_put(&e->fdc, p);
				pfd = -1;
				if (engine_push_tasks(e, &(struct subdir){ .n = d }, 1))
					return;
				atomic_store(&d->refs, 0);
				err = ENOMEM; /* the rescan could not be queued */
			}
			if (!engine_gone(e, err)) {
				engine_msg_cannot_remove(w, d, NULL, err);
				engine_mark_failed(p);
			}
		}
		if (pfd != -1)
			fdc_put(&e->fdc, p);
		dnode_free(d);
		d = p;
	}
}

#endif
