// SPDX-License-Identifier: GPL-3.0-or-later
/* What a traced thread was doing on CPU: a sampled kernel stack of function
 * names classified by the kernel work it was in (a table of kernel
 * functions), as a kernel engineer would name it. Pure: used by the --trace
 * report (trace/oncpu.c) and its folded stacks. */
#ifndef ADAPTRM_PROBES_CPUCLASS_H
#define ADAPTRM_PROBES_CPUCLASS_H

/* The order is the --trace JSON's category order (cpu_cat_id). */
enum cpu_cat {
	CPU_UNLINK,	/* the unlink and rmdir proper: vfs_unlink, do_unlinkat, ext4_unlink, ... */
	CPU_EVICT,	/* inode eviction, truncation and block/extent freeing */
	CPU_READDIR,	/* directory reading: iterate_dir, ext4_readdir, filldir64, ... */
	CPU_LOOKUP,	/* path lookup, open, stat and close */
	CPU_RECLAIM,	/* memory reclaim: shrink_node, try_to_free_mem_cgroup_pages, ... */
	CPU_PAGE_FAULT, /* page faults */
	CPU_OVERLAY,	/* overlayfs copy-up and whiteouts */
	CPU_FUSE,	/* FUSE requests */
	CPU_LOCK_SPIN,	/* spinning on a lock: queued spinlock slow path, optimistic spinning */
	CPU_JOURNAL, /* jbd2, ext4 journal handles, xfs log and transactions, btrfs transactions */
	CPU_ALLOC,   /* memory allocation and freeing: slab, page allocator, memcg charge */
	CPU_ENTRY,   /* syscall entry/exit and return-to-user work (task_work, tracing hooks) */
	CPU_IRQ,     /* interrupts and softirqs that hit the thread */
	CPU_OTHER,   /* kernel code the table does not know */
	CPU_USER,    /* user mode (no kernel stack) */
	CPU_COUNT
};
const char *cpu_cat_id(int cat);   /* "unlink", "evict", ... */
const char *cpu_cat_name(int cat); /* "unlink", "eviction/freeing", ... */

/* Classify a sampled on-CPU kernel stack of function names (innermost
 * first; "fn" or "fn+0xoff"). The precedence, from the strongest:
 *  1. an interrupt boundary (asm_sysvec_*, irq_exit_rcu, handle_softirqs,
 *     ...): what runs above it is the interrupt's, not the thread's
 *     syscall's;
 *  2. reclaim anywhere in the stack: work done because memory ran short,
 *     whichever syscall ran into it (and whatever it calls: eviction under
 *     shrink_slab is reclaim);
 *  3. lock spinning, page faults, overlayfs copy-up/whiteouts and FUSE
 *     anywhere, in that order: each is the reason for the frames above it
 *     (a fault's allocation is the fault's);
 *  4. then the first frame from the top that the table knows decides
 *     (an allocation inside an unlink is allocation; the unlink's own code
 *     is unlink);
 *  5. the syscall dispatch frames (do_syscall_64, entry_SYSCALL_64) decide
 *     only for the entry code itself: where the frames above them are
 *     unknown the sample is CPU_OTHER, not entry.
 * *SITE is the index of the deciding frame (the first frame for
 * CPU_OTHER), or -1 with no frames. No frames at all: CPU_OTHER. */
int cpu_classify(const char *const *frames, int n, int *site);

#endif
