// SPDX-License-Identifier: GPL-2.0-or-later
/* adaptrm's probes: where a set of processes (and all their descendants)
 * spend their time. Tracepoints only (tp_btf, or raw_tp when BTF-typed
 * attach fails): fentry needs the kernel's BPF trampolines, which some
 * kernels or their security policy refuse at load, and kprobes need
 * CONFIG_KPROBES, which some kernels leave out; tracepoints come wherever
 * BPF tracing does, and their arguments change less between versions.
 * Classic tracepoints need tracefs mounted. Every handler asks "is the current tgid traced?"
 * first, so untraced processes pay one hash lookup.
 *
 * Each tracepoint has two programs with one body: btf_NAME (tp_btf/NAME) and
 * raw_NAME (raw_tp/NAME); user space keeps one flavour per group. Bodies read
 * the arguments from the u64 context array and kernel memory with
 * BPF_CORE_READ, which works for both flavours. One perf_event program
 * (cpu_sample) takes the on-CPU samples. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bits.bpf.h"
#include "kernel_defs.bpf.h"
#include "maps.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* The two programs of tracepoint NAME, btf_NAME (tp_btf) and raw_NAME
 * (raw_tp), both returning BODY, an expression of the context array ctx. */
#define TP_BOTH(name, body) \
	SEC("tp_btf/" #name) int btf_##name(__u64 *ctx) \
	{ \
		return body; \
	} \
	SEC("raw_tp/" #name) int raw_##name(__u64 *ctx) \
	{ \
		return body; \
	}

const volatile bool want_callers = true;
/* Syscalls that wait for something else (wait4, futex, poll, ...): set by
 * user space from the same list as the report's busy time, so that off-CPU
 * time inside them is not counted as the deleter's. */
const volatile __u8 wait_sc[PROBE_NR_SYSCALLS];

/* Live traced threads and their peak, in .bss so that user space reads them
 * without a syscall. User space adds the threads that exist at attach time;
 * the peak update is racy (no fetch-and-add results without -mcpu=v3) and
 * may miss a concurrent maximum by one. */
long long live_threads;
long long peak_threads;
/* The traced threads' lifetimes while traced, apart from the accounting of
 * their states: the sums of their starts and of their ends since life_t0
 * (set by user space, which adds the threads it found at attach). Whatever
 * the states miss shows as the difference. */
__u64 life_t0, life_births, life_deaths;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* The syscall in flight, in task-local storage: a pointer off the task,
 * not a hash lookup on every entry and exit (the cost that --trace adds to
 * each syscall of the traced command). Freed with the task. */
struct sc_start {
	__u64 ts;
	__u32 nr;
	__u16 rmdir;
	__u8 marks; /* the TGID_* flags this thread has set on its process */
	__u8 pad;
	__u64 last_ino; /* the inode this thread's last ext4 unlink removed */
};
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sc_start);
} sc_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROBE_NR_SYSCALLS);
	__type(key, __u32);
	__type(value, struct probe_sc_stat);
} sc_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROBE_LOCK_TYPES);
	__type(key, __u32);
	__type(value, struct probe_lock_stat);
} lock_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct probe_misc);
} misc SEC(".maps");

/* In-flight lock waits of one thread: a sleeping lock may be waited for
 * while its internal spinlock spins, so two slots. */
struct lock_wait {
	__u64 ts, lock;
	__u32 flags;
	__s32 stackid;
};
struct lock_slots {
	struct lock_wait sleep, spin;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct lock_slots);
} lock_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PROBE_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROBE_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* The stacks refused by `stacks` for a bucket another stack holds. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PROBE_SPILL_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROBE_STACK_DEPTH * sizeof(__u64));
} spill_stacks SEC(".maps");

/* The current kernel stack's id for the lock callers and the wait sites:
 * in `stacks`, else (its bucket taken) in `spill_stacks` plus
 * PROBE_STACK_SPILL; negative if neither keeps it. */
static __always_inline int wait_stackid(void *ctx)
{
	int id = bpf_get_stackid(ctx, &stacks, 0);

	if (id == -EEXIST) {
		id = bpf_get_stackid(ctx, &spill_stacks, 0);
		if (id >= 0)
			id += PROBE_STACK_SPILL;
	}
	return id;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct probe_caller_key);
	__type(value, struct probe_caller_val);
} callers SEC(".maps");

/* The size of the arrays by enum probe_fs_worker, a power of two: an index
 * masked to it needs no bounds check. */
#define FSW_SLOTS 8
_Static_assert(PROBE_FSW_COUNT <= FSW_SLOTS, "FSW_SLOTS too small");

/* A traced thread off CPU: since when, why, and since when runnable. It
 * starts as struct probe_offcpu_head, which user space reads. */
struct offcpu {
	__u64 ts;      /* switched out (0: on CPU) */
	__u64 wake_ts; /* sched_wakeup after ts (0: not yet) */
	__s32 stackid; /* where it blocked (D, or S in a busy syscall) */
	__u8 kind;     /* enum probe_offcpu_kind, or OFFCPU_OTHER */
	__u8 ctx;      /* PROBE_WAIT_IN_* */
	__u16 nsleep;  /* S waits in busy syscalls so far (stack sampling) */
	/* the CPU the thread waits to run on (where it was preempted, or
	 * woken onto) and that CPU's filesystem workers' time then */
	__u32 rq_cpu;
	__u8 xstate; /* enum probe_xstate, for kind OFFCPU_OTHER */
	__u64 fsw0[FSW_SLOTS];
	/* who woke it, that one's own waker, and who held the CPU it then
	 * waited for (wakers.bpf.h) */
	struct probe_waker_id who, via, holder;
};
#define OFFCPU_OTHER PROBE_OFFCPU_KINDS /* dead, parked, new: not counted */

/* Each CPU's time running the filesystems' kernel threads and work items
 * so far (any process's), by enum probe_fs_worker, and which of them runs
 * there now: a traced thread waiting to run on a CPU waits behind the part
 * that ran there meanwhile. An array, not per-CPU, as a thread may resume
 * on another CPU than the one it waited for. */
#define FSW_CPUS 1024
struct fsw_cpu {
	__u64 ns[FSW_SLOTS];
	__u64 since;   /* the running one's, since */
	__u32 running; /* enum probe_fs_worker + 1 (0: none) */
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FSW_CPUS);
	__type(key, __u32);
	__type(value, struct fsw_cpu);
} fsw_cpus SEC(".maps");

/* CPU's time behind each filesystem worker up to NOW, into OUT. */
static __always_inline void fsw_read(__u32 cpu, __u64 now, __u64 out[FSW_SLOTS])
{
	struct fsw_cpu *f = bpf_map_lookup_elem(&fsw_cpus, &cpu);

	for (int i = 0; i < PROBE_FSW_COUNT; i++)
		out[i] = f ? f->ns[i] : 0;
	if (f && f->running && f->running <= PROBE_FSW_COUNT && now > f->since)
		out[(f->running - 1) & (FSW_SLOTS - 1)] += now - f->since;
}

/* This CPU runs RUNNING (enum probe_fs_worker + 1, 0: none) from NOW. */
static __always_inline void fsw_switch(__u32 running, __u64 now)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct fsw_cpu *f = bpf_map_lookup_elem(&fsw_cpus, &cpu);

	if (!f)
		return;
	if (f->running && now > f->since)
		f->ns[(f->running - 1) & (FSW_SLOTS - 1)] += now - f->since;
	f->running = running;
	f->since = now;
}

static __always_inline bool starts(const char *s, const char *prefix, int n)
{
	for (int i = 0; i < n; i++)
		if (s[i] != prefix[i])
			return false;
	return true;
}

/* A workqueue's name to its filesystem worker class (+ 1, 0: none). */
static __always_inline __u32 fsw_of_wq(const char *n)
{
	if (starts(n, "xfs-inodegc", 11))
		return PROBE_FSW_XFS_INODEGC + 1;
	if (starts(n, "xfs", 3))
		return PROBE_FSW_XFS + 1;
	if (starts(n, "ext4", 4) || starts(n, "jbd2", 4))
		return PROBE_FSW_EXT4 + 1;
	if (starts(n, "btrfs", 5))
		return PROBE_FSW_BTRFS + 1;
	if (starts(n, "writeback", 9))
		return PROBE_FSW_WRITEBACK + 1;
	return 0;
}

/* The work item kworker T runs now, by its workqueue's name: a kthread's
 * worker_private is its struct kthread, whose data is the kworker's
 * struct worker (kernel/kthread.c, kernel/workqueue.c). */
static __always_inline __u32 fsw_of_worker(struct task_struct *t)
{
	struct kthread *k;
	struct worker *w;
	struct pool_workqueue *pwq;
	struct workqueue_struct *wq;
	char name[16] = {};

	if (!bpf_core_field_exists(t->worker_private))
		return 0;
	k = BPF_CORE_READ(t, worker_private);
	w = k ? BPF_CORE_READ(k, data) : NULL;
	pwq = w ? BPF_CORE_READ(w, current_pwq) : NULL;
	wq = pwq ? BPF_CORE_READ(pwq, wq) : NULL;
	if (!wq || bpf_probe_read_kernel(name, sizeof name - 1, &wq->name))
		return 0;
	return fsw_of_wq(name);
}

/* Task T's filesystem worker class (+ 1, 0: none), by its name for a
 * filesystem's own kernel thread, by its work item for a kworker. */
static __always_inline __u32 fsw_of_task(struct task_struct *t)
{
	char comm[16];

	if (!(BPF_CORE_READ(t, flags) & PF_KTHREAD))
		return 0;
	if (bpf_probe_read_kernel(comm, sizeof comm, &t->comm))
		return 0;
	if (starts(comm, "kworker/", 8))
		return fsw_of_worker(t);
	if (starts(comm, "jbd2/", 5))
		return PROBE_FSW_EXT4 + 1;
	if (starts(comm, "xfsaild/", 8))
		return PROBE_FSW_XFS + 1;
	if (starts(comm, "btrfs-", 6))
		return PROBE_FSW_BTRFS + 1;
	if (starts(comm, "ksoftirqd/", 10) || starts(comm, "rcu", 3))
		return PROBE_FSW_SOFTIRQ + 1;
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_WAIT_SITES);
	__type(key, struct probe_wait_key);
	__type(value, struct probe_wait_val);
} wait_sites SEC(".maps");

/* Which traced thread runs on this CPU, and since when it has been
 * accounted: set at switch in, moved on at every sys_enter and sys_exit,
 * cleared at switch out and exit. Per CPU, not per thread, because the
 * thread switching in is not current in sched_switch (no task storage of
 * its own without a trusted pointer, which raw_tp lacks), and a running
 * thread cannot leave its CPU without a switch out. */
struct oncpu_slot {
	__u64 since;
	__u32 tid;
	__u32 pad;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oncpu_slot);
} oncpu_slot SEC(".maps");

/* On-CPU samples: their kernel stacks apart from the wait sites' (deeper,
 * for flame graphs down to the syscall entry; and a profile of thousands
 * of stacks must not crowd the waits out). */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PROBE_CPU_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROBE_CPU_STACK_DEPTH * sizeof(__u64));
} cpu_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_CPU_STACKS);
	__type(key, struct probe_cpu_key);
	__type(value, __u64);
} cpu_samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct probe_dev_stat);
} devs SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct offcpu);
} offcpu_start SEC(".maps");

/* Per-thread start times of filesystem waits, keyed by tid and kind. */
enum { FS_EXT4_UNLINK = 1, FS_XFS_GRANT = 2, FS_XFS_BUF_LOCK = 3, FS_XFS_BUF_READS = 4 };
struct fs_key {
	__u32 tid, kind;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_THREADS);
	__type(key, struct fs_key);
	__type(value, __u64);
} fs_start SEC(".maps");

/* A block request in flight, by its address: who created it (PROBE_BIO_*,
 * from block_io_start) and when it was issued (0 until block_rq_issue). */
struct bio_rq {
	__u64 ts;
	__u32 cls;
	__u32 seen; /* set by block_io_start */
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct bio_rq);
} bio_start SEC(".maps");

/* A filter in front of the tgids hash: a byte per tgid modulo its size,
 * set (never cleared) before a tgid is added. Every syscall, context
 * switch and wakeup of every untraced process asks traced(): most are
 * answered by one load instead of a hash lookup. */
__u8 tgid_maybe[PROBE_TGID_FILTER];

static __always_inline bool traced(__u32 tgid)
{
	if (!tgid_maybe[tgid & (PROBE_TGID_FILTER - 1)])
		return false;
	return bpf_map_lookup_elem(&tgids, &tgid) != NULL;
}

/* The tgids value: TGID_REMOVES once the process has removed an entry
 * (unlink, unlinkat, rmdir) or read a directory with entries besides "."
 * and ".." (a remover lists before it removes, and its first reads are the
 * delete's); before that, its waits are a helper's. TGID_UNLINKED once it
 * has removed an entry itself. */
#define TGID_REMOVES 0x2
#define TGID_UNLINKED 0x4
#define DOT_DOTDOT_BYTES 48 /* getdents64's two records of "." and ".." */

/* Traced processes that have removed an entry themselves (a global: misc
 * is per CPU). */
__u64 nunlinkers;

/* The tgids value of a traced process (0 if it is not traced). */
static __always_inline __u8 tgid_flags(__u32 tgid)
{
	__u8 *v = bpf_map_lookup_elem(&tgids, &tgid);

	return v ? *v : 0;
}

static __always_inline void mark_removes(__u32 tgid, __u8 flags)
{
	__u8 *v = bpf_map_lookup_elem(&tgids, &tgid);

	if (!v || (*v & flags) == flags)
		return;
	if ((flags & TGID_UNLINKED) && !(*v & TGID_UNLINKED))
		__sync_fetch_and_add(&nunlinkers, 1);
	*v |= flags;
}

static __always_inline bool current_traced(void)
{
	return traced(bpf_get_current_pid_tgid() >> 32);
}

static __always_inline struct probe_misc *misc_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&misc, &zero);
}

static __always_inline void count_lost(void)
{
	struct probe_misc *m = misc_get();

	if (m)
		__sync_fetch_and_add(&m->lost, 1);
}

/* Where an on-CPU piece ran (oncpu_cut) */
enum { ON_USER, ON_SYSCALL, ON_WAIT_SYSCALL };

/* End the current on-CPU piece of thread TID at NOW, add it to the
 * counters of context WHERE, and start the next piece (KEEP) or leave the
 * CPU (!KEEP). A piece whose start was not seen (the thread already ran when
 * tracing began) starts here. Plain adds: per-CPU counters, and the programs
 * that cut pieces do not interrupt one another on a CPU. */
/* The current task traces others with ptrace (strace, gdb): its list of
 * tracees is not empty. */
static __always_inline bool is_tracer(void)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	__u64 head = (__u64)t + bpf_core_field_offset(struct task_struct, ptraced);

	return (__u64)BPF_CORE_READ(t, ptraced.next) != head;
}

/* Set once a traced thread calls ptrace(): a tracer calls it for every
 * stop of its tracees, and a tracee that asks to be traced calls it first.
 * Until then no traced process is a tracer, and the cuts at every system
 * call's entry and exit skip is_tracer's read. */
__u8 ptrace_seen;

static __always_inline void oncpu_cut(__u32 tid, __u64 now, int where, bool keep)
{
	__u32 zero = 0;
	struct oncpu_slot *c = bpf_map_lookup_elem(&oncpu_slot, &zero);
	struct probe_misc *m;

	if (!c)
		return;
	if (c->tid == tid && c->since && now > c->since && (m = misc_get())) {
		__u64 d = now - c->since;

		m->oncpu_ns += d;
		if (ptrace_seen && is_tracer())
			m->tracer_oncpu_ns += d;
		if (where == ON_SYSCALL)
			m->oncpu_syscall_ns += d;
		else if (where == ON_WAIT_SYSCALL)
			m->oncpu_wait_syscall_ns += d;
	}
	c->tid = keep ? tid : 0;
	c->since = keep ? now : 0;
}

/* The counters of device DEV (kernel dev_t), created on first use. */
static __always_inline struct probe_dev_stat *dev_get(__u32 dev)
{
	static const struct probe_dev_stat zero;
	struct probe_dev_stat *d = bpf_map_lookup_or_try_init(&devs, &dev, &zero);

	if (!d) {
		struct probe_misc *m = misc_get();
		if (m)
			__sync_fetch_and_add(&m->devs_lost, 1);
	}
	return d;
}

#include "wakers.bpf.h"

/* ---- processes: follow descendants ---- */

static __always_inline int do_fork(__u64 *ctx)
{
	struct task_struct *parent = (void *)ctx[0], *child = (void *)ctx[1];
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct probe_misc *m;
	__u8 one = 1;

	if (!traced(ptgid))
		return 0;
	m = misc_get();
	if (ctgid != ptgid) {
		tgid_maybe[ctgid & (PROBE_TGID_FILTER - 1)] = 1;
		long err = bpf_map_update_elem(&tgids, &ctgid, &one, BPF_NOEXIST);
		if (err == 0 && m)
			__sync_fetch_and_add(&m->tgids_delta, 1);
		else if (err && err != -EEXIST && m) /* full: PROBE_MAX_TGIDS live */
			__sync_fetch_and_add(&m->tgids_lost, 1);
	}
	if (m) {
		__sync_fetch_and_add(&m->threads_delta, 1);
		__sync_fetch_and_add(&m->forks, 1);
	}
	__sync_fetch_and_add(&life_births, bpf_ktime_get_ns() - life_t0);
	__sync_fetch_and_add(&live_threads, 1);
	if (live_threads > peak_threads)
		peak_threads = live_threads;
	return 0;
}

static __always_inline int do_exit(__u64 *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	bool group_dead = (bool)ctx[1];
	struct probe_misc *m;

	if (!traced(tgid))
		return 0;
	/* the last piece on CPU: the switch out that follows may no longer see
	 * a traced tgid (the group's last thread removes it below); an exit is
	 * in exit_group, exit or a fatal signal's kernel path */
	oncpu_cut(tid, bpf_ktime_get_ns(), ON_SYSCALL, false);
	bpf_map_delete_elem(&lock_start, &tid);
	bpf_map_delete_elem(&offcpu_start, &tid);
	m = misc_get();
	if (m)
		__sync_fetch_and_add(&m->threads_delta, -1);
	__sync_fetch_and_add(&life_deaths, bpf_ktime_get_ns() - life_t0);
	__sync_fetch_and_add(&live_threads, -1);
	if (group_dead) {
		bpf_map_delete_elem(&tgids, &tgid);
		if (m)
			__sync_fetch_and_add(&m->tgids_delta, -1);
	}
	return 0;
}

TP_BOTH(sched_process_fork, do_fork(ctx))
TP_BOTH(sched_process_exit, do_exit(ctx))

/* ---- syscalls ---- */

/* An untraced process's sync: on the file's filesystem (fsync, fdatasync,
 * syncfs, sync_file_range: their first argument is the fd), counted by that
 * device when it is one the trace knows; sync(2), or a file not found,
 * counts for every filesystem. Only a sync of the delete's filesystem
 * forces the commits its handles wait for. */
static __always_inline void other_sync(struct pt_regs *regs, long nr, const bool btf)
{
	struct probe_misc *m = misc_get();
	struct probe_dev_stat *d = NULL;

	if (!m)
		return;
	m->other_syncs++;
	if (nr != __NR_sync) {
		unsigned int fd = (unsigned int)(btf ? PT_REGS_PARM1_SYSCALL(regs) :
						       PT_REGS_PARM1_CORE_SYSCALL(regs));
		struct task_struct *t = (void *)bpf_get_current_task();
		struct file **fds = BPF_CORE_READ(t, files, fdt, fd);
		struct file *f = NULL;
		__u32 dev;

		if (fd < BPF_CORE_READ(t, files, fdt, max_fds) &&
		    !bpf_probe_read_kernel(&f, sizeof f, &fds[fd]) && f) {
			dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
			d = bpf_map_lookup_elem(&devs, &dev);
			if (d) {
				__sync_fetch_and_add(&d->other_syncs, 1);
				return;
			}
			if (dev)
				return;
		}
	}
	m->other_global_syncs++;
}

/* BTF: the tp_btf flavour, whose arguments are typed kernel pointers that
 * the program may read directly (a plain load instead of a
 * bpf_probe_read_kernel call, on every unlinkat). */
static __always_inline int do_sys_enter(__u64 *ctx, const bool btf)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pt_regs *regs = (void *)ctx[0];
	long nr = (long)ctx[1];
	struct sc_start *s;

	/* A thread with storage is traced (it is created only below, after
	 * the tgid check): one lookup per syscall, not a hash and a lookup. */
	s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL, 0);
	if (!s) {
		if (!traced(id >> 32)) {
			/* another process's sync forces the journal commits the
			 * deleter's handles then wait for: the only evidence of it */
			if (nr == __NR_fsync || nr == __NR_fdatasync || nr == __NR_sync ||
			    nr == __NR_sync_file_range || nr == __NR_syncfs)
				other_sync(regs, nr, btf);
			return 0;
		}
		s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!s) {
			count_lost();
			return 0;
		}
	}
	s->nr = (__u32)nr;
	s->rmdir = 0;
#ifdef __NR_ptrace
	if (nr == __NR_ptrace)
		ptrace_seen = 1;
#endif
	if (nr == PROBE_NR_UNLINKAT
#ifdef __NR_unlink
	    || nr == __NR_unlink
#endif
#ifdef __NR_rmdir
	    || nr == __NR_rmdir
#endif
	) {
		/* once per thread, not a hash lookup on every unlink */
		if (s->marks != (TGID_REMOVES | TGID_UNLINKED)) {
			mark_removes(id >> 32, TGID_REMOVES | TGID_UNLINKED);
			s->marks = TGID_REMOVES | TGID_UNLINKED;
		}
	}
	if (nr == PROBE_NR_UNLINKAT) /* unlinkat(dirfd, path, flags) */
		s->rmdir = ((btf ? PT_REGS_PARM3_SYSCALL(regs) : PT_REGS_PARM3_CORE_SYSCALL(regs)) &
			    AT_REMOVEDIR) != 0;
	s->ts = bpf_ktime_get_ns();
	oncpu_cut((__u32)id, s->ts, ON_USER, true);
	return 0;
}

static __always_inline int do_sys_exit(__u64 *ctx)
{
	long ret = (long)ctx[1];
	struct probe_sc_stat *st;
	struct sc_start *s;
	__u64 now, delta;
	__u32 nr;

	s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL, 0);
	if (!s || !s->ts)
		return 0; /* entered before tracing started */
	now = bpf_ktime_get_ns();
	delta = now - s->ts;
	s->ts = 0;
	nr = s->nr;
	oncpu_cut((__u32)bpf_get_current_pid_tgid(), now,
		  wait_sc[nr & (PROBE_NR_SYSCALLS - 1)] ? ON_WAIT_SYSCALL : ON_SYSCALL, true);
	if (nr >= PROBE_NR_SYSCALLS)
		return 0;
	st = bpf_map_lookup_elem(&sc_stats, &nr);
	if (!st)
		return 0;
	hist_add(&st->lat, delta);
	if (ret < 0 && ret >= -MAX_ERRNO)
		__sync_fetch_and_add(&st->errors, 1);
	if (nr == PROBE_NR_GETDENTS64 && ret >= 0) {
		struct probe_misc *m = misc_get();

		if (m)
			hist_add(&m->getdents_bytes, (__u64)ret);
		if (ret > DOT_DOTDOT_BYTES && !(s->marks & TGID_REMOVES)) {
			mark_removes(bpf_get_current_pid_tgid() >> 32, TGID_REMOVES);
			s->marks |= TGID_REMOVES;
		}
	} else if (nr == PROBE_NR_UNLINKAT && s->rmdir) {
		struct probe_misc *m = misc_get();

		if (m)
			hist_add(&m->unlinkat_dir, delta);
	}
	return 0;
}

/* sys_enter's two programs differ: only tp_btf may read its typed pointers. */
SEC("tp_btf/sys_enter") int btf_sys_enter(__u64 *ctx)
{
	return do_sys_enter(ctx, true);
}
SEC("raw_tp/sys_enter") int raw_sys_enter(__u64 *ctx)
{
	return do_sys_enter(ctx, false);
}
TP_BOTH(sys_exit, do_sys_exit(ctx))

/* ---- lock contention ---- */

static __always_inline bool is_spin(__u32 flags)
{
	return (flags & PROBE_LCB_F_SPIN) && !(flags & PROBE_LCB_F_MUTEX);
}

static __always_inline int do_contention_begin(__u64 *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	__u64 lock = ctx[0];
	__u32 flags = (__u32)ctx[1];
	struct lock_slots *ls, init = {};
	struct lock_wait *w;

	if (!traced(id >> 32))
		return 0;
	ls = bpf_map_lookup_or_try_init(&lock_start, &tid, &init);
	if (!ls) {
		count_lost();
		return 0;
	}
	w = is_spin(flags) ? &ls->spin : &ls->sleep;
	if (w->lock) {
		/* a mutex goes from optimistic spinning (MUTEX|SPIN) to
		 * sleeping (MUTEX) on the same lock: one wait, latest type */
		if (w->lock == lock)
			w->flags = flags;
		return 0;
	}
	w->lock = lock;
	w->flags = flags;
	/* a stack costs microseconds: only for sleeping locks, whose waits
	 * are long enough to be worth naming */
	w->stackid = want_callers && !is_spin(flags) ? wait_stackid(ctx) : -1;
	w->ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline void finish_wait(struct lock_wait *w, __u64 now)
{
	__u32 type = w->flags & (PROBE_LOCK_TYPES - 1);
	__u64 delta = now - w->ts;
	struct probe_lock_stat *st;

	st = bpf_map_lookup_elem(&lock_stats, &type);
	if (st)
		hist_add(&st->wait, delta);
	if (want_callers && w->stackid >= 0) {
		struct probe_caller_key k = { .stackid = w->stackid, .flags = type };
		struct probe_caller_val *v, zero = {};

		v = bpf_map_lookup_or_try_init(&callers, &k, &zero);
		if (v) {
			__sync_fetch_and_add(&v->count, 1);
			__sync_fetch_and_add(&v->total_ns, delta);
		}
	}
	w->lock = 0;
}

static __always_inline int do_contention_end(__u64 *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	__u64 lock = ctx[0];
	struct lock_slots *ls;
	__u64 now;

	if (!traced(id >> 32))
		return 0;
	ls = bpf_map_lookup_elem(&lock_start, &tid);
	if (!ls)
		return 0;
	now = bpf_ktime_get_ns();
	if (ls->spin.lock == lock)
		finish_wait(&ls->spin, now);
	else if (ls->sleep.lock == lock)
		finish_wait(&ls->sleep, now);
	return 0;
}

TP_BOTH(contention_begin, do_contention_begin(ctx))
TP_BOTH(contention_end, do_contention_end(ctx))

/* ---- off-CPU: how long, where (wait sites), waiting to run ---- */

/* Where the current (traced) thread is as it goes off CPU: a PROBE_WAIT_IN_*
 * mask. switch_ctx, switch_out and switch_in are global functions: the
 * verifier checks each once, not once per path through sched_switch, which
 * keeps every --trace's start short. */
__noinline int switch_ctx(__u32 tid, __u32 sleeping)
{
	struct sc_start *s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL, 0);
	struct lock_slots *ls = bpf_map_lookup_elem(&lock_start, &tid);
	int ctx = 0;

	if (s && s->ts && s->nr < PROBE_NR_SYSCALLS && !wait_sc[s->nr & (PROBE_NR_SYSCALLS - 1)])
		ctx |= PROBE_WAIT_IN_SYSCALL;
	else if (s && s->ts)
		ctx |= PROBE_WAIT_IN_WAIT_SC;
	if (s && s->ts && (s->nr == __NR_wait4 || s->nr == __NR_waitid))
		ctx |= PROBE_WAIT_FOR_CHILD;
	if (ls && (ls->sleep.lock || ls->spin.lock))
		ctx |= PROBE_WAIT_IN_LOCK;
	/* S waits in busy syscalls come by the hundred thousand (a pipe
	 * read per line): a stack for the first of each thread and then
	 * 1 in PROBE_S_SAMPLE; user space scales the sampled sites */
	if (sleeping && (ctx & PROBE_WAIT_IN_SYSCALL)) {
		struct offcpu *o = bpf_map_lookup_elem(&offcpu_start, &tid);
		__u16 n = o ? o->nsleep : 0;

		if (o)
			o->nsleep = n + 1;
		if (n % PROBE_S_SAMPLE == 0)
			ctx |= PROBE_WAIT_SAMPLED;
	}
	return ctx;
}

/* KIND: enum probe_offcpu_kind or OFFCPU_OTHER, with enum probe_xstate
 * << 8 (a global function takes five arguments) */
__noinline int switch_out(__u32 tid, __u32 kind, __u32 ctx, int stackid, __u64 now)
{
	__u32 xstate = kind >> 8;

	struct offcpu *o, init = {};

	o = bpf_map_lookup_or_try_init(&offcpu_start, &tid, &init);
	if (!o) {
		count_lost();
		return 0;
	}
	kind &= 0xff;
	o->kind = kind;
	o->xstate = xstate;
	o->who.cls = PROBE_WAKER_NONE;
	o->via.cls = PROBE_WAKER_NONE;
	o->holder.cls = PROBE_WAKER_NONE;
	o->ctx = ctx & (PROBE_WAIT_IN_SYSCALL | PROBE_WAIT_IN_LOCK | PROBE_WAIT_FOR_CHILD |
			PROBE_WAIT_STOPPED);
	o->stackid = stackid;
	o->wake_ts = 0;
	o->ts = now;
	if (kind == PROBE_OFFCPU_PREEMPTED) {
		o->rq_cpu = bpf_get_smp_processor_id();
		fsw_read(o->rq_cpu, now, o->fsw0);
	}
	return 0;
}

__noinline int switch_in(__u32 tid, __u32 tgid, __u32 after_traced, __u32 flags, __u64 now)
{
	/* a traced process that has removed nothing yet */
	bool helper = !(flags & TGID_REMOVES);
	/* Waiting for another traced process while another process unlinks:
	 * a parent in wait4 for its deleting child, or a sleep that another
	 * traced process ended (a pipe the child closes as it execs the
	 * remover, a pipeline's other end). That process's own threads hold
	 * the time; a process that is the only one to unlink still waits on
	 * its own. */
	bool for_other = false;
	struct offcpu *o = bpf_map_lookup_elem(&offcpu_start, &tid);
	struct probe_misc *m;
	__u64 off, rq = 0;
	__u8 kind;

	/* no entry: the thread's first switch in since tracing began (every
	 * switch out and every new thread makes one); it was off CPU since
	 * then in a state the probes did not see begin */
	if (!o && life_t0 && now > life_t0 && (m = misc_get())) {
		__sync_fetch_and_add(&m->pretrace_ns, now - life_t0);
		__sync_fetch_and_add(&m->pretrace_count, 1);
	}
	if (!o || !o->ts)
		return 0;
	off = now - o->ts;
	kind = o->kind;
	if (kind == PROBE_OFFCPU_PREEMPTED)
		rq = off;
	else if (o->wake_ts >= o->ts && now >= o->wake_ts)
		rq = now - o->wake_ts;
	if (rq > off)
		rq = off;
	m = misc_get();
	if (m) {
		if (kind < PROBE_OFFCPU_KINDS)
			hist_add(&m->offcpu[kind], off);
		if (kind != PROBE_OFFCPU_PREEMPTED && o->wake_ts)
			hist_add(&m->runq, rq);
		if ((o->ctx & (PROBE_WAIT_IN_SYSCALL | PROBE_WAIT_IN_LOCK)) == PROBE_WAIT_IN_SYSCALL) {
			if (kind == PROBE_OFFCPU_PREEMPTED)
				__sync_fetch_and_add(&m->busy_preempt_ns, rq);
			else
				__sync_fetch_and_add(&m->busy_runq_ns, rq);
		}
		if (after_traced && rq)
			__sync_fetch_and_add(&m->runq_traced_ns, rq);
		if (rq && (kind == PROBE_OFFCPU_PREEMPTED || o->wake_ts)) {
			__u64 ns[FSW_SLOTS], left = rq;

			fsw_read(o->rq_cpu, now, ns);
			for (int i = 0; i < PROBE_FSW_COUNT && left; i++) {
				__u64 d = ns[i] > o->fsw0[i] ? ns[i] - o->fsw0[i] : 0;

				if (d > left)
					d = left;
				if (d)
					__sync_fetch_and_add(&m->runq_behind_fsw_ns[i], d);
				left -= d;
			}
		}
		for_other = kind == PROBE_OFFCPU_SLEEPING && !(o->ctx & PROBE_WAIT_IN_LOCK) &&
			    ((o->ctx & PROBE_WAIT_FOR_CHILD) ||
			     (o->who.cls == PROBE_WAKER_TRACED && o->who.tgid != tgid)) &&
			    nunlinkers >= 1 + !!(flags & TGID_UNLINKED);
		if (helper && kind == PROBE_OFFCPU_SLEEPING && !(o->ctx & PROBE_WAIT_IN_SYSCALL))
			__sync_fetch_and_add(&m->helper_idle_ns, off - rq);
		else if (for_other && !(o->ctx & PROBE_WAIT_IN_SYSCALL))
			__sync_fetch_and_add(&m->child_wait_ns, off - rq);
		if (kind == OFFCPU_OTHER && (o->ctx & PROBE_WAIT_STOPPED)) {
			__sync_fetch_and_add(&m->stopped_ns, off - rq);
			__sync_fetch_and_add(&m->stops, 1);
		}
		if (kind == OFFCPU_OTHER) {
			__u32 x = o->xstate & 3;

			__sync_fetch_and_add(&m->state_ns[x], off - rq);
			__sync_fetch_and_add(&m->state_count[x], 1);
			if (o->wake_ts)
				__sync_fetch_and_add(&m->state_rq_ns, rq);
		}
	}
	/* every wait's waker, and every run-queue wait's holder of the CPU */
	if (kind != PROBE_OFFCPU_PREEMPTED && off > rq)
		wakers_add(o->stackid,
			   kind < PROBE_OFFCPU_KINDS ? kind : PROBE_WAKE_XSTATE + (o->xstate & 3),
			   &o->who, &o->via, off - rq);
	if (rq && (kind == PROBE_OFFCPU_PREEMPTED || o->wake_ts)) {
		struct probe_waker_id none = {};

		wakers_add(-1, PROBE_WAKE_HELD, &o->holder, &none, rq);
	}
	if (kind == PROBE_OFFCPU_BLOCKED ||
	    (kind == PROBE_OFFCPU_SLEEPING && (o->ctx & PROBE_WAIT_IN_SYSCALL))) {
		struct probe_wait_key k = { .stackid = o->stackid,
					    .state = kind,
					    .ctx = (o->ctx & ~PROBE_WAIT_FOR_CHILD) |
						   (helper || for_other ? PROBE_WAIT_HELPER : 0) };
		struct probe_wait_val *v, zero = {};

		v = bpf_map_lookup_or_try_init(&wait_sites, &k, &zero);
		if (v) {
			__sync_fetch_and_add(&v->count, 1);
			__sync_fetch_and_add(&v->total_ns, off);
			__sync_fetch_and_add(&v->blocked_ns, off - rq);
		} else if (m) {
			__sync_fetch_and_add(&m->wait_sites_lost, 1);
			__sync_fetch_and_add(&m->wait_sites_lost_ns, off);
		}
	}
	o->ts = 0;
	o->wake_ts = 0;
	return 0;
}

/* xfs's inodegc workers: their time on CPU from xfs_inodegc_worker (the
 * work item starts on a kworker) to the end of that work item, by kworker
 * thread. That is the deferred part of the unlinks (freeing the files'
 * extents and inodes), on CPUs the deleter's threads then wait for. */
struct inodegc_run {
	__u64 since; /* on CPU since (0: off CPU) */
	__u64 oncpu; /* ns on CPU so far */
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct inodegc_run);
} inodegc_runs SEC(".maps");
/* work items running now: sched_switch looks them up only then */
__s64 inodegc_running;

static __always_inline int do_xfs_inodegc_worker(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct inodegc_run run = { .since = bpf_ktime_get_ns() };

	if (!bpf_map_update_elem(&inodegc_runs, &tid, &run, BPF_NOEXIST))
		__sync_fetch_and_add(&inodegc_running, 1);
	return 0;
}
TP_BOTH(xfs_inodegc_worker, do_xfs_inodegc_worker())

/* A kworker starts a work item: this CPU runs a filesystem's worker from
 * now if the item's workqueue is a filesystem's. */
static __always_inline int do_workqueue_execute_start(void)
{
	fsw_switch(fsw_of_worker(bpf_get_current_task_btf()), bpf_ktime_get_ns());
	return 0;
}
TP_BOTH(workqueue_execute_start, do_workqueue_execute_start())

static __always_inline int do_workqueue_execute_end(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct inodegc_run *run = bpf_map_lookup_elem(&inodegc_runs, &tid);
	struct probe_misc *m;
	__u64 now = bpf_ktime_get_ns();

	fsw_switch(0, now);
	if (!run)
		return 0;
	if (run->since && now > run->since)
		run->oncpu += now - run->since;
	if ((m = misc_get())) {
		__sync_fetch_and_add(&m->xfs_inodegc_worker_ns, run->oncpu);
		__sync_fetch_and_add(&m->xfs_inodegc_works, 1);
	}
	bpf_map_delete_elem(&inodegc_runs, &tid);
	__sync_fetch_and_add(&inodegc_running, -1);
	return 0;
}
TP_BOTH(workqueue_execute_end, do_workqueue_execute_end())

/* An inodegc worker leaves or takes a CPU in the middle of a work item. */
static __always_inline void inodegc_switch(__u32 ptid, __u32 ntid, __u64 now)
{
	struct inodegc_run *run = bpf_map_lookup_elem(&inodegc_runs, &ptid);

	if (run && run->since && now > run->since) {
		run->oncpu += now - run->since;
		run->since = 0;
	}
	run = bpf_map_lookup_elem(&inodegc_runs, &ntid);
	if (run)
		run->since = now;
}

static __always_inline int do_sched_switch(__u64 *ctx)
{
	bool preempt = (bool)ctx[0];
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];
	__u32 state = (__u32)ctx[3];
	__u32 ptid = BPF_CORE_READ(prev, pid), ntid;
	bool prev_traced = ptid && traced(BPF_CORE_READ(prev, tgid));
	__u64 now = 0;

	if (prev_traced) {
		__u32 kind, wctx, xstate = PROBE_XSTATE_OTHER;
		int stackid = -1;

		if (preempt || state == TASK_RUNNING)
			kind = PROBE_OFFCPU_PREEMPTED;
		else if (state & TASK_UNINTERRUPTIBLE) /* D */
			kind = PROBE_OFFCPU_BLOCKED;
		else if (state & TASK_INTERRUPTIBLE) /* S */
			kind = PROBE_OFFCPU_SLEEPING;
		else
			kind = OFFCPU_OTHER;
		wctx = switch_ctx(ptid, kind == PROBE_OFFCPU_SLEEPING);
		/* a tracer's stop at each system call (strace, gdb) is neither
		 * D nor S, yet it is the thread's time */
		if (kind == OFFCPU_OTHER && (state & (__TASK_TRACED | __TASK_STOPPED)))
			wctx |= PROBE_WAIT_STOPPED;
		if (state & __TASK_TRACED)
			xstate = PROBE_XSTATE_TRACER_STOP;
		else if (state & __TASK_STOPPED)
			xstate = PROBE_XSTATE_SIGNAL_STOP;
		else if (state & TASK_FROZEN)
			xstate = PROBE_XSTATE_FROZEN;
		/* a stack for every D wait, and for sampled S waits inside
		 * busy syscalls (S in wait4, futex or poll is the thread's
		 * choice); prev is current here */
		if (want_callers && kind == PROBE_OFFCPU_BLOCKED)
			stackid = wait_stackid(ctx);
		else if (want_callers && kind == PROBE_OFFCPU_SLEEPING &&
			 (wctx & PROBE_WAIT_IN_SYSCALL))
			stackid = wctx & PROBE_WAIT_SAMPLED ? wait_stackid(ctx) :
							      PROBE_STACK_UNSAMPLED;
		now = bpf_ktime_get_ns();
		oncpu_cut(ptid, now,
			  wctx & PROBE_WAIT_IN_SYSCALL ? ON_SYSCALL :
			  wctx & PROBE_WAIT_IN_WAIT_SC ? ON_WAIT_SYSCALL :
							 ON_USER,
			  false);
		switch_out(ptid, kind | xstate << 8, wctx, stackid, now);
		/* preempted: the task that takes the CPU holds it */
		if (kind == PROBE_OFFCPU_PREEMPTED) {
			struct offcpu *o = bpf_map_lookup_elem(&offcpu_start, &ptid);

			if (o)
				task_id(next, &o->holder);
		}
	}
	ntid = BPF_CORE_READ(next, pid);
	if (!now)
		now = bpf_ktime_get_ns();
	if (inodegc_running > 0)
		inodegc_switch(ptid, ntid, now);
	fsw_switch(fsw_of_task(next), now);
	if (ntid && traced(BPF_CORE_READ(next, tgid))) {
		__u32 zero = 0;
		struct oncpu_slot *c = bpf_map_lookup_elem(&oncpu_slot, &zero);

		if (!now)
			now = bpf_ktime_get_ns();
		if (c) {
			c->tid = ntid;
			c->since = now;
		}
		/* woken: the task that last held the CPU it waited for */
		struct offcpu *o = bpf_map_lookup_elem(&offcpu_start, &ntid);
		if (o && o->ts && o->kind != PROBE_OFFCPU_PREEMPTED)
			task_id(prev, &o->holder);
		__u32 ntgid = BPF_CORE_READ(next, tgid);

		switch_in(ntid, ntgid, prev_traced && ptid != ntid, tgid_flags(ntgid), now);
	}
	return 0;
}

/* A traced thread becomes runnable: its wait for a CPU starts. */
static __always_inline int do_sched_wakeup(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 tid = BPF_CORE_READ(p, pid);
	struct offcpu *o;

	if (!tid || !traced(BPF_CORE_READ(p, tgid)))
		return 0;
	o = bpf_map_lookup_elem(&offcpu_start, &tid);
	if (o && o->ts && !o->wake_ts) {
		o->wake_ts = bpf_ktime_get_ns();
		o->rq_cpu = BPF_CORE_READ(p, thread_info.cpu);
		fsw_read(o->rq_cpu, o->wake_ts, o->fsw0);
	}
	return 0;
}

/* A new traced thread: runnable from now until it first runs. */
static __always_inline int do_sched_wakeup_new(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 tid = BPF_CORE_READ(p, pid);
	struct offcpu o = { .kind = OFFCPU_OTHER, .stackid = -1 };

	if (!tid || !traced(BPF_CORE_READ(p, tgid)))
		return 0;
	o.ts = o.wake_ts = bpf_ktime_get_ns();
	o.rq_cpu = BPF_CORE_READ(p, thread_info.cpu);
	fsw_read(o.rq_cpu, o.ts, o.fsw0);
	if (bpf_map_update_elem(&offcpu_start, &tid, &o, BPF_ANY))
		count_lost();
	return 0;
}

TP_BOTH(sched_wakeup, do_sched_wakeup(ctx))
TP_BOTH(sched_waking, do_sched_waking(ctx))
TP_BOTH(sched_wakeup_new, do_sched_wakeup_new(ctx))
TP_BOTH(sched_switch, do_sched_switch(ctx))

/* ---- filesystems ---- */

static __always_inline int fs_begin(__u32 kind)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fs_key k = { .tid = (__u32)id, .kind = kind };
	__u64 now;

	if (!traced(id >> 32))
		return 0;
	now = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&fs_start, &k, &now, BPF_ANY))
		count_lost();
	return 0;
}

/* Returns the wait in ns, or 0 if its start was not seen. */
static __always_inline __u64 fs_end(__u32 kind)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fs_key k = { .tid = (__u32)id, .kind = kind };
	__u64 *ts, delta;

	if (!traced(id >> 32))
		return 0;
	ts = bpf_map_lookup_elem(&fs_start, &k);
	if (!ts)
		return 0;
	delta = bpf_ktime_get_ns() - *ts;
	bpf_map_delete_elem(&fs_start, &k);
	return delta ? delta : 1;
}

static __always_inline int do_ext4_unlink_exit(__u64 *ctx)
{
	__u64 d = fs_end(FS_EXT4_UNLINK);
	struct probe_misc *m;

	if (d && (m = misc_get()))
		hist_add(&m->ext4_unlink, d);
	return 0;
}

/* Where the traced threads freed ext4 blocks, by device and 1 MiB chunk
 * of sectors: the discards that jbd2 issues later for those chunks are the
 * delete's, the others on the same filesystem another process's. */
#define FREED_CHUNK_SHIFT 11 /* sectors: 1 MiB */
#define FREED_CHUNKS_PER_FREE 16
struct freed_key {
	__u32 dev;
	__u32 pad;
	__u64 chunk;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096); /* 4 GiB freed; an older chunk goes first */
	__type(key, struct freed_key);
	__type(value, __u8);
} freed_chunks SEC(".maps");

static __always_inline int do_ext4_free_blocks(__u64 *ctx)
{
	struct inode *inode = (void *)ctx[0];
	struct probe_misc *m;
	struct freed_key k = {};
	__u8 one = 1;

	if (!current_traced() || !(m = misc_get()))
		return 0;
	__sync_fetch_and_add(&m->ext4_free_calls, 1);
	__sync_fetch_and_add(&m->ext4_freed_blocks, ctx[2]);
	if (!ctx[2])
		return 0;

	__u32 shift = BPF_CORE_READ(inode, i_sb, s_blocksize_bits) - 9;
	__u64 first = (ctx[1] << (shift & 31)) >> FREED_CHUNK_SHIFT;
	__u64 last = (((ctx[1] + ctx[2]) << (shift & 31)) - 1) >> FREED_CHUNK_SHIFT;
	struct probe_dev_stat *d;

	k.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	for (int i = 0; i < FREED_CHUNKS_PER_FREE && first + i <= last; i++) {
		k.chunk = first + i;
		bpf_map_update_elem(&freed_chunks, &k, &one, BPF_ANY);
	}
	d = dev_get(k.dev);
	if (d)
		__sync_fetch_and_add(&d->freed_chunks, 1);
	return 0;
}

/* Discards are issued from the journal commit, not by the traced process:
 * counted per device, user space decides which devices are the delete's. */
static __always_inline int do_ext4_discard_blocks(__u64 *ctx)
{
	struct super_block *sb = (void *)ctx[0];
	struct probe_dev_stat *d = dev_get(BPF_CORE_READ(sb, s_dev));

	if (d) {
		__sync_fetch_and_add(&d->ext4_discards, 1);
		__sync_fetch_and_add(&d->ext4_discard_blocks, ctx[2]);
	}
	return 0;
}

/* How far apart the inodes are that a thread unlinks one after the other:
 * far jumps mean that every unlink dirties another inode-table block and
 * bitmap (a big ext4 directory deleted in readdir, i.e. hash, order, as rmz
 * does, against GNU rm's inode order). */
static __always_inline int do_ext4_unlink_enter(__u64 *ctx)
{
	struct inode *parent = (void *)ctx[0];
	struct dentry *dentry = (void *)ctx[1];
	struct probe_dev_stat *d;
	struct probe_misc *m;
	struct sc_start *s;
	__u64 ino;

	fs_begin(FS_EXT4_UNLINK);
	/* only traced threads have syscall storage */
	s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL, 0);
	if (!s)
		return 0;
	d = dev_get(BPF_CORE_READ(parent, i_sb, s_dev));
	if (d)
		__sync_fetch_and_add(&d->unlinks, 1);
	ino = BPF_CORE_READ(dentry, d_inode, i_ino);
	if (s->last_ino && ino && (m = misc_get()))
		hist_add(&m->ext4_ino_jump,
			 ino > s->last_ino ? ino - s->last_ino : s->last_ino - ino);
	s->last_ino = ino;
	return 0;
}

TP_BOTH(ext4_unlink_enter, do_ext4_unlink_enter(ctx))
TP_BOTH(ext4_unlink_exit, do_ext4_unlink_exit(ctx))
TP_BOTH(ext4_free_blocks, do_ext4_free_blocks(ctx))
TP_BOTH(ext4_discard_blocks, do_ext4_discard_blocks(ctx))

/* jbd2 commits run in the journal thread: counted per journal device, user
 * space decides which are the delete's. */
static __always_inline int do_jbd2_run_stats(__u64 *ctx)
{
	struct transaction_run_stats_s___adaptrm *rs = (void *)ctx[2];
	struct probe_dev_stat *m = dev_get((__u32)ctx[0]);

	if (!m)
		return 0;
	__sync_fetch_and_add(&m->jbd2_commits, 1);
	__sync_fetch_and_add(&m->jbd2_wait, BPF_CORE_READ(rs, rs_wait));
	__sync_fetch_and_add(&m->jbd2_request_delay, BPF_CORE_READ(rs, rs_request_delay));
	__sync_fetch_and_add(&m->jbd2_running, BPF_CORE_READ(rs, rs_running));
	__sync_fetch_and_add(&m->jbd2_locked, BPF_CORE_READ(rs, rs_locked));
	__sync_fetch_and_add(&m->jbd2_flushing, BPF_CORE_READ(rs, rs_flushing));
	__sync_fetch_and_add(&m->jbd2_logging, BPF_CORE_READ(rs, rs_logging));
	__sync_fetch_and_add(&m->jbd2_handles, BPF_CORE_READ(rs, rs_handle_count));
	__sync_fetch_and_add(&m->jbd2_blocks, BPF_CORE_READ(rs, rs_blocks));
	return 0;
}

TP_BOTH(jbd2_run_stats, do_jbd2_run_stats(ctx))

static __always_inline int do_xfs_grant_wake(__u64 *ctx)
{
	__u64 d = fs_end(FS_XFS_GRANT);
	struct probe_misc *m;

	if (d && (m = misc_get()))
		hist_add(&m->xfs_log_grant, d);
	return 0;
}

static __always_inline int do_xfs_inodegc_throttle(__u64 *ctx)
{
	struct probe_misc *m;

	if (current_traced() && (m = misc_get()))
		__sync_fetch_and_add(&m->xfs_inodegc_throttles, 1);
	return 0;
}

/* xfs buffer reads in flight, by buffer: a thread that waits for a
 * buffer's lock while its holder reads it waits for the device, not for
 * another CPU's work. Any thread's reads count (a kworker's too). The
 * holder may also hold the buffer while it reads another one (an AG
 * header locked across an inode-cluster read): the reads in flight and
 * done machine-wide tell a wait that the device's reads spanned. */
__u64 xfs_reads_inflight, xfs_reads_done;
struct buf_read {
	__u64 start, end; /* submitted, done (0: in flight) */
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct buf_read);
} xfs_buf_reads SEC(".maps");

static __always_inline int do_xfs_buf_submit(__u64 *ctx)
{
	struct xfs_buf___adaptrm *bp = (void *)ctx[0];
	struct buf_read r = {};
	__u64 key = ctx[0];

	if (!(BPF_CORE_READ(bp, b_flags) & XBF_READ))
		return 0;
	r.start = bpf_ktime_get_ns();
	if (!bpf_map_update_elem(&xfs_buf_reads, &key, &r, BPF_ANY))
		__sync_fetch_and_add(&xfs_reads_inflight, 1);
	return 0;
}

static __always_inline int do_xfs_buf_iodone(__u64 *ctx)
{
	__u64 key = ctx[0];
	struct buf_read *r = bpf_map_lookup_elem(&xfs_buf_reads, &key);

	if (r && !r->end) {
		r->end = bpf_ktime_get_ns();
		__sync_fetch_and_add(&xfs_reads_inflight, -1);
		__sync_fetch_and_add(&xfs_reads_done, 1);
	}
	return 0;
}

static __always_inline int do_xfs_buf_lock(__u64 *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fs_key k = { .tid = (__u32)id, .kind = FS_XFS_BUF_READS };
	__u64 done = xfs_reads_done;

	if (!traced(id >> 32))
		return 0;
	bpf_map_update_elem(&fs_start, &k, &done, BPF_ANY);
	return fs_begin(FS_XFS_BUF_LOCK);
}

/* The part of a buffer-lock wait of D ns ending at NOW that the device was
 * reading for it: the overlap with its buffer's own read, else all of it
 * if xfs reads were in flight or done meanwhile. */
static __always_inline __u64 buf_lock_read_ns(__u64 key, __u64 d, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid(), from, to, *done0;
	struct fs_key k = { .tid = (__u32)id, .kind = FS_XFS_BUF_READS };
	struct buf_read *r = bpf_map_lookup_elem(&xfs_buf_reads, &key);
	bool during = false;

	done0 = bpf_map_lookup_elem(&fs_start, &k);
	if (done0) {
		during = *done0 != xfs_reads_done || (__s64)xfs_reads_inflight > 0;
		bpf_map_delete_elem(&fs_start, &k);
	}
	if (r && r->start < now) {
		from = now - d > r->start ? now - d : r->start;
		to = r->end && r->end < now ? r->end : now;
		if (to > from)
			return to - from;
	}
	return during ? d : 0;
}

/* A traced thread has the buffer's lock: its wait, and the part of it the
 * buffer was being read. */
static __always_inline int do_xfs_buf_lock_done(__u64 *ctx)
{
	__u64 d = fs_end(FS_XFS_BUF_LOCK), rd;
	struct probe_misc *m;

	if (!d || !(m = misc_get()))
		return 0;
	__sync_fetch_and_add(&m->xfs_buf_lock_ns, d);
	rd = buf_lock_read_ns(ctx[0], d, bpf_ktime_get_ns());
	if (rd) {
		__sync_fetch_and_add(&m->xfs_buf_lock_read_ns, rd);
		__sync_fetch_and_add(&m->xfs_buf_lock_reads, 1);
	}
	return 0;
}

TP_BOTH(xfs_buf_submit, do_xfs_buf_submit(ctx))
TP_BOTH(xfs_buf_iodone, do_xfs_buf_iodone(ctx))
TP_BOTH(xfs_buf_lock, do_xfs_buf_lock(ctx))
TP_BOTH(xfs_buf_lock_done, do_xfs_buf_lock_done(ctx))
TP_BOTH(xfs_log_grant_sleep, fs_begin(FS_XFS_GRANT))
TP_BOTH(xfs_log_grant_wake, do_xfs_grant_wake(ctx))
TP_BOTH(xfs_inodegc_throttle, do_xfs_inodegc_throttle(ctx))

/* A traced thread's unlink (its last iput) queued an inode for xfs's
 * inodegc workers to inactivate: their work is then the delete's own. */
static __always_inline int do_xfs_inode_set_need_inactive(__u64 *ctx)
{
	struct probe_misc *m;

	if (current_traced() && (m = misc_get()))
		__sync_fetch_and_add(&m->xfs_inactive_queued, 1);
	return 0;
}
TP_BOTH(xfs_inode_set_need_inactive, do_xfs_inode_set_need_inactive(ctx))


/* btrfs passes the wait's start (ktime ns) to both events. */
static __always_inline int btrfs_wait(__u64 start_ns, bool tree_lock)
{
	struct probe_misc *m;
	__u64 now;

	if (!current_traced() || !(m = misc_get()))
		return 0;
	now = bpf_ktime_get_ns();
	if (now < start_ns)
		return 0;
	if (tree_lock) {
		if (now - start_ns >= PROBE_BTRFS_CONTENDED_NS)
			hist_add(&m->btrfs_tree_lock, now - start_ns);
	} else
		hist_add(&m->btrfs_reserve, now - start_ns);
	return 0;
}

TP_BOTH(btrfs_tree_lock, btrfs_wait(ctx[1], true))
TP_BOTH(btrfs_reserve_ticket, btrfs_wait(ctx[3], false))

/* ---- block layer (every device while tracing, by device: completions run
 * in irq, and the loop device and its backing disk are two devices) ---- */

static __always_inline __u32 rq_dev(struct request *rq)
{
	return BPF_CORE_READ(rq, part, bd_dev);
}

#define BIO_S_IFMT 0170000
#define BIO_S_IFREG 0100000

/* A kernel thread's discard RQ: the delete's filesystem work when it starts
 * in a chunk the traced threads freed, or when the device has no record of
 * their frees (xfs, btrfs: no extents kept); else another process's. */
static __always_inline __u32 discard_class(struct request *rq)
{
	struct freed_key k = {};
	struct probe_dev_stat *d;

	/* the bio's device: the request's is not set yet when it is created */
	struct block_device *bdev = BPF_CORE_READ(rq, bio, bi_bdev);

	k.dev = BPF_CORE_READ(bdev, bd_dev);
	d = bpf_map_lookup_elem(&devs, &k.dev);
	if (!d || !d->freed_chunks)
		return PROBE_BIO_FS;
	k.chunk = (BPF_CORE_READ(rq, __sector) - BPF_CORE_READ(bdev, bd_start_sect)) >>
		  FREED_CHUNK_SHIFT;
	return bpf_map_lookup_elem(&freed_chunks, &k) ? PROBE_BIO_FS : PROBE_BIO_OTHER;
}

/* Who the request RQ is for, from the task that creates it (current):
 * PROBE_BIO_TRACED, _FS or _OTHER (probes_shared.h). A kernel thread's
 * request is its filesystem's work (journal, metadata, discards) unless it
 * writes a regular file's pages: writeback of a file's data is for the
 * process that wrote it, and a delete writes none. */
static __always_inline __u32 bio_class(struct request *rq, __u32 op)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct address_space *mapping;
	struct page *pg;

	if (traced(BPF_CORE_READ(t, tgid)))
		return PROBE_BIO_TRACED;
	if (!(BPF_CORE_READ(t, flags) & PF_KTHREAD))
		return PROBE_BIO_OTHER;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD))
		return discard_class(rq);
	if (op != bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
		return PROBE_BIO_FS;
	pg = BPF_CORE_READ(rq, bio, bi_io_vec, bv_page);
	mapping = pg ? BPF_CORE_READ(pg, mapping) : NULL;
	/* the low bits mark anonymous and movable pages, which no file owns */
	if (!mapping || ((unsigned long)mapping & 3))
		return PROBE_BIO_FS;
	if ((BPF_CORE_READ(mapping, host, i_mode) & BIO_S_IFMT) == BIO_S_IFREG)
		return PROBE_BIO_OTHER;
	return PROBE_BIO_FS;
}

/* A request is created (in the task that queued its bio): remember who. */
static __always_inline int do_io_start(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];
	__u32 op = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK;
	struct bio_rq v = { .cls = bio_class(rq, op), .seen = 1 };
	__u64 key = ctx[0];

	bpf_map_update_elem(&bio_start, &key, &v, BPF_ANY);
	return 0;
}

static __always_inline int do_rq_issue(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];
	__u64 key = ctx[0];
	__u32 op = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK;
	struct bio_rq *v = bpf_map_lookup_elem(&bio_start, &key), fresh = {};

	/* without block_io_start (an older kernel), the issuer stands in */
	if (!v || !v->seen) {
		fresh.cls = bio_class(rq, op);
		bpf_map_update_elem(&bio_start, &key, &fresh, BPF_ANY);
		v = bpf_map_lookup_elem(&bio_start, &key);
		if (!v)
			return 0;
	}
	v->ts = bpf_ktime_get_ns();
	v->seen = 0; /* a request's address is used again for the next */

	struct probe_dev_stat *d = dev_get(rq_dev(rq));
	__u32 cls = v->cls < PROBE_BIO_CLASSES ? v->cls : PROBE_BIO_OTHER;
	__u32 bytes = BPF_CORE_READ(rq, __data_len);

	if (!d)
		return 0;
	__sync_fetch_and_add(&d->bio_by[cls].bytes, bytes);
	/* the value from the running kernel's BTF, not vmlinux.h's */
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD)) {
		__sync_fetch_and_add(&d->bio_by[cls].discards, 1);
		__sync_fetch_and_add(&d->bio_by[cls].discard_bytes, bytes);
	}
	return 0;
}

static __always_inline int do_rq_complete(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];
	__u64 key = ctx[0];
	struct probe_dev_stat *d;
	struct bio_rq *v;

	v = bpf_map_lookup_elem(&bio_start, &key);
	if (!v || !v->ts)
		return 0;
	d = dev_get(rq_dev(rq));
	if (d && v->cls < PROBE_BIO_CLASSES)
		hist_add(&d->bio_by[v->cls].lat, bpf_ktime_get_ns() - v->ts);
	bpf_map_delete_elem(&bio_start, &key);
	return 0;
}

TP_BOTH(block_io_start, do_io_start(ctx))
TP_BOTH(block_rq_issue, do_rq_issue(ctx))
TP_BOTH(block_rq_complete, do_rq_complete(ctx))

/* ---- on-CPU samples (perf_event, cpu-clock, one event per CPU) ---- */

/* A traced thread was on this CPU at a cpu-clock tick: count its kernel
 * stack, or user mode, with the syscall it was in. Runs in the timer
 * interrupt: current is the interrupted thread, and the stack is of the
 * interrupted code. */
SEC("perf_event") int cpu_sample(struct bpf_perf_event_data *ctx)
{
	struct probe_cpu_key k = { .stackid = -1 };
	struct probe_misc *m;
	struct sc_start *s;
	__u64 *v, one = 1;

	if (!current_traced())
		return 0;
	m = misc_get();
	s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL, 0);
	if (s && s->ts) {
		k.nr = (__u16)(s->nr & (PROBE_NR_SYSCALLS - 1));
		k.flags = wait_sc[k.nr] ? PROBE_CPU_IN_WAIT_SC : PROBE_CPU_IN_SYSCALL;
	}
	/* a tick in user mode has no kernel frames, which bpf_get_stackid
	 * says with -EFAULT: the architecture-neutral user-mode test */
	k.stackid = bpf_get_stackid(ctx, &cpu_stacks, 0);
	if (k.stackid == -EFAULT)
		k.flags |= PROBE_CPU_USER;
	if (m) {
		m->cpu_samples++;
		if (k.flags & PROBE_CPU_USER)
			m->cpu_samples_user++;
		else if (k.stackid < 0)
			m->cpu_samples_nostack++;
	}
	if (k.stackid < 0)
		k.stackid = -1; /* one key for every sample without a stack */
	v = bpf_map_lookup_elem(&cpu_samples, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&cpu_samples, &k, &one, BPF_NOEXIST);
	return 0;
}
