// SPDX-License-Identifier: GPL-3.0-or-later
/* The general layer of the --trace verdict: every thread-second in a state
 * (trace/states.c), each wait's waker and each run-queue wait's holder
 * (trace/wakers.c), the kernel subsystem of every site (probes/subsys.c,
 * trace/subsys.c), and other load ranked as context. Synthetic traces, one
 * per rule, then the property on random ones: every wait has a waker class
 * and no share is lost. */
#include <criterion/criterion.h>
#include "probes/hist.h"
#include "probes/subsys.h"
#include "trace/findings.h"
#include "trace/result.h"
#include "trace/states.h"
#include "trace/verdict.h"
#include "trace/wakers.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#define MS 1000000ull

struct synth {
	struct probe_snapshot *s;
	struct trace_result r;
	struct trace_wait_site sites[16];
	struct trace_waker wakers[64];
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n;
};


/* F's sentence as the report prints it (one of a few buffers, so that
 * an assertion may name two). */
static const char *text_of(const struct trace_finding *f)
{
	static char buf[4][TRACE_FINDING_SENTENCE];
	static int next;
	char *b = buf[next++ % 4];

	trace_finding_sentence(f, b, sizeof buf[0]);
	return b;
}

static struct synth *synth_new(void)
{
	struct synth *x = calloc(1, sizeof *x);
	x->s = calloc(1, sizeof *x->s);
	x->r.mode = "command";
	x->r.total = x->s;
	x->r.max_threads = 1;
	x->r.sites = x->sites;
	x->r.wakers = x->wakers;
	x->r.attached[PROBE_G_OFFCPU] = true;
	return x;
}

static void synth_free(struct synth *x)
{
	free(x->s);
	free(x);
}

static struct probe_waker_id who(int cls, unsigned tgid, const char *comm)
{
	struct probe_waker_id id = { .tgid = tgid, .cls = (unsigned char)cls };
	strncpy(id.comm, comm, sizeof id.comm);
	return id;
}

/* A D wait site inside busy syscalls, of subsystem SS, and its waker. */
static void wait_at(struct synth *x, const char *site, int cause, int ss, uint64_t ns,
		    struct probe_waker_id by)
{
	struct trace_wait_site *w = &x->r.sites[x->r.nsites++];
	snprintf(w->site, sizeof w->site, "%s", site);
	w->cause = cause;
	w->subsys = ss;
	w->state = PROBE_OFFCPU_BLOCKED;
	w->ctx = PROBE_WAIT_IN_SYSCALL;
	w->count = 10;
	w->total_ns = w->blocked_ns = w->in_syscall_ns = w->heaviest_ns = ns;
	hist_add_value(&x->s->misc.offcpu[PROBE_OFFCPU_BLOCKED], ns);
	x->s->sc[SYS_write].lat.total += ns;
	struct trace_waker *k = &x->r.wakers[x->r.nwakers++];
	*k = (struct trace_waker){ .state = PROBE_OFFCPU_BLOCKED,
				   .cause = cause,
				   .subsys = ss,
				   .who = by,
				   .count = 10,
				   .ns = ns };
	snprintf(k->site, sizeof k->site, "%s", site);
}

/* Runnable time held by BY. */
static void held_by(struct synth *x, uint64_t ns, struct probe_waker_id by)
{
	hist_add_value(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], ns);
	x->r.wakers[x->r.nwakers++] = (struct trace_waker){ .state = PROBE_WAKE_HELD,
							    .cause = -1,
							    .subsys = -1,
							    .who = by,
							    .count = 1,
							    .ns = ns };
}

static void on_cpu(struct synth *x, uint64_t sys_ns)
{
	x->r.cpu.have = true;
	x->r.cpu.syscall_ns = sys_ns;
	x->s->misc.oncpu_ns = sys_ns;
	x->s->sc[SYS_write].lat.total += sys_ns;
}

/* The verdict's whole time and the helpers' waits, from one computed verdict. */
static double whole_ns(const struct trace_result *r)
{
	struct trace_verdict v;
	trace_verdict_compute(r, &v);
	return v.whole_ns;
}

static double helper_ns(const struct trace_result *r)
{
	struct trace_verdict v;
	trace_verdict_compute(r, &v);
	return v.helper_ns;
}

static const struct trace_finding *first(struct synth *x)
{
	x->n = trace_findings(&x->r, x->f, TRACE_MAX_FINDINGS);
	cr_assert_gt(x->n, 0);
	cr_assert_float_eq(trace_findings_total(x->f, x->n), 1.0, 1e-9);
	return &x->f[0];
}

static bool has(const struct synth *x, const char *id)
{
	for (int i = 0; i < x->n; i++)
		if (!strcmp(x->f[i].id, id))
			return true;
	return false;
}

Test(subsys, families_name_the_subsystem)
{
	const char *fs;
	cr_assert_eq(subsys_of_frame("audit_log_start+0x129", NULL), SS_AUDIT);
	cr_assert_eq(subsys_of_frame("__audit_syscall_exit", NULL), SS_AUDIT);
	cr_assert_eq(subsys_of_frame("mnt_want_write+0x3c", NULL), SS_FREEZE);
	cr_assert_eq(subsys_of_frame("fsnotify+0x10", NULL), SS_NOTIFY);
	cr_assert_eq(subsys_of_frame("security_inode_unlink", NULL), SS_SECURITY);
	cr_assert_eq(subsys_of_frame("ext4_unlink+0x10", &fs), SS_FS);
	cr_assert_str_eq(fs, "ext4");
	cr_assert_eq(subsys_of_frame("xlog_grant_head_wait", &fs), SS_FS);
	cr_assert_str_eq(fs, "xfs");
	cr_assert_eq(subsys_of_frame("no_such_function_anywhere", NULL), SS_KERNEL);
	for (int ss = 0; ss < SS_COUNT; ss++) {
		cr_assert(*subsys_name(ss) && *subsys_confirm(ss) && *subsys_remedy(ss), "%s",
			  subsys_id(ss));
		cr_assert_str_neq(subsys_id(ss), "?");
	}
}

/* A frame of a subsystem other than the delete's own wins from anywhere
 * (audit's work on the way out of unlinkat); else the first frame past the
 * scheduler and lock primitives decides. */
Test(subsys, stacks_are_owned_by_the_meeting_subsystem)
{
	const char *audit[] = { "vsnprintf",	     "audit_log_format",
				"audit_log_exit",    "__audit_syscall_exit",
				"syscall_exit_work", "do_syscall_64" };
	const char *frozen[] = { "__schedule",	       "schedule",	 "percpu_rwsem_wait",
				 "__percpu_down_read", "mnt_want_write", "do_unlinkat" };
	const char *dirlock[] = { "__schedule", "schedule",    "rwsem_down_write_slowpath",
				  "down_write", "do_unlinkat", "__x64_sys_unlinkat" };
	int at;

	cr_assert_eq(subsys_of_stack(audit, 6, &at, NULL), SS_AUDIT);
	cr_assert_eq(at, 1);
	cr_assert_eq(subsys_of_stack(frozen, 6, &at, NULL), SS_FREEZE);
	cr_assert_eq(subsys_of_stack(dirlock, 6, &at, NULL), SS_VFS);
	cr_assert_eq(at, 4);
	cr_assert_eq(subsys_of_stack(NULL, 0, &at, NULL), SS_KERNEL);
	cr_assert_eq(at, -1);
}

/* Audit's waits (the backlog full) and the daemon that answers them: the
 * first finding, with the waker, its own waker, the command and the remedy;
 * the run-queue wait behind the daemon is audit's, not other load. */
Test(wakers, audit_backlog_names_the_daemon)
{
	struct synth *x = synth_new();
	struct probe_waker_id kauditd = who(PROBE_WAKER_KTHREAD, 30, "kauditd");
	on_cpu(x, 300 * MS);
	wait_at(x, "audit_log_start+0x129", TC_OTHER, SS_AUDIT, 2000 * MS, kauditd);
	x->r.wakers[0].via = who(PROBE_WAKER_PROCESS, 812, "auditd");
	held_by(x, 400 * MS, who(PROBE_WAKER_PROCESS, 812, "auditd"));
	const struct trace_finding *f = first(x);
	cr_assert_str_eq(f->id, "audit");
	cr_assert(strstr(text_of(f), "kauditd (a kernel thread)") &&
			  strstr(text_of(f), "itself woken by auditd (pid 812)") &&
			  strstr(f->confirm, "auditctl -s") && *f->remedy &&
			  strstr(text_of(f), f->remedy),
		  "%s", text_of(f));
	cr_assert_float_eq(f->share, 2400.0 / 2700, 1e-9);
	cr_assert(!has(x, "other_waits") && !has(x, "cpu_contention"));
	synth_free(x);
}

/* A frozen filesystem's writers wait on a per-CPU rwsem: a state of the
 * filesystem, not contention between threads. */
Test(wakers, frozen_filesystem_is_no_lock_contention)
{
	struct synth *x = synth_new();
	on_cpu(x, 100 * MS);
	wait_at(x, "mnt_want_write+0x3c", TC_LOCK, SS_FREEZE, 3000 * MS,
		who(PROBE_WAKER_PROCESS, 77, "fsfreeze"));
	x->r.sites[0].lock = "pcpu-sem";
	const struct trace_finding *f = first(x);
	cr_assert_str_eq(f->id, "frozen_filesystem");
	cr_assert(strstr(text_of(f), "fsfreeze --unfreeze") && strstr(text_of(f), "fsfreeze (pid 77)"),
		  "%s", text_of(f));
	cr_assert(!has(x, "lock_contention"));
	synth_free(x);
}

/* A stop by SIGSTOP is job control, not a tracer. */
Test(wakers, signal_stop_is_not_a_tracer)
{
	struct synth *x = synth_new();
	on_cpu(x, 600 * MS);
	x->s->misc.state_ns[PROBE_XSTATE_SIGNAL_STOP] = 2000 * MS;
	x->s->misc.state_count[PROBE_XSTATE_SIGNAL_STOP] = 1;
	x->s->misc.stopped_ns = 2000 * MS;
	x->s->misc.stops = 1;
	x->wakers[x->r.nwakers++] =
		(struct trace_waker){ .state = PROBE_WAKE_XSTATE + PROBE_XSTATE_SIGNAL_STOP,
				      .cause = -1,
				      .subsys = -1,
				      .who = who(PROBE_WAKER_PROCESS, 55, "bash"),
				      .count = 1,
				      .ns = 2000 * MS };
	const struct trace_finding *f = first(x);
	cr_assert_str_eq(f->id, "signal_stop");
	cr_assert(strstr(text_of(f), "kill -CONT") && strstr(text_of(f), "bash (pid 55)"), "%s",
		  text_of(f));
	cr_assert(!has(x, "ptrace_stops"));
	synth_free(x);
}

/* What the threads' lifetimes hold beyond every state is shown, never
 * dropped. */
Test(wakers, time_in_no_state_is_not_accounted)
{
	struct synth *x = synth_new();
	on_cpu(x, 600 * MS);
	x->s->life_ns = 3000 * MS;
	const struct trace_finding *f = first(x);
	cr_assert_str_eq(f->id, "not_accounted");
	cr_assert_float_eq(f->share, 0.8, 1e-9);
	cr_assert_float_eq(whole_ns(&x->r), 3000.0 * MS, 1);
	struct trace_states st;
	trace_states_of(&x->r, &st);
	cr_assert_float_eq(st.not_accounted, 2400.0 * MS, 1);
	synth_free(x);
}

/* A thread already waiting when the probes attached (-p) was off CPU in a
 * state they did not see begin: counted, ranked with what is not a cause. */
Test(wakers, off_cpu_before_tracing_is_no_cause)
{
	struct synth *x = synth_new();
	on_cpu(x, 600 * MS);
	x->s->misc.pretrace_ns = 900 * MS;
	x->s->misc.pretrace_count = 1;
	x->s->life_ns = 1500 * MS;
	x->n = trace_findings(&x->r, x->f, TRACE_MAX_FINDINGS);
	cr_assert_str_neq(x->f[0].id, "before_trace");
	cr_assert_str_eq(x->f[x->n - 1].id, "before_trace");
	cr_assert(!x->f[x->n - 1].cause);
	cr_assert_float_eq(x->f[x->n - 1].share, 0.6, 1e-9);
	cr_assert(!has(x, "not_accounted"));
	synth_free(x);
}

/* A lock's releaser wakes its waiter: the directory lock names the holder. */
Test(wakers, directory_lock_names_the_holder)
{
	struct synth *x = synth_new();
	on_cpu(x, 200 * MS);
	wait_at(x, "do_unlinkat+0x1a0", TC_DIR_LOCK, SS_VFS, 900 * MS,
		who(PROBE_WAKER_PROCESS, 4242, "ls"));
	const struct trace_finding *f = first(x);
	cr_assert_str_eq(f->id, "directory_lock_contention");
	cr_assert(strstr(text_of(f), "ended by ls (pid 4242)"), "%s", text_of(f));
	synth_free(x);
}

/* Other load is context: after a cause of the delete's own unless it is
 * most of the time and nothing of the delete's explains the rest. */
Test(wakers, other_load_ranks_as_context)
{
	struct synth *x = synth_new();
	on_cpu(x, 300 * MS);
	wait_at(x, "do_unlinkat+0x1a0", TC_DIR_LOCK, SS_VFS, 300 * MS,
		who(PROBE_WAKER_PROCESS, 4242, "ls"));
	held_by(x, 400 * MS, who(PROBE_WAKER_PROCESS, 99, "stress"));
	const struct trace_finding *f = first(x);
	cr_assert_str_eq(f->id, "directory_lock_contention");
	cr_assert(has(x, "cpu_contention"));
	for (int i = 0; i < x->n; i++)
		if (!strcmp(x->f[i].id, "cpu_contention"))
			cr_assert(strstr(text_of(&x->f[i]), "stress (pid 99)") &&
					  strstr(text_of(&x->f[i]), "on a quiet machine"),
				  "%s", text_of(&x->f[i]));
	synth_free(x);

	x = synth_new();
	on_cpu(x, 200 * MS);
	held_by(x, 800 * MS, who(PROBE_WAKER_PROCESS, 99, "stress"));
	cr_assert_str_eq(first(x)->id, "cpu_contention");
	synth_free(x);
}

/* A lone thread under a small quota beside other load waits behind the
 * load (the holders say so), not behind itself. */
Test(wakers, a_lone_thread_waits_behind_the_holders)
{
	struct synth *x = synth_new();
	x->r.wall_ns = 3000 * MS;
	x->r.limits.cpu_quota = 0.2;
	on_cpu(x, 600 * MS);
	held_by(x, 2200 * MS, who(PROBE_WAKER_PROCESS, 31, "sim1"));
	first(x);
	cr_assert(!has(x, "cpu_oversubscription"));
	cr_assert(has(x, "cpu_contention"));
	synth_free(x);
}

static uint64_t rnd(unsigned *seed, uint64_t n)
{
	*seed = *seed * 1103515245u + 12345u;
	uint64_t v = ((uint64_t)(*seed >> 8) << 24) ^ (*seed & 0xffffff);
	return n ? v % n : 0;
}

/* The property: on random traces every wait's waker has a class, the
 * wakers' sums lose no time, the states add up to the lifetime with what
 * is not accounted, and the verdict's shares sum to 1. */
Test(wakers, random_traces_lose_no_share)
{
	static const int causes[] = { TC_OTHER, TC_LOCK, TC_DIR_LOCK, TC_META_READ, TC_JOURNAL };
	unsigned seed = 40;

	for (int iter = 0; iter < 2000; iter++) {
		struct synth *x = synth_new();
		double waits = 0, held = 0;

		x->r.wall_ns = 1 + rnd(&seed, 5000 * MS);
		x->r.max_threads = 1 + (uint32_t)rnd(&seed, 8);
		if (rnd(&seed, 2))
			on_cpu(x, rnd(&seed, 900 * MS));
		for (int i = (int)rnd(&seed, 10); i > 0; i--) {
			uint64_t ns = rnd(&seed, 700 * MS);
			int ss = (int)rnd(&seed, SS_COUNT + 1) - 1;
			struct probe_waker_id by = who((int)rnd(&seed, PROBE_WAKER_CLASSES),
						       (unsigned)rnd(&seed, 5), "w");
			wait_at(x, "f+0x1", causes[rnd(&seed, 5)], ss, ns, by);
			if (rnd(&seed, 2))
				x->r.wakers[x->r.nwakers - 1].via = who(PROBE_WAKER_HARDIRQ, 0, "");
			waits += (double)ns;
		}
		for (int i = (int)rnd(&seed, 4); i > 0; i--) {
			uint64_t ns = rnd(&seed, 400 * MS);
			held_by(x, ns,
				who((int)rnd(&seed, PROBE_WAKER_CLASSES), (unsigned)rnd(&seed, 5),
				    "h"));
			held += (double)ns;
		}
		for (int k = 0; k < PROBE_XSTATE_COUNT; k++)
			x->s->misc.state_ns[k] = rnd(&seed, 3) ? 0 : rnd(&seed, 900 * MS);
		for (int k = 0; k < SS_COUNT; k++)
			x->r.cpu.ss_sys[k] = rnd(&seed, 4) ? 0 : rnd(&seed, 100);
		x->r.cpu.samples_sys[TCPU_UNLINK] = rnd(&seed, 100);
		struct trace_states st;
		trace_states_of(&x->r, &st);
		x->s->life_ns = (uint64_t)st.accounted + (rnd(&seed, 2) ? rnd(&seed, 500 * MS) : 0);

		for (int i = 0; i < x->r.nwakers; i++) {
			cr_assert_lt(x->r.wakers[i].who.cls, PROBE_WAKER_CLASSES);
			cr_assert_str_neq(trace_waker_class_id(x->r.wakers[i].who.cls), "?");
			char b[96];
			cr_assert(*trace_waker_name(&x->r.wakers[i].who, b, sizeof b));
		}
		struct trace_waker_sum sum[64];
		double tw, th, got = 0;
		int n = trace_wakers_by_who(&x->r, NULL, NULL, sum, 64, &tw);
		for (int i = 0; i < n; i++)
			got += sum[i].ns;
		cr_assert_float_eq(tw, waits, 1);
		cr_assert_float_eq(got, waits, 1);
		trace_wakers_by_who(&x->r, trace_waker_held, NULL, sum, 64, &th);
		cr_assert_float_eq(th, held, 1);

		trace_states_of(&x->r, &st);
		cr_assert_float_eq(st.accounted + st.not_accounted,
				   st.life > st.accounted ? st.life : st.accounted, 1);
		x->n = trace_findings(&x->r, x->f, TRACE_MAX_FINDINGS);
		if (x->n) {
			cr_assert_float_eq(trace_findings_total(x->f, x->n), 1.0, 1e-9);
			/* each finding in its words, the subsystems' and the states'
			 * included, and its sentence holding its remedy */
			for (int i = 0; i < x->n; i++)
				cr_assert(*x->f[i].title && *x->f[i].evidence && *x->f[i].remedy &&
						  strstr(text_of(&x->f[i]), x->f[i].remedy),
					  "%s: %s", x->f[i].id, text_of(&x->f[i]));
			double whole = whole_ns(&x->r);
			cr_assert_geq(whole + 1, st.life - helper_ns(&x->r));
		}
		synth_free(x);
	}
}
