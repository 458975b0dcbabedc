// SPDX-License-Identifier: GPL-3.0-or-later
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
#include "probes/waitclass.h"

struct probes;
struct trace_result;

/* What a wait was for: the classification lives in probes/waitclass.h (the
 * controller reads it live too); these names are the report's. */
enum trace_cause {
	TC_DIR_LOCK = WAIT_DIR_LOCK,
	TC_LOCK = WAIT_LOCK,
	TC_META_READ = WAIT_META_READ,
	TC_JOURNAL = WAIT_JOURNAL,
	TC_XFS_INODEGC = WAIT_XFS_INODEGC,
	TC_XFS_LOG = WAIT_XFS_LOG,
	TC_BTRFS = WAIT_BTRFS,
	TC_DISCARD = WAIT_DISCARD,
	TC_WRITEBACK = WAIT_WRITEBACK,
	TC_RECLAIM = WAIT_RECLAIM,
	TC_PAGE_FAULT = WAIT_PAGE_FAULT,
	TC_BLOCK_IO = WAIT_BLOCK_IO,
	TC_PEER = WAIT_PEER,
	TC_FUSE = WAIT_FUSE,
	TC_OTHER = WAIT_OTHER,
	TC_COUNT = WAIT_COUNT
};
const char *trace_cause_id(int cause);	 /* wait_cause_id */
const char *trace_cause_name(int cause); /* wait_cause_name */
/* wait_classify and wait_caller_cause (probes/waitclass.h). */
int trace_classify(const char *const *frames, int n, int *site, const char **lock, bool *space);
int trace_caller_cause(const char *caller, unsigned flags);

/* One wait site of the report: the stacks with the same site name, cause,
 * kind and state added together, each stack classified on its own; the
 * frames shown are the heaviest stack's. */
struct trace_wait_site {
	char site[96];	   /* "__ext4_get_inode_loc+0x1b2" */
	char stack[6][64]; /* the non-generic frames below it, innermost first */
	int nstack;
	const char *lock;   /* lock type for lock causes, else NULL */
	const char *detail; /* wait_detail's kind, or NULL */
	int cause;	    /* enum trace_cause */
	unsigned state;	    /* PROBE_OFFCPU_BLOCKED or _SLEEPING */
	unsigned ctx;	    /* PROBE_WAIT_IN_* of the heaviest stack */
	uint64_t count, total_ns, blocked_ns;
	uint64_t in_syscall_ns; /* blocked inside busy syscalls, lock waits too */
	uint64_t heaviest_ns;	/* total_ns of the stack shown */
	bool helper;		/* of processes that removed nothing (PROBE_WAIT_HELPER) */
	const char *fs;		/* the filesystem its frames name ("ext4"), or NULL */
	bool other_fs;		/* FS is on none of the delete's devices */
	int subsys;		/* enum subsys of its frames (probes/subsys.h), -1: no stack */
};

/* A device with filesystem or block events while tracing. */
struct trace_dev {
	uint32_t dev;  /* kernel dev_t */
	bool traced;   /* a filesystem the traced threads deleted on */
	bool discard;  /* mounted with online discard */
	bool dirsync;  /* mounted sync or dirsync */
	char name[96]; /* "loop0 (ext4 on /mnt/x)" */
};

#define TRACE_MAX_SITES 12 /* wait sites in the report */

/* Fill R's wait sites, the verdict's wait-cause totals and the device scope
 * from the probes, after the final read (r->total) and the callers. */
/* Whether a filesystem of type FS (mountinfo's name: "xfs") holds the
 * delete: one of R's traced devices is FS's, or none was found. */
bool trace_delete_on(const struct trace_result *r, const char *fs);

void trace_collect_waits(struct probes *p, struct trace_result *r);
void trace_free_waits(struct trace_result *r);

#endif
