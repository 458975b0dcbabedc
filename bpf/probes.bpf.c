// SPDX-License-Identifier: GPL-2.0
/* adaptrm's probes: where a set of processes (and all their descendants)
 * spend their time. Tracepoints only (tp_btf, or raw_tp when BTF-typed
 * attach fails): fentry and kprobes do not work on our kernels, classic
 * tracepoints need tracefs. Every handler asks "is the current tgid traced?"
 * first, so untraced processes pay one hash lookup.
 *
 * Each tracepoint has two programs with one body: btf_NAME (tp_btf/NAME) and
 * raw_NAME (raw_tp/NAME); user space keeps one flavour per group. Bodies read
 * the arguments from the u64 context array and kernel memory with
 * BPF_CORE_READ, which works for both flavours. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bits.bpf.h"
#include "kernel_defs.bpf.h"
#include "maps.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool want_callers = true;

/* Live traced threads and their peak, in .bss so that user space reads them
 * without a syscall. User space adds the threads that exist at attach time;
 * the peak update is racy (no fetch-and-add results without -mcpu=v3) and
 * may miss a concurrent maximum by one. */
long long live_threads;
long long peak_threads;

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
	__u32 rmdir;
	__u64 last_ino;		/* the inode this thread's last ext4 unlink removed */
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
struct lock_wait { __u64 ts, lock; __u32 flags; __s32 stackid; };
struct lock_slots { struct lock_wait sleep, spin; };
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct lock_slots);
} lock_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 2048);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROBE_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct probe_caller_key);
	__type(value, struct probe_caller_val);
} callers SEC(".maps");

struct offcpu { __u64 ts; __u32 state; __u32 pad; };
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct offcpu);
} offcpu_start SEC(".maps");

/* Per-thread start times of filesystem waits, keyed by tid and kind. */
enum { FS_EXT4_UNLINK = 1, FS_XFS_GRANT = 2 };
struct fs_key { __u32 tid, kind; };
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_THREADS);
	__type(key, struct fs_key);
	__type(value, __u64);
} fs_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, __u64);
} bio_start SEC(".maps");

static __always_inline bool traced(__u32 tgid)
{
	return bpf_map_lookup_elem(&tgids, &tgid) != NULL;
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
		if (bpf_map_update_elem(&tgids, &ctgid, &one, BPF_NOEXIST) == 0 && m)
			__sync_fetch_and_add(&m->tgids_delta, 1);
	}
	if (m) {
		__sync_fetch_and_add(&m->threads_delta, 1);
		__sync_fetch_and_add(&m->forks, 1);
	}
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
	bpf_map_delete_elem(&lock_start, &tid);
	bpf_map_delete_elem(&offcpu_start, &tid);
	m = misc_get();
	if (m)
		__sync_fetch_and_add(&m->threads_delta, -1);
	__sync_fetch_and_add(&live_threads, -1);
	if (group_dead) {
		bpf_map_delete_elem(&tgids, &tgid);
		if (m)
			__sync_fetch_and_add(&m->tgids_delta, -1);
	}
	return 0;
}

SEC("tp_btf/sched_process_fork") int btf_sched_process_fork(__u64 *ctx) { return do_fork(ctx); }
SEC("raw_tp/sched_process_fork") int raw_sched_process_fork(__u64 *ctx) { return do_fork(ctx); }
SEC("tp_btf/sched_process_exit") int btf_sched_process_exit(__u64 *ctx) { return do_exit(ctx); }
SEC("raw_tp/sched_process_exit") int raw_sched_process_exit(__u64 *ctx) { return do_exit(ctx); }

/* ---- syscalls ---- */

static __always_inline int do_sys_enter(__u64 *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pt_regs *regs = (void *)ctx[0];
	long nr = (long)ctx[1];
	struct sc_start *s;

	/* A thread with storage is traced (it is created only below, after
	 * the tgid check): one lookup per syscall, not a hash and a lookup. */
	s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL, 0);
	if (!s) {
		if (!traced(id >> 32))
			return 0;
		s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!s) {
			count_lost();
			return 0;
		}
	}
	s->nr = (__u32)nr;
	s->rmdir = 0;
	if (nr == PROBE_NR_UNLINKAT)	/* unlinkat(dirfd, path, flags) */
		s->rmdir = (PT_REGS_PARM3_CORE_SYSCALL(regs) & AT_REMOVEDIR) != 0;
	s->ts = bpf_ktime_get_ns();
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
		return 0;	/* entered before tracing started */
	now = bpf_ktime_get_ns();
	delta = now - s->ts;
	s->ts = 0;
	nr = s->nr;
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
	} else if (nr == PROBE_NR_UNLINKAT && s->rmdir) {
		struct probe_misc *m = misc_get();

		if (m)
			hist_add(&m->unlinkat_dir, delta);
	}
	return 0;
}

SEC("tp_btf/sys_enter") int btf_sys_enter(__u64 *ctx) { return do_sys_enter(ctx); }
SEC("raw_tp/sys_enter") int raw_sys_enter(__u64 *ctx) { return do_sys_enter(ctx); }
SEC("tp_btf/sys_exit") int btf_sys_exit(__u64 *ctx) { return do_sys_exit(ctx); }
SEC("raw_tp/sys_exit") int raw_sys_exit(__u64 *ctx) { return do_sys_exit(ctx); }

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
	w->stackid = want_callers && !is_spin(flags) ? bpf_get_stackid(ctx, &stacks, 0) : -1;
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

SEC("tp_btf/contention_begin") int btf_contention_begin(__u64 *ctx) { return do_contention_begin(ctx); }
SEC("raw_tp/contention_begin") int raw_contention_begin(__u64 *ctx) { return do_contention_begin(ctx); }
SEC("tp_btf/contention_end") int btf_contention_end(__u64 *ctx) { return do_contention_end(ctx); }
SEC("raw_tp/contention_end") int raw_contention_end(__u64 *ctx) { return do_contention_end(ctx); }

/* ---- off-CPU ---- */

static __always_inline int do_sched_switch(__u64 *ctx)
{
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];
	__u32 state = (__u32)ctx[3];
	__u32 ptid = BPF_CORE_READ(prev, pid), ntid;
	struct offcpu *o, init = {};
	__u64 now = 0;

	if (ptid && traced(BPF_CORE_READ(prev, tgid))) {
		now = bpf_ktime_get_ns();
		o = bpf_map_lookup_or_try_init(&offcpu_start, &ptid, &init);
		if (o) {
			o->ts = now;
			o->state = state;
		} else {
			count_lost();
		}
	}
	ntid = BPF_CORE_READ(next, pid);
	if (ntid && traced(BPF_CORE_READ(next, tgid))) {
		struct probe_misc *m;
		int kind;

		o = bpf_map_lookup_elem(&offcpu_start, &ntid);
		if (!o || !o->ts)
			return 0;
		if (!now)
			now = bpf_ktime_get_ns();
		if (o->state & TASK_UNINTERRUPTIBLE)		/* D */
			kind = PROBE_OFFCPU_BLOCKED;
		else if (o->state & TASK_INTERRUPTIBLE)		/* S */
			kind = PROBE_OFFCPU_SLEEPING;
		else if (o->state == TASK_RUNNING)		/* preempted */
			kind = PROBE_OFFCPU_PREEMPTED;
		else
			kind = -1;
		m = misc_get();
		if (m && kind >= 0 && kind < PROBE_OFFCPU_KINDS)
			hist_add(&m->offcpu[kind], now - o->ts);
		o->ts = 0;
	}
	return 0;
}

SEC("tp_btf/sched_switch") int btf_sched_switch(__u64 *ctx) { return do_sched_switch(ctx); }
SEC("raw_tp/sched_switch") int raw_sched_switch(__u64 *ctx) { return do_sched_switch(ctx); }

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

static __always_inline int do_ext4_free_blocks(__u64 *ctx)
{
	struct probe_misc *m;

	if (!current_traced() || !(m = misc_get()))
		return 0;
	__sync_fetch_and_add(&m->ext4_free_calls, 1);
	__sync_fetch_and_add(&m->ext4_freed_blocks, ctx[2]);
	return 0;
}

/* Discards are issued from the journal commit, not by the traced process. */
static __always_inline int do_ext4_discard_blocks(__u64 *ctx)
{
	struct probe_misc *m = misc_get();

	if (m) {
		__sync_fetch_and_add(&m->ext4_discards, 1);
		__sync_fetch_and_add(&m->ext4_discard_blocks, ctx[2]);
	}
	return 0;
}

/* How far apart the inodes are that a thread unlinks one after the other:
 * far jumps mean that every unlink dirties another inode-table block and
 * bitmap (a big ext4 directory deleted in readdir, i.e. hash, order, as rmz
 * does, against GNU rm's inode order). */
static __always_inline int do_ext4_unlink_enter(__u64 *ctx)
{
	struct dentry *dentry = (void *)ctx[1];
	struct probe_misc *m;
	struct sc_start *s;
	__u64 ino;

	fs_begin(FS_EXT4_UNLINK);
	/* only traced threads have syscall storage */
	s = bpf_task_storage_get(&sc_start, bpf_get_current_task_btf(), NULL, 0);
	if (!s)
		return 0;
	ino = BPF_CORE_READ(dentry, d_inode, i_ino);
	if (s->last_ino && ino && (m = misc_get()))
		hist_add(&m->ext4_ino_jump, ino > s->last_ino ? ino - s->last_ino : s->last_ino - ino);
	s->last_ino = ino;
	return 0;
}

SEC("tp_btf/ext4_unlink_enter") int btf_ext4_unlink_enter(__u64 *ctx) { return do_ext4_unlink_enter(ctx); }
SEC("raw_tp/ext4_unlink_enter") int raw_ext4_unlink_enter(__u64 *ctx) { return do_ext4_unlink_enter(ctx); }
SEC("tp_btf/ext4_unlink_exit") int btf_ext4_unlink_exit(__u64 *ctx) { return do_ext4_unlink_exit(ctx); }
SEC("raw_tp/ext4_unlink_exit") int raw_ext4_unlink_exit(__u64 *ctx) { return do_ext4_unlink_exit(ctx); }
SEC("tp_btf/ext4_free_blocks") int btf_ext4_free_blocks(__u64 *ctx) { return do_ext4_free_blocks(ctx); }
SEC("raw_tp/ext4_free_blocks") int raw_ext4_free_blocks(__u64 *ctx) { return do_ext4_free_blocks(ctx); }
SEC("tp_btf/ext4_discard_blocks") int btf_ext4_discard_blocks(__u64 *ctx) { return do_ext4_discard_blocks(ctx); }
SEC("raw_tp/ext4_discard_blocks") int raw_ext4_discard_blocks(__u64 *ctx) { return do_ext4_discard_blocks(ctx); }

/* jbd2 commits run in the journal thread: count all of them while tracing. */
static __always_inline int do_jbd2_run_stats(__u64 *ctx)
{
	struct transaction_run_stats_s *rs = (void *)ctx[2];
	struct probe_misc *m = misc_get();

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

SEC("tp_btf/jbd2_run_stats") int btf_jbd2_run_stats(__u64 *ctx) { return do_jbd2_run_stats(ctx); }
SEC("raw_tp/jbd2_run_stats") int raw_jbd2_run_stats(__u64 *ctx) { return do_jbd2_run_stats(ctx); }

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

SEC("tp_btf/xfs_log_grant_sleep") int btf_xfs_log_grant_sleep(__u64 *ctx) { return fs_begin(FS_XFS_GRANT); }
SEC("raw_tp/xfs_log_grant_sleep") int raw_xfs_log_grant_sleep(__u64 *ctx) { return fs_begin(FS_XFS_GRANT); }
SEC("tp_btf/xfs_log_grant_wake") int btf_xfs_log_grant_wake(__u64 *ctx) { return do_xfs_grant_wake(ctx); }
SEC("raw_tp/xfs_log_grant_wake") int raw_xfs_log_grant_wake(__u64 *ctx) { return do_xfs_grant_wake(ctx); }
SEC("tp_btf/xfs_inodegc_throttle") int btf_xfs_inodegc_throttle(__u64 *ctx) { return do_xfs_inodegc_throttle(ctx); }
SEC("raw_tp/xfs_inodegc_throttle") int raw_xfs_inodegc_throttle(__u64 *ctx) { return do_xfs_inodegc_throttle(ctx); }

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
	if (tree_lock)
		hist_add(&m->btrfs_tree_lock, now - start_ns);
	else
		hist_add(&m->btrfs_reserve, now - start_ns);
	return 0;
}

SEC("tp_btf/btrfs_tree_lock") int btf_btrfs_tree_lock(__u64 *ctx) { return btrfs_wait(ctx[1], true); }
SEC("raw_tp/btrfs_tree_lock") int raw_btrfs_tree_lock(__u64 *ctx) { return btrfs_wait(ctx[1], true); }
SEC("tp_btf/btrfs_reserve_ticket") int btf_btrfs_reserve_ticket(__u64 *ctx) { return btrfs_wait(ctx[3], false); }
SEC("raw_tp/btrfs_reserve_ticket") int raw_btrfs_reserve_ticket(__u64 *ctx) { return btrfs_wait(ctx[3], false); }

/* ---- block layer (all devices while tracing: completions run in irq) ---- */

static __always_inline int do_rq_issue(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];
	__u64 key = ctx[0], now = bpf_ktime_get_ns();
	struct probe_misc *m = misc_get();
	__u32 op = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK;
	__u32 bytes = BPF_CORE_READ(rq, __data_len);

	if (m) {
		__sync_fetch_and_add(&m->bio_bytes, bytes);
		/* the value from the running kernel's BTF, not vmlinux.h's */
		if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD)) {
			__sync_fetch_and_add(&m->bio_discards, 1);
			__sync_fetch_and_add(&m->bio_discard_bytes, bytes);
		}
	}
	bpf_map_update_elem(&bio_start, &key, &now, BPF_ANY);
	return 0;
}

static __always_inline int do_rq_complete(__u64 *ctx)
{
	__u64 key = ctx[0], *ts;
	struct probe_misc *m;

	ts = bpf_map_lookup_elem(&bio_start, &key);
	if (!ts)
		return 0;
	m = misc_get();
	if (m)
		hist_add(&m->bio_lat, bpf_ktime_get_ns() - *ts);
	bpf_map_delete_elem(&bio_start, &key);
	return 0;
}

SEC("tp_btf/block_rq_issue") int btf_block_rq_issue(__u64 *ctx) { return do_rq_issue(ctx); }
SEC("raw_tp/block_rq_issue") int raw_block_rq_issue(__u64 *ctx) { return do_rq_issue(ctx); }
SEC("tp_btf/block_rq_complete") int btf_block_rq_complete(__u64 *ctx) { return do_rq_complete(ctx); }
SEC("raw_tp/block_rq_complete") int raw_block_rq_complete(__u64 *ctx) { return do_rq_complete(ctx); }
