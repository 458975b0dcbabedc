// SPDX-License-Identifier: GPL-3.0-or-later
/* What an off-CPU wait was for: a kernel stack of function names classified
 * by cause (a table of kernel functions), and a contended lock's caller the
 * same way. Pure: used by the --trace report (trace/waits.c) and, live, by
 * the controller's signals (probes_wait_causes). */
#ifndef ADAPTRM_PROBES_WAITCLASS_H
#define ADAPTRM_PROBES_WAITCLASS_H
#include <stdbool.h>

/* The order is the --trace JSON's cause ids (wait_cause_id). */
enum wait_cause {
	WAIT_DIR_LOCK,	  /* the parent directory's i_rwsem (unlink, rmdir, rename, create) */
	WAIT_LOCK,	  /* other sleeping locks, by type */
	WAIT_META_READ,	  /* inode-table, directory-block, bitmap and b-tree reads */
	WAIT_JOURNAL,	  /* jbd2 commit, checkpoint, journal space */
	WAIT_XFS_INODEGC, /* xfs inode GC flush (the inactivation throttle) */
	WAIT_XFS_LOG,	  /* xfs log grant (log space) and log forces */
	WAIT_BTRFS,	  /* btrfs tree locks, space reservation tickets */
	WAIT_DISCARD,	  /* discard requests */
	WAIT_WRITEBACK,	  /* waiting for pages or inodes under writeback */
	WAIT_RECLAIM,	  /* direct page reclaim and compaction */
	WAIT_PAGE_FAULT,  /* page faults */
	WAIT_BLOCK_IO,	  /* other block I/O waits (submit_bio_wait, tags, throttling) */
	WAIT_PEER,	  /* pipes and sockets: waiting for another process */
	WAIT_FUSE,	  /* a FUSE request waiting for its daemon's answer */
	WAIT_OTHER,	  /* named by its first non-generic frame */
	WAIT_COUNT
};
const char *wait_cause_id(int cause);	/* "metadata_read", ... */
const char *wait_cause_name(int cause); /* "inode-table/directory reads", ... */

/* Classify a kernel stack of function names (innermost first; "fn" or
 * "fn+0xoff"): skip scheduler and generic wait frames (schedule,
 * io_schedule, __wait_on_bit, rwsem_down_*, down, mutex_lock, ...), then the
 * first frame from the top that the cause table knows decides. *SITE is the
 * index of the first non-generic frame (the site's name, as perf names a
 * lock caller), *LOCK the lock type seen in the skipped frames ("rwsem:W",
 * "semaphore", ... or NULL). *SPACE: a journal wait for space (checkpoint)
 * rather than for a commit. */
int wait_classify(const char *const *frames, int n, int *site, const char **lock, bool *space);

/* What kind of wait of CAUSE the stack shows, where the cause has kinds a
 * kernel engineer names apart (NULL otherwise): for metadata reads
 * "inode_table", "directory_block", "bitmap", "extent_tree" or "btree"; for
 * btrfs "transaction", "delayed_items", "tree_lock" or "space"; for
 * writeback "throttle" (balance_dirty_pages, writeback throttling). */
const char *wait_detail(const char *const *frames, int n, int cause);

/* A contended lock's caller (first frame outside lock code, "fn+0xoff")
 * of lock type FLAGS: WAIT_DIR_LOCK, WAIT_BTRFS or WAIT_LOCK. */
int wait_caller_cause(const char *caller, unsigned flags);

/* The stack (as for wait_classify) went through block-layer throttling
 * (blk-throttle, rq-qos, writeback throttling) or waited for a device tag:
 * a wait that more requests in flight cannot shorten. */
bool wait_stack_throttled(const char *const *frames, int n);

#endif
