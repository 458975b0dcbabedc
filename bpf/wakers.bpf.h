// SPDX-License-Identifier: GPL-2.0-or-later
/* Who ended each off-CPU wait of a traced thread, and who held the CPU it
 * then waited for: the general mechanism under the verdict's catalogue. The
 * waker is the current context at sched_waking (sched_wakeup may run later
 * on the target CPU under the idle task): a traced thread, another process,
 * a kernel thread or kworker (by its workqueue), an interrupt or a softirq.
 * An untraced waker is watched from then on, so that its own waker (a
 * daemon woken by the disk's interrupt, or by another daemon) is known one
 * step up the chain. Included by probes.bpf.c after its maps. */
#ifndef ADAPTRM_WAKERS_BPF_H
#define ADAPTRM_WAKERS_BPF_H

/* Whether this CPU runs an interrupt handler or a softirq now: counted
 * at their tracepoints' entries and exits (the preempt count, which says
 * it directly, is a per-CPU variable that kallsyms may not name). A
 * wake-up from there is the interrupt's, not the interrupted task's. */
struct irq_depth {
	__u32 hard, soft;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_depth);
} irq_depth SEC(".maps");

static __always_inline int irq_enter_exit(bool hard, int d)
{
	__u32 zero = 0;
	struct irq_depth *q = bpf_map_lookup_elem(&irq_depth, &zero);

	if (!q)
		return 0;
	__u32 *v = hard ? &q->hard : &q->soft;
	if (d > 0 || *v > 0)
		*v += d;
	return 0;
}
TP_BOTH(irq_handler_entry, irq_enter_exit(true, 1))
TP_BOTH(irq_handler_exit, irq_enter_exit(true, -1))
TP_BOTH(hrtimer_expire_entry, irq_enter_exit(true, 1))
TP_BOTH(hrtimer_expire_exit, irq_enter_exit(true, -1))
TP_BOTH(softirq_entry, irq_enter_exit(false, 1))
TP_BOTH(softirq_exit, irq_enter_exit(false, -1))

/* The waker class and name of task T (not in an interrupt). */
static __always_inline void task_id(struct task_struct *t, struct probe_waker_id *id)
{
	__u32 pid = BPF_CORE_READ(t, pid);

	id->tgid = BPF_CORE_READ(t, tgid);
	bpf_probe_read_kernel(id->comm, sizeof id->comm, &t->comm);
	if (!pid) {
		id->cls = PROBE_WAKER_IDLE;
		id->tgid = 0;
	} else if (traced(id->tgid)) {
		id->cls = PROBE_WAKER_TRACED;
	} else if (!(BPF_CORE_READ(t, flags) & PF_KTHREAD)) {
		id->cls = PROBE_WAKER_PROCESS;
	} else if (starts(id->comm, "kworker/", 8)) {
		/* a kworker is anonymous: its work item's workqueue names it */
		struct kthread *k = BPF_CORE_READ(t, worker_private);
		struct worker *w = k ? BPF_CORE_READ(k, data) : NULL;
		struct pool_workqueue *pwq = w ? BPF_CORE_READ(w, current_pwq) : NULL;
		struct workqueue_struct *wq = pwq ? BPF_CORE_READ(pwq, wq) : NULL;

		/* between work items it is a plain kernel thread */
		id->cls = PROBE_WAKER_KTHREAD;
		if (wq && !bpf_probe_read_kernel(id->comm, sizeof id->comm - 1, &wq->name))
			id->cls = PROBE_WAKER_WORKQUEUE;
	} else {
		id->cls = PROBE_WAKER_KTHREAD;
	}
}

/* The current context as a waker. */
static __always_inline void current_id(struct probe_waker_id *id)
{
	__u32 zero = 0;
	struct irq_depth *q = bpf_map_lookup_elem(&irq_depth, &zero);

	if (q && q->hard) {
		id->cls = PROBE_WAKER_HARDIRQ;
		id->tgid = 0;
		return;
	}
	if (q && q->soft) {
		id->cls = PROBE_WAKER_SOFTIRQ;
		id->tgid = 0;
		return;
	}
	task_id((void *)bpf_get_current_task(), id);
}

/* Untraced tasks that woke a traced thread, and each one's own last waker. */
#define WATCH_FILTER 65536
__u8 watch_maybe[WATCH_FILTER];
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct probe_waker_id);
} watched SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROBE_MAX_WAKERS);
	__type(key, struct probe_waker_key);
	__type(value, struct probe_waker_val);
} wakers SEC(".maps");

/* NS of a wait at STACKID in STATE, ended by WHO (whose own waker was VIA). */
static __always_inline void wakers_add(int stackid, __u8 state, const struct probe_waker_id *who,
				       const struct probe_waker_id *via, __u64 ns)
{
	struct probe_waker_key k = { .stackid = stackid, .state = state };
	struct probe_waker_val *v, zero = {};

	k.who = *who;
	k.via = *via;
	v = bpf_map_lookup_or_try_init(&wakers, &k, &zero);
	if (v) {
		__sync_fetch_and_add(&v->count, 1);
		__sync_fetch_and_add(&v->ns, ns);
	} else {
		struct probe_misc *m = misc_get();
		if (m)
			__sync_fetch_and_add(&m->wakers_lost, 1);
	}
}

/* Task P is being woken by the current context. A traced thread's wait
 * gets its waker (the first wake-up of the wait counts); a watched task's
 * waker is kept for the chain. */
static __always_inline int do_sched_waking(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 tid = BPF_CORE_READ(p, pid);
	struct probe_waker_id *w;
	struct offcpu *o;

	if (!tid)
		return 0;
	if (!traced(BPF_CORE_READ(p, tgid))) {
		if (!watch_maybe[tid & (WATCH_FILTER - 1)])
			return 0;
		w = bpf_map_lookup_elem(&watched, &tid);
		if (w)
			current_id(w);
		return 0;
	}
	o = bpf_map_lookup_elem(&offcpu_start, &tid);
	if (!o || !o->ts || o->who.cls != PROBE_WAKER_NONE)
		return 0;
	current_id(&o->who);
	if (o->who.cls < PROBE_WAKER_PROCESS || o->who.cls > PROBE_WAKER_WORKQUEUE)
		return 0;
	__u32 me = (__u32)bpf_get_current_pid_tgid();
	w = bpf_map_lookup_elem(&watched, &me);
	if (w) {
		o->via = *w;
	} else {
		struct probe_waker_id none = {};

		watch_maybe[me & (WATCH_FILTER - 1)] = 1;
		bpf_map_update_elem(&watched, &me, &none, BPF_NOEXIST);
	}
	return 0;
}

#endif
