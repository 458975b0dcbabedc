// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel constants that the probes need but that vmlinux.h cannot give:
 * they are #defines, and BTF keeps only types and enums; and a type it lacks
 * where the kernel has it in a module. Each names the kernel header it
 * comes from; all have had these values for as long as the
 * tracepoints the probes attach to have existed (contention_begin: 5.19). */
#ifndef ADAPTRM_KERNEL_DEFS_BPF_H
#define ADAPTRM_KERNEL_DEFS_BPF_H

/* include/uapi/asm-generic/errno-base.h */
#ifndef EEXIST
#define EEXIST 17
#endif
#ifndef EFAULT
#define EFAULT 14
#endif

/* include/linux/err.h: the largest errno a syscall returns as -errno */
#ifndef MAX_ERRNO
#define MAX_ERRNO 4095
#endif

/* include/uapi/linux/fcntl.h: unlinkat() flag, remove a directory */
#ifndef AT_REMOVEDIR
#define AT_REMOVEDIR 0x200
#endif

/* include/linux/sched.h: task_struct.flags of a kernel thread */
#ifndef PF_KTHREAD
#define PF_KTHREAD 0x00200000
#endif

/* include/linux/sched.h: task states, as sched_switch's prev_state gives them */
#ifndef TASK_RUNNING
#define TASK_RUNNING 0x00000000
#endif
#ifndef TASK_INTERRUPTIBLE
#define TASK_INTERRUPTIBLE 0x00000001 /* S */
#endif
#ifndef TASK_UNINTERRUPTIBLE
#define TASK_UNINTERRUPTIBLE 0x00000002 /* D */
#endif
#ifndef __TASK_STOPPED
#define __TASK_STOPPED 0x00000004 /* T: SIGSTOP, job control */
#endif
#ifndef __TASK_TRACED
#define __TASK_TRACED 0x00000008 /* t: stopped for a ptrace tracer */
#endif
#ifndef TASK_FROZEN
#define TASK_FROZEN 0x00008000 /* the freezer's (cgroup or system) */
#endif

/* fs/xfs/xfs_buf.h: a buffer's flags (xfs is a module on some kernels,
 * and arm64's vmlinux.h lacks the type); XBF_READ marks a read */
struct xfs_buf___adaptrm {
	unsigned int b_flags;
} __attribute__((preserve_access_index));
#ifndef XBF_READ
#define XBF_READ (1u << 0)
#endif

/* include/linux/blk_types.h: the low REQ_OP_BITS of a request's cmd_flags
 * hold its enum req_op (the values themselves come from BTF) */
#ifndef REQ_OP_BITS
#define REQ_OP_BITS 8
#endif
#ifndef REQ_OP_MASK
#define REQ_OP_MASK ((1U << REQ_OP_BITS) - 1)
#endif

/* include/linux/jbd2.h: the jbd2_run_stats tracepoint's statistics. Where
 * jbd2 is a module (Debian's arm64 kernel) the kernel's own BTF, and so
 * vmlinux.h, lacks the type: this flavour (CO-RE matches it by the name
 * before the triple underscore) finds the module's at load time. */
struct transaction_run_stats_s___adaptrm {
	unsigned long rs_wait;
	unsigned long rs_request_delay;
	unsigned long rs_running;
	unsigned long rs_locked;
	unsigned long rs_flushing;
	unsigned long rs_logging;
	__u32 rs_handle_count;
	__u32 rs_blocks;
} __attribute__((preserve_access_index));

#endif
