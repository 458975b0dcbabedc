/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kernel subsystem that owns a kernel function, by a table of function
 * families (prefixes and names): each filesystem, the VFS, block, memory,
 * locking, audit, notification, security modules, the freezer, signals,
 * cgroups, BPF, networking, IPC, RCU, timers... Every frame belongs to
 * one, so that no wait or CPU sample is left to "a site the table does
 * not know". Each subsystem has its words, a command that confirms it and a
 * generic remedy; the verdict's catalogue refines them where it knows more.
 * Pure: used by the --trace verdict and its tests. */
#ifndef ADAPTRM_PROBES_SUBSYS_H
#define ADAPTRM_PROBES_SUBSYS_H
#include <stdbool.h>

/* The order is the --trace JSON's subsystem order (subsys_id). */
enum subsys {
	SS_VFS,	      /* the VFS: lookups, unlink, dentries, inodes */
	SS_FS,	      /* a filesystem (named by subsys_fs) */
	SS_BLOCK,     /* the block layer and its drivers */
	SS_MEMORY,    /* memory: allocation, reclaim, page cache */
	SS_LOCKING,   /* lock primitives whose caller the stack does not show */
	SS_SCHED,     /* the scheduler itself */
	SS_AUDIT,     /* syscall auditing: audit records, the backlog, kauditd */
	SS_NOTIFY,    /* file notification: fsnotify, inotify, fanotify */
	SS_SECURITY,  /* security modules: the LSM hooks, SELinux, AppArmor, IMA */
	SS_FREEZE,    /* a frozen filesystem: sb_start_write, mnt_want_write */
	SS_SIGNAL,    /* signals, job control and ptrace stops */
	SS_CGROUP,    /* cgroups and the cgroup freezer */
	SS_BPF,	      /* BPF programs (tracers', including this one) */
	SS_NET,	      /* networking and sockets */
	SS_IPC,	      /* pipes, UNIX sockets, futexes, SysV IPC */
	SS_RCU,	      /* RCU grace periods */
	SS_WORKQUEUE, /* flushing work items */
	SS_TIMER,     /* timers and sleeps */
	SS_TRACING,   /* perf events and ftrace */
	SS_KERNEL,    /* the rest of the kernel: named by the first frame */
	SS_COUNT
};

const char *subsys_id(int ss);	    /* "audit", ... */
const char *subsys_name(int ss);    /* "syscall auditing", ... */
const char *subsys_confirm(int ss); /* a command that confirms it */
const char *subsys_remedy(int ss);  /* what removes it, in general */
/* A subsystem of the delete's own machinery (VFS, filesystems, block,
 * memory, locking, scheduler): the catalogue explains those; any other is
 * something the delete meets on its way. */
bool subsys_own(int ss);

/* The subsystem of one frame ("fn" or "fn+0xoff"); SS_KERNEL when no
 * family matches. For SS_FS, *FS (may be NULL) gets the filesystem's name
 * ("ext4"). */
int subsys_of_frame(const char *frame, const char **fs);

/* The subsystem a kernel stack (innermost first) belongs to: a frame of a
 * subsystem that is not the delete's own wins wherever it is (an audit
 * record formatted on the way out of unlinkat is audit's, a frozen
 * filesystem's wait in mnt_want_write the freezer's); else the first frame
 * past the scheduler, lock and wait primitives decides. *AT: the deciding
 * frame's index (-1 with no frames). */
int subsys_of_stack(const char *const *frames, int n, int *at, const char **fs);

#endif
