// SPDX-License-Identifier: GPL-3.0-or-later
/* Layout shared by bpf/probes.bpf.c and user/probes/probes.c: the counters the BPF
 * programs add to and user space reads. Plain fixed-width integers only, so
 * the same header compiles for -target bpf and for the host. Every map that
 * user space reads per interval is a per-CPU array: BPF adds without atomics,
 * user space sums the CPUs after one batch lookup. */
#ifndef ADAPTRM_PROBES_SHARED_H
#define ADAPTRM_PROBES_SHARED_H

/* The target architecture's system call numbers (__NR_*): macros only, from
 * the compiler's own headers for user space and from the target's
 * (Makefile: CLANG_BPF_SYS_INCLUDES) for -target bpf. */
#include <asm/unistd.h>

/* log2 latency buckets, DTrace quantize style: bucket 0 holds the value 0,
 * bucket i >= 1 holds [2^(i-1), 2^i); the last bucket also takes everything
 * larger (2^38 ns = 275 s). */
#define PROBE_HIST_BUCKETS 40
#define PROBE_NR_SYSCALLS 512	  /* system call numbers; larger ones are not counted */
#define PROBE_LOCK_TYPES 64	  /* contention_begin flags & 0x3f */
#define PROBE_MAX_TGIDS 4096	  /* traced processes at once */
#define PROBE_MAX_THREADS 16384	  /* per-thread in-flight state */
#define PROBE_TGID_FILTER 65536	  /* bytes of the traced-tgid filter (a power of 2) */
#define PROBE_MAX_DEVS 64	  /* block devices and filesystems with events */
#define PROBE_MAX_WAIT_SITES 4096 /* (stack, state, context) off-CPU sites */
/* btrfs_tree_lock fires on every tree lock taken: a take shorter than this
 * was not a wait, since nearly all uncontended takes are far shorter. */
#define PROBE_BTRFS_CONTENDED_NS 10000

/* contention_begin flags (include/trace/events/lock.h) */
#define PROBE_LCB_F_SPIN 0x01
#define PROBE_LCB_F_READ 0x02
#define PROBE_LCB_F_WRITE 0x04
#define PROBE_LCB_F_RT 0x08
#define PROBE_LCB_F_PERCPU 0x10
#define PROBE_LCB_F_MUTEX 0x20

/* System call numbers the probes treat specially */
#define PROBE_NR_UNLINKAT __NR_unlinkat
#define PROBE_NR_GETDENTS64 __NR_getdents64

struct probe_hist {
	unsigned long long count; /* samples */
	unsigned long long total; /* sum of the samples (ns, bytes, ...) */
	unsigned long long b[PROBE_HIST_BUCKETS];
};

/* One syscall: strace -c's columns plus the latency histogram (ns). */
struct probe_sc_stat {
	unsigned long long errors; /* returned -4095..-1 */
	struct probe_hist lat;	   /* lat.count = calls, lat.total = ns */
};

/* One lock type (flags & 0x3f): contended waits and their time (ns). */
struct probe_lock_stat {
	struct probe_hist wait;
};

/* The filesystems' kernel threads and work items a traced thread may wait
 * to run behind (the deletes' deferred work): by kthread name, and for a
 * kworker by its work item's workqueue name. */
enum probe_fs_worker {
	PROBE_FSW_XFS_INODEGC, /* xfs-inodegc/ work items */
	PROBE_FSW_XFS,	       /* xfsaild/, other xfs- work items (log, CIL, buffers) */
	PROBE_FSW_EXT4,	       /* jbd2/ (the journal's commit thread), ext4 work items */
	PROBE_FSW_BTRFS,       /* btrfs- threads and work items (transaction, delayed refs) */
	PROBE_FSW_WRITEBACK,   /* writeback work items (the flusher) */
	/* ksoftirqd/ and the RCU threads: RCU callbacks free unlinked inodes
	 * and dentries, but softirqs are also any other interrupt's work */
	PROBE_FSW_SOFTIRQ,
	PROBE_FSW_COUNT,
};

enum probe_offcpu_kind {
	PROBE_OFFCPU_BLOCKED,	/* switched out in D (TASK_UNINTERRUPTIBLE) */
	PROBE_OFFCPU_SLEEPING,	/* switched out in S (TASK_INTERRUPTIBLE) */
	PROBE_OFFCPU_PREEMPTED, /* switched out runnable: waited for a CPU */
	PROBE_OFFCPU_KINDS,
};

/* Where a traced thread was when it went off CPU (probe_wait_key.ctx) */
#define PROBE_WAIT_IN_SYSCALL 0x1 /* in a syscall that is not a wait (busy time) */
#define PROBE_WAIT_IN_LOCK 0x2	  /* between contention_begin and contention_end */
#define PROBE_WAIT_SAMPLED 0x4	  /* (BPF only) this S wait gets a stack */
#define PROBE_WAIT_IN_WAIT_SC 0x8 /* (BPF only) in a syscall that waits (wait_sc[]) */
#define PROBE_WAIT_FOR_CHILD 0x20 /* (BPF only) in wait4 or waitid */
#define PROBE_WAIT_STOPPED 0x40	  /* (BPF only) stopped by a tracer or a signal */
/* A helper's wait: its process removed nothing (yet), or it waited for
 * another traced process while another process unlinked. */
#define PROBE_WAIT_HELPER 0x10
/* S waits inside busy syscalls: a stack for a thread's first, then 1 in
 * PROBE_S_SAMPLE; the others are keyed by this stack id and user space
 * spreads their time over the sampled sites (probes_wait_sites) */
#define PROBE_S_SAMPLE 16
#define PROBE_STACK_UNSAMPLED (-2)

/* The states a switched-out thread may be in besides D, S and runnable:
 * each counted on its own (probe_misc.state_ns), so that no switch out is
 * lost. */
enum probe_xstate {
	PROBE_XSTATE_SIGNAL_STOP, /* T: stopped by a signal (SIGSTOP, job control) */
	PROBE_XSTATE_TRACER_STOP, /* t: stopped for a ptrace tracer */
	PROBE_XSTATE_FROZEN,	  /* the cgroup freezer or the system freezer */
	PROBE_XSTATE_OTHER,	  /* parked, dead, new, anything else */
	PROBE_XSTATE_COUNT,
};

/* Who ended a traced thread's off-CPU wait, seen in its own context at
 * sched_waking (the waker is current there), or who held the CPU it waited
 * for (PROBE_WAKE_HELD). */
enum probe_waker_class {
	PROBE_WAKER_NONE,      /* no wake-up seen (the wait began before tracing) */
	PROBE_WAKER_TRACED,    /* a traced thread */
	PROBE_WAKER_PROCESS,   /* another process, by name and pid */
	PROBE_WAKER_KTHREAD,   /* a kernel thread, by name */
	PROBE_WAKER_WORKQUEUE, /* a kworker, by its work item's workqueue */
	PROBE_WAKER_HARDIRQ,   /* an interrupt handler: a device, or a timer */
	PROBE_WAKER_SOFTIRQ,   /* a softirq: timers, block completions, RCU, network */
	PROBE_WAKER_IDLE,      /* (PROBE_WAKE_HELD) the CPU was idle */
	PROBE_WAKER_CLASSES,
};
/* probe_waker_key.state: the off-CPU kinds, the extra states from
 * PROBE_WAKE_XSTATE, and the run-queue wait charged to the CPU's holder */
#define PROBE_WAKE_XSTATE 4 /* + enum probe_xstate */
#define PROBE_WAKE_HELD 16
#define PROBE_COMM_LEN 16
struct probe_waker_id {
	unsigned int tgid; /* 0 for interrupts */
	unsigned char cls; /* enum probe_waker_class */
	unsigned char pad[3];
	char comm[PROBE_COMM_LEN]; /* task name; a kworker's workqueue */
};
/* The wakers hash: a wait's site (stack id as the wait sites'), its state,
 * its waker, and the waker's own waker (one step up the chain: a daemon
 * woken by the disk's interrupt). */
struct probe_waker_key {
	int stackid;
	unsigned char state;
	unsigned char pad[3];
	struct probe_waker_id who, via;
};
struct probe_waker_val {
	unsigned long long count, ns;
};
#define PROBE_MAX_WAKERS 4096

/* The start of bpf/probes.bpf.c's per-thread off-CPU entry (the
 * offcpu_start hash's value), which user space reads for the waits still
 * open at a read. */
struct probe_offcpu_head {
	unsigned long long ts; /* switched out (0: on CPU) */
	unsigned long long wake_ts;
};

/* Everything else, one per-CPU value. */
struct probe_misc {
	struct probe_hist unlinkat_dir;	  /* unlinkat(AT_REMOVEDIR) latency, ns (also in sc[263]) */
	struct probe_hist getdents_bytes; /* bytes returned per getdents64 call */
	struct probe_hist offcpu[PROBE_OFFCPU_KINDS]; /* off-CPU time, ns */
	/* waiting to run, and the part of the off-CPU time inside busy syscalls
	 * outside lock waits (the verdict's partition; the blocked part is in
	 * the wait sites) */
	struct probe_hist runq;		    /* sched_wakeup -> on CPU, ns */
	unsigned long long busy_runq_ns;    /* wakeup -> on CPU, in busy syscalls */
	unsigned long long busy_preempt_ns; /* preempted -> on CPU, in busy syscalls */
	unsigned long long runq_traced_ns;  /* run-queue and preempted time that ended when
						 * another traced thread left the CPU */
	unsigned long long wait_sites_lost, wait_sites_lost_ns; /* wait-site hash full */
	/* fsync, fdatasync, sync, syncfs, sync_file_range by untraced processes */
	unsigned long long other_syncs;
	/* of those, sync(2) and syncs whose file was not found: every
	 * filesystem's (the others count by device, other_syncs there) */
	unsigned long long other_global_syncs;
	/* On-CPU time of the traced threads, switch in -> switch out (or exit),
	 * cut at every sys_enter and sys_exit so that each piece goes to the
	 * context it ran in: oncpu_ns is all of it, the two syscall parts are
	 * inside busy and inside waiting syscalls (wait_sc[]), the rest ran
	 * outside syscalls (user mode, and the page faults and interrupts
	 * taken there). Together with offcpu[] it is the threads' whole time
	 * (probes_thread_ns). */
	unsigned long long oncpu_ns;
	unsigned long long oncpu_syscall_ns;
	unsigned long long oncpu_wait_syscall_ns;
	/* On-CPU samples of traced threads (PROBE_G_ONCPU): all of them, those
	 * taken in user mode, and those whose kernel stack was not kept (stack
	 * map full, or a hash collision) */
	unsigned long long cpu_samples, cpu_samples_user, cpu_samples_nostack;
	/* ext4 (traced threads) */
	struct probe_hist ext4_unlink;	 /* ext4_unlink_enter -> exit, ns */
	struct probe_hist ext4_ino_jump; /* |inode - the thread's previous unlinked inode| */
	unsigned long long ext4_free_calls, ext4_freed_blocks;
	/* xfs (traced threads) */
	struct probe_hist xfs_log_grant; /* xfs_log_grant_sleep -> wake, ns */
	unsigned long long xfs_inodegc_throttles;
	/* xfs's inodegc work items (any process's unlinks) and their time */
	unsigned long long xfs_inodegc_worker_ns, xfs_inodegc_works;
	/* inodes the traced threads queued for inodegc (xfs_inode_set_need_
	 * inactive) */
	unsigned long long xfs_inactive_queued;
	/* the traced threads' run-queue and preempted time during which a
	 * filesystem's kernel thread or work item ran on the CPU they waited
	 * for, by enum probe_fs_worker */
	unsigned long long runq_behind_fsw_ns[PROBE_FSW_COUNT];
	/* xfs_buf_lock -> _lock_done waits, the part of them their buffer was
	 * being read (its holder waiting for the device), and how many */
	unsigned long long xfs_buf_lock_ns, xfs_buf_lock_read_ns, xfs_buf_lock_reads;
	/* idle off-CPU time (no wait site) of processes that removed nothing
	 * (yet): a pipeline's or rsync's helpers waiting on pipes, make's
	 * wait4, less their run-queue waits */
	unsigned long long helper_idle_ns;
	/* idle time of removers in wait4 or waitid once another process has
	 * removed too: a wrapper (sh -c, a script) waiting for its deleting
	 * child, whose own threads hold that time */
	unsigned long long child_wait_ns;
	/* stopped for a ptrace tracer (strace, gdb) or by SIGSTOP: how long,
	 * less the run-queue waits after, and how often */
	unsigned long long stopped_ns, stops;
	unsigned long long tracer_oncpu_ns; /* on CPU in a ptrace tracer (in oncpu_ns) */
	/* off CPU in each state besides D, S and runnable, less the run-queue
	 * waits after (those are in runq), and how often; the stops are also
	 * in stopped_ns */
	unsigned long long state_ns[PROBE_XSTATE_COUNT], state_count[PROBE_XSTATE_COUNT];
	unsigned long long state_rq_ns; /* run-queue waits after those states (in runq) */
	/* off CPU from the start of tracing to a thread's first switch in: a
	 * thread that was already waiting (-p), in a state not seen begin */
	unsigned long long pretrace_ns, pretrace_count;
	/* (user space, at the end: probes_add_open_waits) the waits still
	 * open then: live threads off CPU since their last switch out */
	unsigned long long open_ns;
	unsigned long long wakers_lost; /* wakers hash full */
	/* btrfs (traced threads) */
	struct probe_hist btrfs_tree_lock; /* extent-buffer lock waits >= PROBE_BTRFS_CONTENDED_NS */
	struct probe_hist btrfs_reserve;   /* space-reservation ticket waits, ns */
	unsigned long long devs_lost;	   /* events of devices past PROBE_MAX_DEVS */
	/* bookkeeping */
	long long threads_delta;       /* forks minus exits of traced threads */
	long long tgids_delta;	       /* new minus exited traced processes */
	unsigned long long forks;      /* threads and processes created by traced ones */
	unsigned long long lost;       /* per-thread state map full */
	unsigned long long tgids_lost; /* processes not followed: PROBE_MAX_TGIDS live at once */
};

/* Top contended callers: key and value of the callers hash (read at the end). */
struct probe_caller_key {
	int stackid;	    /* kernel stack in the stacks map, or -1 */
	unsigned int flags; /* lock type */
};
#define PROBE_STACK_DEPTH 24 /* frames kept per contended stack */
/* The stacks map's size: its ids are below it. The kernel files a stack in
 * the bucket its hash picks and, without BPF_F_REUSE_STACKID (which would
 * overwrite the frames other keys point to), refuses a second stack whose
 * hash picks a taken bucket with -EEXIST, for as long as the map lives: a
 * site hit thousands of times would lose its stack for the whole run. Such
 * a stack goes to the spill map, its id offset by PROBE_STACK_SPILL. */
#define PROBE_STACKS 4096
#define PROBE_SPILL_STACKS 1024
#define PROBE_STACK_SPILL 0x10000
struct probe_caller_val {
	unsigned long long count, total_ns;
};

/* Off-CPU waits of traced threads: key and value of the wait_sites hash
 * (read at the end). */
struct probe_wait_key {
	int stackid;	     /* kernel stack in the stacks map, or < 0 */
	unsigned char state; /* PROBE_OFFCPU_BLOCKED or _SLEEPING */
	unsigned char ctx;   /* PROBE_WAIT_IN_* */
	unsigned short pad;
};
struct probe_wait_val {
	unsigned long long count;
	unsigned long long total_ns;   /* off CPU: switch out -> switch in */
	unsigned long long blocked_ns; /* switch out -> wakeup (the rest waited to run) */
};

/* On-CPU samples (PROBE_G_ONCPU): key and value of the cpu_samples hash
 * (read at the end). A sample in user mode has no kernel stack. */
#define PROBE_CPU_USER 0x1	 /* the sample hit user mode */
#define PROBE_CPU_IN_SYSCALL 0x2 /* inside a busy syscall */
#define PROBE_CPU_IN_WAIT_SC 0x4 /* inside a syscall that waits (wait_sc[]) */
#define PROBE_CPU_STACK_DEPTH 48 /* frames kept per sampled stack */
#define PROBE_CPU_STACKS 4096	 /* distinct sampled kernel stacks */
#define PROBE_CPU_SAMPLE_HZ 199	 /* per CPU: off the 100/250/1000 Hz ticks */
struct probe_cpu_key {
	int stackid;	     /* kernel stack in the cpu_stacks map, or < 0 */
	unsigned short nr;   /* the syscall in flight (with PROBE_CPU_IN_*) */
	unsigned char flags; /* PROBE_CPU_* */
	unsigned char pad;
};

/* Filesystem and block events of one device (kernel dev_t encoding: major
 * << 20 | minor): the value of the devs hash, keyed by that dev_t. */
/* Who issued a block request, as block_io_start (the request's creation,
 * in the task that queued its first bio) saw it: a traced thread; a kernel
 * thread writing no regular file's data (a journal commit, metadata
 * writeback, a discard: its filesystem's own work); anyone else (other
 * processes, and file data written back for them). Which of these are the
 * delete's depends on the device, which user space decides. */
enum { PROBE_BIO_TRACED, PROBE_BIO_FS, PROBE_BIO_OTHER, PROBE_BIO_CLASSES };
struct probe_bio {
	unsigned long long bytes, discards, discard_bytes;
	struct probe_hist lat; /* block_rq_issue -> complete, ns */
};

struct probe_dev_stat {
	unsigned long long unlinks; /* ext4 and xfs unlinks by traced threads */
	unsigned long long ext4_discards, ext4_discard_blocks;
	/* jbd2 commits of this device's journal; times in jiffies */
	unsigned long long jbd2_commits, jbd2_wait, jbd2_request_delay, jbd2_running, jbd2_locked,
		jbd2_flushing, jbd2_logging, jbd2_handles, jbd2_blocks;
	unsigned long long other_syncs;	 /* untraced processes' syncs of files here */
	unsigned long long freed_chunks; /* ext4 frees by traced threads (discard matching) */
	/* block requests issued to this device, by who issued them (the probes
	 * count these) */
	struct probe_bio bio_by[PROBE_BIO_CLASSES];
	/* the same requests split by trace/blockio.c: the delete's (bio_*)
	 * and the device's other load (other_*) */
	unsigned long long bio_bytes, bio_discards, bio_discard_bytes;
	struct probe_hist bio_lat; /* block_rq_issue -> complete, ns */
	unsigned long long other_bytes, other_discards, other_discard_bytes;
	struct probe_hist other_lat;
};

#endif
