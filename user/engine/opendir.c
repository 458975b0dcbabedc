// SPDX-License-Identifier: GPL-3.0-or-later
/* Opening a task's directory (see opendir.h). */
#include "engine/opendir.h"
#include "engine/dirnode.h"
#include "engine/rawsys.h"
#include "engine/release.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define DIR_OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)

/* Directory D cannot be scanned (ERR): report it; it fails and is released.
 * Gone (its parent was removed or moved out first) it is no failure, and
 * its release finds that its parent is gone too. */
static __attribute__((noinline)) void dir_failed(struct worker *w, struct dnode *d, int err)
{
	if (!engine_gone(w->e, err)) {
		engine_msg_cannot_remove(w, d, NULL, err);
		engine_mark_failed(d);
	}
	engine_node_release(w, d);
}

/* Opening directory D (in its parent PFD, held) failed with ERR. Remove it
 * another way where GNU rm would, then finish D without an rmdir. */
static __attribute__((noinline)) void open_failed(struct worker *w, struct dnode *d, int pfd, int err)
{
	struct engine *e = w->e;
	bool gone = false;
	if (err == ENOTDIR || err == ELOOP) {
		/* no longer a directory (replaced under us): remove what is there */
		stat_add(&w->st->syscalls, 1);
		gone = unlinkat(pfd, d->name, 0) == 0;
		if (gone) {
			stat_add(&w->st->files, 1);
			if (e->cfg.verbose)
				engine_msg_removed(w, d, NULL, false);
		}
	} else if (err == EACCES || err == EPERM) {
		/* unreadable: it can still go if it is empty (GNU does the same) */
		stat_add(&w->st->syscalls, 1);
		gone = unlinkat(pfd, d->name, AT_REMOVEDIR) == 0;
		if (gone) {
			stat_add(&w->st->dirs, 1);
			if (e->cfg.verbose)
				engine_msg_removed(w, d, NULL, true);
		}
	}
	if (gone) {
		atomic_fetch_add(&d->parent->progress, 1);
	} else if (!engine_gone(e, err)) {
		engine_msg_cannot_remove(w, d, NULL, err);
		engine_mark_failed(d->parent);
	}
	fdc_put(&e->fdc, d->parent);
	struct dnode *p = d->parent;
	dnode_free(d);
	engine_node_release(w, p);
}

/* -x: directory D is on another device; it stays, and so do its ancestors. */
static __attribute__((noinline)) void skip_other_device(struct worker *w, struct dnode *d)
{
	engine_msg_path(w, &w->path, d, NULL);
	sb_reset(&w->msg);
	quote_append(&w->msg, w->path.buf, w->path.len);
	warn_errno(0, "skipping %s, since it's on a different device", sb_str(&w->msg));
	stat_add(&w->st->errors, 1);
	engine_mark_failed(d);
	engine_node_release(w, d);
}

/* D (a subdirectory, open as FD) is one of its own ancestors: the mount on
 * it is a bind of a directory above it. Only a mount closes such a loop, so
 * the ancestors are compared only where D's inode is not the one its parent
 * (PFD) listed and the mount changes there. */
static bool in_cycle(struct worker *w, struct dnode *d, int fd, int pfd, const struct stat *st)
{
	struct dnode *p = d->parent;
	if (st->st_ino == d->ino && st->st_dev == p->dev)
		return false;
	struct statx a, b;
	stat_add(&w->st->syscalls, 2);
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &a) == 0 &&
	    statx(pfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &b) == 0 &&
	    (a.stx_mask & b.stx_mask & STATX_MNT_ID) && a.stx_mnt_id == b.stx_mnt_id)
		return false;
	for (; !(atomic_load(&p->flags) & DN_ANCHOR); p = p->parent)
		if (p->dev == st->st_dev && p->ino == st->st_ino)
			return true;
	return false;
}

/* D is part of a directory cycle: GNU rm's warning; neither entered nor
 * removed, and its parent is kept (DN_KEPT). */
static __attribute__((noinline)) void cycle_found(struct worker *w, struct dnode *d)
{
	struct dnode *p = d->parent;
	engine_msg_cycle(w, d);
	atomic_fetch_or(&p->flags, DN_KEPT);
	dnode_free(d);
	engine_node_release(w, p);
}

int engine_open_task_dir(struct worker *w, struct dnode *d, struct stat *st)
{
	struct engine *e = w->e;
	int err = 0;
	int pfd = fdc_get(&e->fdc, d->parent, &err);
	if (pfd == -1) {
		dir_failed(w, d, err);
		return -1;
	}
	stat_add(&w->st->syscalls, 1);
	int fd = fdc_openat(&e->fdc, pfd, d->name, DIR_OPEN_FLAGS);
	if (fd < 0) {
		open_failed(w, d, pfd, errno);
		return -1;
	}
	stat_add(&w->st->syscalls, 1);
	int r = sys_fstat(fd, st);
	bool is_root = atomic_load(&d->parent->flags) & DN_ANCHOR;
	bool stolen = atomic_load(&d->flags) & DN_STOLEN;
	bool cycle = r == 0 && !is_root && !stolen && in_cycle(w, d, fd, pfd, st);
	fdc_put(&e->fdc, d->parent);

	if (r < 0) {
		sys_close(fd);
		dir_failed(w, d, -r);
		return -1;
	}
	if ((is_root || stolen) && (st->st_dev != d->dev || st->st_ino != d->ino)) {
		/* the operand was swapped between lstat and open, or what a
		 * donor saw is not what this engine finds on its way down */
		close(fd);
		dir_failed(w, d, ESTALE);
		return -1;
	}
	if (cycle) {
		close(fd);
		cycle_found(w, d);
		return -1;
	}
	/* The parent is on the root's device, or it was skipped: by induction
	 * this is GNU's "not on the root's device" (and works for a thief). */
	if (e->cfg.one_file_system && !is_root && st->st_dev != d->parent->dev) {
		close(fd);
		skip_other_device(w, d);
		return -1;
	}
	d->dev = st->st_dev;
	d->ino = st->st_ino;
	fdc_install(&e->fdc, d, fd);
	return fd;
}
