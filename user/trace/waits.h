/* Where the traced threads waited, and on which devices the delete ran:
 * the off-CPU wait sites named and classified by cause (a table of kernel
 * functions), lock callers classified the same way, and the scope of the
 * filesystem and block events (the devices of the unlinked inodes and of
 * the operands, from /proc/self/mountinfo). */
#ifndef ADAPTRM_TRACE_WAITS_H
#define ADAPTRM_TRACE_WAITS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probes;
struct trace_result;

/* What a wait was for. The order is the JSON's cause ids (trace_cause_id). */
enum trace_cause {
	TC_DIR_LOCK,	/* the parent directory's i_rwsem (unlink, rmdir, rename, create) */
	TC_LOCK,	/* other sleeping locks, by type */
	TC_META_READ,	/* inode-table, directory-block, bitmap and b-tree reads */
	TC_JOURNAL,	/* jbd2 commit, checkpoint, journal space */
	TC_XFS_INODEGC, /* xfs inode GC flush (the inactivation throttle) */
	TC_XFS_LOG,	/* xfs log grant (log space) and log forces */
	TC_BTRFS,	/* btrfs tree locks, space reservation tickets */
	TC_DISCARD,	/* discard requests */
	TC_WRITEBACK,	/* waiting for pages or inodes under writeback */
	TC_RECLAIM,	/* direct page reclaim and compaction */
	TC_PAGE_FAULT,	/* page faults */
	TC_BLOCK_IO,	/* other block I/O waits (submit_bio_wait, tags, throttling) */
	TC_PEER,	/* pipes and sockets: waiting for another process */
	TC_OTHER,	/* named by its first non-generic frame */
	TC_COUNT
};
const char *trace_cause_id(int cause);	 /* "metadata_read", ... */
const char *trace_cause_name(int cause); /* "inode-table/directory reads", ... */

/* Classify a kernel stack of function names (innermost first; "fn" or
 * "fn+0xoff"): skip scheduler and generic wait frames (schedule,
 * io_schedule, __wait_on_bit, rwsem_down_*, down, mutex_lock, ...), then the
 * first frame from the top that the cause table knows decides. *SITE is the
 * index of the first non-generic frame (the site's name, as perf names a
 * lock caller), *LOCK the lock type seen in the skipped frames ("rwsem:W",
 * "semaphore", ... or NULL). *SPACE: a journal wait for space (checkpoint)
 * rather than for a commit. */
int trace_classify(const char *const *frames, int n, int *site, const char **lock, bool *space);

/* A contended lock's caller (first frame outside lock code, "fn+0xoff")
 * of lock type FLAGS: TC_DIR_LOCK, TC_BTRFS or TC_LOCK. */
int trace_caller_cause(const char *caller, unsigned flags);

/* One wait site of the report: the sites with the same name, cause and
 * state added together. */
struct trace_wait_site {
	char site[96];	   /* "__ext4_get_inode_loc+0x1b2" */
	char stack[6][64]; /* the non-generic frames below it, innermost first */
	int nstack;
	const char *lock; /* lock type for lock causes, else NULL */
	int cause;	  /* enum trace_cause */
	unsigned state;	  /* PROBE_OFFCPU_BLOCKED or _SLEEPING */
	uint64_t count, total_ns, blocked_ns;
};

/* A device with filesystem or block events while tracing. */
struct trace_dev {
	uint32_t dev;  /* kernel dev_t */
	bool traced;   /* a filesystem the traced threads deleted on */
	bool discard;  /* mounted with online discard */
	char name[96]; /* "loop0 (ext4 on /mnt/x)" */
};

#define TRACE_MAX_SITES 12 /* wait sites in the report */

/* Fill R's wait sites, the verdict's wait-cause totals and the device scope
 * from the probes, after the final read (r->total) and the callers. */
void trace_collect_waits(struct probes *p, struct trace_result *r);
void trace_free_waits(struct trace_result *r);

#endif
