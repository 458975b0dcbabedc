// SPDX-License-Identifier: GPL-3.0-or-later
/* Directory nodes and the bounded cache of their open file descriptors.
 *
 * A node exists for every directory that has been found but not yet removed:
 * its name (relative to the parent), its identity (dev, ino) recorded when it
 * was opened, and a count of unfinished work below it. Files never get a node.
 *
 * File descriptors are a budget, not a given: a chain of a million nested
 * directories cannot keep a million fds open. The cache keeps at most BUDGET
 * directory fds; unpinned ones are closed least-recently-used first. A closed
 * directory is re-opened only through fds we trust, and verified:
 *   - from a child we hold open: openat(child, "..") must have the parent's
 *     recorded (dev, ino); this is the O(1) way back up a deep chain;
 *   - otherwise from the nearest open ancestor, walking down by name with
 *     O_NOFOLLOW and checking (dev, ino) at every step.
 * A mismatch means someone moved directories under us: the caller reports it
 * and never deletes through an unverified fd.
 */
#ifndef ADAPTRM_DIRNODE_H
#define ADAPTRM_DIRNODE_H

#include "engine/rawsys.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum {
	DN_ANCHOR = 1u << 0,	 /* the operand's parent: a borrowed fd, never closed */
	DN_FAILED = 1u << 1,	 /* something below could not be removed: skip rmdir */
	DN_SORT = 1u << 2,	 /* read this directory in inode-sorted batches */
	DN_SHARE = 1u << 3,	 /* its filesystem gains from several unlinkers per directory */
	DN_REVERSE = 1u << 4,	 /* unlink each getdents64 batch last-first */
	DN_SIZE_BOUND = 1u << 5, /* st_size bounds the entries (ext2/3/4) */
	DN_SHARE_ASK = 1u << 6,	 /* no one measured sharing on this filesystem type:
				 * the controller tries it (knobs.trial_plans) */
	DN_SORT_ASK = 1u << 7,	 /* no one measured inode order on this filesystem type:
				 * the controller tries it (knobs.trial_plans) */
	/* Scale-out (engine/steal.c): directories that move between engines. */
	DN_PATH = 1u << 16,    /* a thief's way down to what it was given: opened
				* and verified, never scanned or removed here */
	DN_STOLEN = 1u << 17,  /* given by another engine: scanned here, but its
				* donor removes it (struct stolen) */
	DN_DONATED = 1u << 18, /* given away: removed here once the thief is done */
	/* A filesystem policy bit (bits 8-15 hold the dirent size below). */
	DN_COLD_ASK = 1u << 19, /* last-first here only while its reads do not go
				 * to a disk (scan.c, cold_check) */
	/* A directory cycle below (scan.c, cycle_found): GNU rm neither
	 * removes this directory nor reports it, and its parent still tries
	 * its rmdir (fts_skip_tree passes over the postorder visit). */
	DN_KEPT = 1u << 20,
	DN_NO_RESCAN = 1u << 21, /* its rmdir's ENOTEMPTY is a child kept: no second pass */
};
/* Bits 8-15 of flags: the fewest bytes of st_size one entry takes on its
 * filesystem (fsinfo_type_min_dirent), 0 where st_size bounds nothing. */
#define DN_DIRENT_SHIFT 8
#define DN_DIRENT_MASK (0xffu << DN_DIRENT_SHIFT)

struct dnode {
	struct dnode *parent;
	struct dnode *lru_prev, *lru_next; /* open and unpinned: in the LRU */
	_Atomic int refs;		   /* 1 for the scan + 1 per unfinished child dir */
	_Atomic unsigned flags;
	_Atomic uint32_t progress; /* entries removed in the current pass */
	int fd;			   /* -1 when closed; guarded by the cache lock */
	int pins;		   /* users of fd right now; guarded by the cache lock */
	uint32_t budget;	   /* entries its scans may still read: set at the first
				    * open from st_size, so that writers refilling it
				    * cannot keep it being read forever */
	dev_t dev;
	ino_t ino;
	uint16_t retries;
	uint16_t namelen;
	char name[];
};

struct fdcache {
	pthread_mutex_t lock;
	struct dnode lru;	  /* sentinel: lru.lru_next is most recent */
	unsigned budget;	  /* open fds allowed (pinned ones may exceed it) */
	unsigned open;		  /* fds currently open */
	_Atomic uint64_t reopens; /* directories re-opened after eviction */
	_Atomic uint64_t evictions;
};

struct dnode *dnode_new(struct dnode *parent, const char *name, size_t len);
/* The same, NULL if out of memory (a directory's error, not the run's end). */
struct dnode *dnode_try_new(struct dnode *parent, const char *name, size_t len);
/* Fill N (room for LEN + 1 name bytes) as dnode_new does, for a node that
 * lives inside a larger allocation. */
void dnode_init(struct dnode *n, struct dnode *parent, const char *name, size_t len);
void dnode_free(struct dnode *n);
void dnode_init_anchor(struct dnode *a, int fd);

void fdc_init(struct fdcache *c, unsigned budget);
void fdc_destroy(struct fdcache *c);

/* Pinned fd of N (AT_FDCWD for an anchor on the cwd), re-opened and verified
 * if it was evicted; -1 and *err on
 * failure (ESTALE: the path no longer leads to the recorded directory;
 * ENOMEM). */
int fdc_get(struct fdcache *c, struct dnode *n, int *err);
/* Pinned fd of PARENT for removing CHILD (a finished node), preferring the
 * cheap "..", verified, when the parent's fd was evicted. */
int fdc_get_parent(struct fdcache *c, struct dnode *child, int *err);
void fdc_put(struct fdcache *c, struct dnode *n);
/* N has just been opened by the caller as FD: record it, pinned. Returns
 * N's fd: FD, or the one another thread installed first (FD is closed). */
int fdc_install(struct fdcache *c, struct dnode *n, int fd);
/* N is finished: take its fd out of the cache; the caller closes it (-1:
 * it was not open). */
int fdc_take(struct fdcache *c, struct dnode *n);
/* N is finished: close its fd if open (after the cache lock is released). */
static inline void fdc_drop(struct fdcache *c, struct dnode *n)
{
	int fd = fdc_take(c, n);
	if (fd >= 0)
		sys_close(fd);
}
/* Out of fds: close one cached fd and retry; see fdc_openat. */
int fdc_openat_evicting(struct fdcache *c, int dirfd, const char *name, int flags);

/* openat() for directories that, on EMFILE, closes cached fds and retries.
 * -1 and errno on failure. Inline: the syscall belongs in the caller's loop
 * (user/engine/rawsys.h). */
static inline int fdc_openat(struct fdcache *c, int dirfd, const char *name, int flags)
{
	int fd = sys_openat(dirfd, name, flags);
	if (fd >= 0)
		return fd;
	if (fd == -EMFILE || fd == -ENFILE)
		return fdc_openat_evicting(c, dirfd, name, flags);
	errno = -fd;
	return -1;
}

#endif
