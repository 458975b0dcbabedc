// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace verdict (trace/findings.c) and the wait-site classification
 * (trace/waits.c, probes/waitclass.c). The verdict partitions the traced
 * threads' whole time into parts and each catalogue entry claims its parts:
 * one synthetic trace per entry, built so that this entry claims a known
 * part, checks its id, its exact share, its evidence and its remedy, that
 * the shares sum to 1 and the ranking; then the explaining findings, the
 * parts under 1% merged, idle time ranked last, the property on random
 * traces, and known kernel stacks classified and named by kind. */
#include <criterion/criterion.h>
#include "probes/hist.h"
#include "trace/findings.h"
#include "trace/result.h"
#include "trace/verdict.h"
#include "trace/waits.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MS 1000000ull
#define US 1000ull

/* One synthetic trace and its verdict. */
struct synth {
	struct probe_snapshot *s;
	struct trace_result r;
	struct trace_wait_site sites[32];
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n;
};

static struct synth *synth_new(void)
{
	struct synth *x = calloc(1, sizeof *x);
	x->s = calloc(1, sizeof *x->s);
	x->r.mode = "command";
	x->r.total = x->s;
	x->r.max_threads = 1;
	x->r.sites = x->sites;
	return x;
}

static void synth_free(struct synth *x)
{
	free(x->s);
	free(x);
}

static void add_n(struct probe_hist *h, int n, uint64_t value)
{
	for (int i = 0; i < n; i++)
		hist_add_value(h, value);
}

static long cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* Busy syscall time without calls: without on-CPU accounting, what the
 * waits inside busy syscalls leave of it is the kernel's CPU time. */
static void set_busy(struct synth *x, uint64_t ns)
{
	x->s->sc[SYS_write].lat.total += ns;
}

/* On-CPU time measured: kernel time inside syscalls and user time. */
static void set_cpu(struct synth *x, uint64_t sys_ns, uint64_t user_ns)
{
	x->r.cpu.have = true;
	x->r.cpu.syscall_ns = sys_ns;
	x->r.cpu.user_ns = user_ns;
}

/* A D wait site inside busy syscalls (so out of the kernel's CPU time). */
static struct trace_wait_site *site(struct synth *x, const char *name, int cause,
				    const char *detail, uint64_t count, uint64_t ns)
{
	cr_assert_lt(x->r.nsites, (int)(sizeof x->sites / sizeof *x->sites));
	struct trace_wait_site *w = &x->r.sites[x->r.nsites++];
	snprintf(w->site, sizeof w->site, "%s", name);
	w->cause = cause;
	w->detail = detail;
	w->state = PROBE_OFFCPU_BLOCKED;
	w->ctx = PROBE_WAIT_IN_SYSCALL;
	w->count = count;
	w->total_ns = w->blocked_ns = w->in_syscall_ns = w->heaviest_ns = ns;
	w->subsys = -1; /* no frames: the catalogue's alone (subsys_site sets one) */
	x->r.wait_ns[cause] += ns;
	x->r.have_sites = true;
	return w;
}

static struct trace_wait_site *lock_site(struct synth *x, const char *name, int cause,
					 const char *lock, uint64_t count, uint64_t ns)
{
	struct trace_wait_site *w = site(x, name, cause, NULL, count, ns);
	w->lock = lock;
	w->ctx |= PROBE_WAIT_IN_LOCK;
	return w;
}

/* A device of the trace; TRACED: the delete's, DISCARD: mounted with it. */
static struct probe_dev_stat *dev(struct synth *x, uint32_t id, bool traced, bool discard)
{
	struct probe_snapshot *s = x->s;
	s->devs[s->ndevs].dev = id;
	x->r.devs[x->r.ndevs] = (struct trace_dev){ .dev = id, .traced = traced, .discard = discard };
	snprintf(x->r.devs[x->r.ndevs].name, sizeof x->r.devs[0].name, "loop%u", id & 0xff);
	x->r.ndevs++;
	return &s->devs[s->ndevs++].st;
}

static const struct trace_finding *parent_of(const struct synth *x, int i)
{
	for (int j = i - 1; j >= 0; j--)
		if (!x->f[j].explains)
			return &x->f[j];
	return NULL;
}

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

/* What every verdict owes: shares in [0, 1] summing to 1; the causes by
 * share, largest first, then what is not a cause; each explaining finding
 * right after its own, never larger; each finding with its title, evidence
 * and remedy, and a sentence that holds them. */
static void check_verdict(const struct synth *x)
{
	const struct trace_finding *f = x->f;
	const struct trace_finding *last = NULL;

	if (x->n == 0)
		return;
	cr_assert_float_eq(trace_findings_total(f, x->n), 1.0, 1e-9, "total %.12g",
			   trace_findings_total(f, x->n));
	for (int i = 0; i < x->n; i++) {
		cr_assert(f[i].share >= 0 && f[i].share <= 1 + 1e-12, "%s: share %g", f[i].id,
			  f[i].share);
		/* the catalogue's words and the rule's evidence, all in the
		 * sentence the report prints */
		cr_assert(*f[i].title && *f[i].evidence && *f[i].remedy,
			  "%s: title '%s', evidence "
			  "'%s', remedy '%s'",
			  f[i].id, f[i].title, f[i].evidence, f[i].remedy);
		cr_assert(f[i].confirm, "%s", f[i].id);
		const char *text = text_of(&f[i]);
		cr_assert(strstr(text, f[i].remedy) && strstr(text, f[i].evidence), "%s: %s",
			  f[i].id, text);
		if (f[i].explains) {
			const struct trace_finding *p = parent_of(x, i);
			cr_assert(p && !strcmp(p->id, f[i].explains), "%s after %s, explains %s",
				  f[i].id, p ? p->id : "-", f[i].explains);
			cr_assert_leq(f[i].share, p->share + 1e-12, "%s %g above %s %g", f[i].id,
				      f[i].share, p->id, p->share);
			continue;
		}
		/* other load is context and the deleter's own kernel CPU saves
		 * nothing: each placed by its own rule (test_wakers.c) */
		if (!strcmp(f[i].id, "cpu_contention") || !strcmp(f[i].id, "kernel_cpu"))
			continue;
		if (last) {
			cr_assert(last->cause || !f[i].cause, "cause %s after %s", f[i].id, last->id);
			if (last->cause == f[i].cause)
				cr_assert_geq(last->share + 1e-12, f[i].share, "%s %g before %s %g",
					      last->id, last->share, f[i].id, f[i].share);
		}
		last = &f[i];
	}
}

static int verdict(struct synth *x)
{
	struct trace_verdict v;

	x->n = trace_findings(&x->r, x->f, TRACE_MAX_FINDINGS);
	check_verdict(x);
	/* the verdict object holds the same findings, and their total */
	trace_verdict_compute(&x->r, &v);
	cr_assert_eq(v.n, x->n);
	for (int i = 0; i < v.n; i++) {
		cr_assert_str_eq(v.findings[i].id, x->f[i].id);
		cr_assert_float_eq(v.findings[i].share, x->f[i].share, 1e-12);
		cr_assert_str_eq(v.findings[i].evidence, x->f[i].evidence);
		cr_assert_str_eq(v.findings[i].remedy, x->f[i].remedy);
	}
	cr_assert_float_eq(v.total_share, trace_findings_total(x->f, x->n), 1e-12);
	return x->n;
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


static bool has_all(const char *text, va_list ap)
{
	for (const char *p = va_arg(ap, const char *); p; p = va_arg(ap, const char *))
		if (!strstr(text, p))
			return false;
	return true;
}

/* The finding ID whose text has every phrase (NULL-terminated), with SHARE. */
static const struct trace_finding *expect_(const struct synth *x, const char *id, double share, ...)
{
	for (int i = 0; i < x->n; i++) {
		if (strcmp(x->f[i].id, id))
			continue;
		va_list ap;
		va_start(ap, share);
		bool ok = has_all(text_of(&x->f[i]), ap);
		va_end(ap);
		if (!ok)
			continue;
		cr_assert_float_eq(x->f[i].share, share, 1e-9, "%s: share %.12g, expected %.12g",
				   id, x->f[i].share, share);
		return &x->f[i];
	}
	for (int i = 0; i < x->n; i++)
		cr_log_error("%s %.4f %s", x->f[i].id, x->f[i].share, text_of(&x->f[i]));
	cr_assert_fail("no finding %s with the phrases (%d findings)", id, x->n);
	return NULL;
}
#define expect(x, id, share, ...) expect_(x, id, share, __VA_ARGS__, (const char *)NULL)

static bool has(const struct synth *x, const char *id)
{
	for (int i = 0; i < x->n; i++)
		if (!strcmp(x->f[i].id, id))
			return true;
	return false;
}

static int rank_of(const struct synth *x, const char *id)
{
	for (int i = 0; i < x->n; i++)
		if (!strcmp(x->f[i].id, id))
			return i;
	cr_assert_fail("no finding %s", id);
	return -1;
}

/* ---- runnable: CPU quota, traced threads, other tasks ---- */

/* 400 ms preempted in busy syscalls, 300 of them throttled by the quota. */
static void quota_case(struct synth *x, double quota, uint64_t throttled)
{
	set_busy(x, 1000 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 20, 20 * MS);
	x->s->misc.busy_preempt_ns = 400 * MS;
	snprintf(x->r.limits.cpu_cgroup, sizeof x->r.limits.cpu_cgroup,
		 "/sys/fs/cgroup/ci.slice/job.scope");
	x->r.limits.cpu_quota = quota;
	x->r.limits.nr_throttled = 40;
	x->r.limits.throttled_ns = throttled;
}

Test(findings, cpu_quota)
{
	struct synth *x = synth_new();
	quota_case(x, 1.5, 300 * MS);
	cr_assert_eq(verdict(x), 3);
	cr_assert_str_eq(x->f[1].id, "kernel_cpu");
	cr_assert_float_eq(x->f[1].share, 0.6, 1e-9);
	cr_assert_str_eq(x->f[0].id, "cpu_quota");
	expect(x, "cpu_quota", 0.3,
	       "CPU quota: the cgroup /sys/fs/cgroup/ci.slice/job.scope may use 150% of a CPU "
	       "(CFS bandwidth) and throttled the traced threads 40 times for 300.00 ms",
	       "runnable but not allowed to run for 300.00 ms",
	       "Raise or lift the quota (cpu.cfs_quota_us, cpu.max)", "more threads cannot help");
	/* the rest of the preempted time was behind other tasks */
	expect(x, "cpu_contention", 0.1, "runnable for 100.00 ms");
	synth_free(x);
}

/* The throttled time counts at most the time the threads were runnable. */
Test(findings, cpu_quota_capped_at_runnable_time)
{
	struct synth *x = synth_new();
	quota_case(x, 0.5, 900 * MS);
	verdict(x);
	expect(x, "cpu_quota", 0.4, "may use 50% of a CPU",
	       "for 900.00 ms; they were runnable but not allowed to run for 400.00 ms");
	cr_assert(!has(x, "cpu_contention"));
	synth_free(x);
}

/* Throttled time without a quota is not the quota's. */
Test(findings, cpu_quota_needs_a_quota)
{
	struct synth *x = synth_new();
	quota_case(x, 0, 300 * MS);
	verdict(x);
	cr_assert(!has(x, "cpu_quota"));
	expect(x, "cpu_contention", 0.4, "CPU contention");
	synth_free(x);
}

/* A CPU-bound delete that waited WAIT_MS for a CPU over a 500 ms trace on
 * the usable CPUs, OWN_MS of it more than those CPUs could run (the threads'
 * running and runnable time beyond the CPUs' time): busy 500 ms per CPU
 * plus OWN_MS in all. BEHIND_TRACED_MS: the waits the run-queue probe saw
 * end when a traced thread left the CPU. */
static void cpu_wait_case(struct synth *x, uint32_t threads, uint64_t wait_ms, uint64_t own_ms,
			  uint64_t behind_traced_ms)
{
	set_busy(x, (500 * (uint64_t)cpus() + own_ms) * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 10, wait_ms / 10 * MS);
	x->s->misc.busy_preempt_ns = wait_ms * MS;
	x->s->misc.runq_traced_ns = behind_traced_ms * MS;
	x->r.wall_ns = 500 * MS;
	x->r.max_threads = threads;
}

/* The share of MS milliseconds in cpu_wait_case's whole time. */
static double wait_share(uint64_t own_ms, uint64_t ms)
{
	return (double)ms / (double)(500 * (uint64_t)cpus() + own_ms);
}

/* A pool beside CPU hogs: other load took most of the time the workers were
 * not idle, though less than half of their whole time with the idle
 * workers' sleeps. Idle time is no time the load took from the delete, so
 * the contention is the first finding, before the deleter's own CPU. */
Test(findings, other_load_first_when_most_of_the_time_not_idle)
{
	struct synth *x = synth_new();
	uint64_t b = 500 * (uint64_t)cpus();

	cpu_wait_case(x, (uint32_t)cpus(), b * 7 / 10, 0, 0);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_SLEEPING], 1, b * 6 / 10 * MS);
	verdict(x);
	cr_assert(has(x, "cpu_contention") && has(x, "idle_waits"));
	cr_assert_eq(rank_of(x, "cpu_contention"), 0, "ranked %d", rank_of(x, "cpu_contention"));
	synth_free(x);
}

/* Only the traced threads queued: more of them runnable than CPUs for all
 * of the wait. Oversubscription, with the thread count and its remedy, and
 * no contention, even though kernel workers ended most waits. */
Test(findings, cpu_oversubscription)
{
	struct synth *x = synth_new();
	uint32_t threads = (uint32_t)cpus() + 6;
	char on[64];

	cpu_wait_case(x, threads, 400, 400, 40);
	cr_assert_eq(verdict(x), 2);
	snprintf(on, sizeof on, "up to %u threads, on %ld CPUs.", threads, cpus());
	expect(x, "cpu_oversubscription", wait_share(400, 400),
	       "CPU oversubscription: the threads waited 400.00 ms for a CPU held by other traced "
	       "threads",
	       on, "Fewer workers (one per CPU) would not wait");
	cr_assert(!has(x, "cpu_contention"));
	cr_assert_eq(rank_of(x, "cpu_oversubscription"), 0);
	synth_free(x);
}

/* Only other tasks queued the threads: they never were more than the CPUs,
 * so all of the wait is contention, whatever their number. */
Test(findings, cpu_contention_with_many_threads)
{
	struct synth *x = synth_new();
	cpu_wait_case(x, (uint32_t)cpus() + 6, 200, 0, 20);
	verdict(x);
	expect(x, "cpu_contention", wait_share(0, 200), "runnable for 200.00 ms",
	       "(90% of it behind tasks that are not traced");
	cr_assert(!has(x, "cpu_oversubscription"));
	synth_free(x);
}

/* Both: each cause with its own part; other load, under most of the time,
 * is context and ranks after the threads' own oversubscription. */
Test(findings, oversubscription_and_contention_each_with_its_part)
{
	struct synth *x = synth_new();
	uint32_t threads = (uint32_t)cpus() + 6;

	cpu_wait_case(x, threads, 1000, 250, 100);
	verdict(x);
	expect(x, "cpu_oversubscription", wait_share(250, 250), "waited 250.00 ms", "Fewer workers");
	expect(x, "cpu_contention", wait_share(250, 750), "runnable for 750.00 ms");
	cr_assert_lt(rank_of(x, "cpu_oversubscription"), rank_of(x, "cpu_contention"));
	synth_free(x);

	x = synth_new();
	cpu_wait_case(x, threads, 400, 300, 40);
	verdict(x);
	expect(x, "cpu_oversubscription", wait_share(300, 300), "waited 300.00 ms");
	expect(x, "cpu_contention", wait_share(300, 100), "runnable for 100.00 ms");
	cr_assert_lt(rank_of(x, "cpu_oversubscription"), rank_of(x, "cpu_contention"));
	synth_free(x);
}

/* As many workers as CPUs and the main thread mostly asleep: one thread
 * more than CPUs, the workers waited behind each other, and a sliver of
 * time more than the CPUs' was runnable (the main thread's turns), but not
 * a worker too many. No oversubscription, no remedy that says fewer
 * workers. */
Test(findings, workers_as_many_as_cpus_are_no_oversubscription)
{
	struct synth *x = synth_new();
	cpu_wait_case(x, (uint32_t)cpus() + 1, 200, 20, 180);
	/* the main thread slept through the trace */
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_SLEEPING], 1, 500 * MS);
	verdict(x);
	cr_assert(!has(x, "cpu_oversubscription"));
	for (int i = 0; i < x->n; i++)
		cr_assert_null(strstr(text_of(&x->f[i]), "ewer workers"), "%s: %s", x->f[i].id,
			       text_of(&x->f[i]));
	/* the whole time counts the main thread's sleep too */
	expect(x, "cpu_contention", 200.0 / (500.0 * (double)cpus() + 520),
	       "runnable for 200.00 ms", "(10% of it behind tasks that are not traced");
	synth_free(x);
}

/* Threads spinning for a directory lock are on CPU, but wait for the
 * lock: they would sleep instead. Their spin is no demand for CPUs, and the
 * wait it leaves over the CPUs' time is no oversubscription. */
Test(findings, spinning_for_a_lock_is_no_oversubscription)
{
	struct synth *x = synth_new();
	cpu_wait_case(x, (uint32_t)cpus() + 6, 400, 400, 40);
	add_n(&x->s->lock[PROBE_LCB_F_WRITE].wait, 10, 50 * MS);
	verdict(x);
	cr_assert(!has(x, "cpu_oversubscription"));
	expect(x, "directory_lock_contention", wait_share(400, 500), "Directory-lock contention");
	synth_free(x);
}

/* A trace that does not know its length cannot tell its own threads'
 * excess: the wait is contention. */
Test(findings, no_wall_time_no_oversubscription)
{
	struct synth *x = synth_new();
	cpu_wait_case(x, (uint32_t)cpus() + 6, 400, 400, 360);
	x->r.wall_ns = 0;
	verdict(x);
	cr_assert(!has(x, "cpu_oversubscription"));
	expect(x, "cpu_contention", wait_share(400, 400), "runnable for 400.00 ms");
	synth_free(x);
}

/* Many threads, but the run-queue delay was behind tasks that are not
 * traced (kworkers): contention, no oversubscription. */
Test(findings, cpu_contention)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	add_n(&x->s->misc.runq, 15, 10 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 5, 10 * MS);
	x->s->misc.busy_runq_ns = 150 * MS;
	x->s->misc.busy_preempt_ns = 50 * MS;
	x->r.max_threads = (uint32_t)cpus() + 8;
	cr_assert_eq(verdict(x), 2);
	expect(x, "cpu_contention", 0.2,
	       "CPU contention: the threads were runnable for 200.00 ms while other tasks held "
	       "the CPUs (100% of it behind tasks that are not traced",
	       "give it a larger CPU weight (nice, cgroup v2's cpu.weight, v1's cpu.shares)");
	expect(x, "kernel_cpu", 0.8, "Running in the kernel");
	cr_assert(!has(x, "cpu_oversubscription"));
	synth_free(x);
}

/* ---- memory ---- */

static void memcg_limit(struct synth *x, uint64_t failcnt, uint64_t pages)
{
	snprintf(x->r.limits.mem_cgroup, sizeof x->r.limits.mem_cgroup, "/sys/fs/cgroup/build");
	x->r.limits.mem_limit = 256ull << 20;
	x->r.limits.mem_failcnt = failcnt;
	x->r.limits.mem_reclaim_pages = pages;
}

Test(findings, memcg_reclaim_from_wait_sites)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "shrink_folio_list+0x300", TC_RECLAIM, NULL, 10, 100 * MS);
	memcg_limit(x, 12, 5000);
	cr_assert_eq(verdict(x), 2);
	expect(x, "memcg_reclaim", 0.1,
	       "Memory-cgroup reclaim: the cgroup /sys/fs/cgroup/build is limited to 256 MiB",
	       "(limit hit 12 times, 5000 pages scanned)",
	       "Raise the limit (memory.limit_in_bytes, memory.max)");
	cr_assert(!has(x, "memory_reclaim"));
	synth_free(x);
}

/* Reclaim on CPU (the sampled kernel stacks) is reclaim too. */
Test(findings, memcg_reclaim_from_cpu_samples)
{
	struct synth *x = synth_new();
	set_cpu(x, 1000 * MS, 0);
	x->r.cpu.samples_sys[TCPU_RECLAIM] = 1;
	x->r.cpu.samples_sys[TCPU_UNLINK] = 3;
	memcg_limit(x, 3, 0);
	cr_assert_eq(verdict(x), 2);
	expect(x, "memcg_reclaim", 0.25,
	       "for 250.00 ms, the waits inside reclaim included (limit hit 3 times)");
	expect(x, "kernel_cpu", 0.75, "Running in the kernel");
	synth_free(x);
}

Test(findings, memory_reclaim_without_a_limit)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "shrink_folio_list+0x300", TC_RECLAIM, NULL, 10, 100 * MS);
	verdict(x);
	expect(x, "memory_reclaim", 0.1,
	       "Direct reclaim: the threads freed memory in their own context for 100.00 ms (top "
	       "site shrink_folio_list+0x300)",
	       "free memory elsewhere");
	cr_assert(!has(x, "memcg_reclaim"));
	synth_free(x);
}

/* A limit neither hit nor reclaimed from did not cause the reclaim: raising
 * it would not help. */
Test(findings, memory_reclaim_under_a_limit_not_reached)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "shrink_folio_list+0x300", TC_RECLAIM, NULL, 10, 100 * MS);
	memcg_limit(x, 0, 0);
	verdict(x);
	expect(x, "memory_reclaim", 0.1, "Direct reclaim");
	cr_assert(!has(x, "memcg_reclaim"));
	synth_free(x);
}

/* ---- locks ---- */

static void directory_lock_case(struct synth *x, uint32_t threads)
{
	set_busy(x, 1000 * MS);
	lock_site(x, "do_unlinkat+0x160", TC_DIR_LOCK, "rwsem:W", 20, 200 * MS);
	add_n(&x->s->lock[PROBE_LCB_F_WRITE].wait, 20, 10 * MS);
	x->r.max_threads = threads;
}

/* The lock waits inside unlinkat are out of its CPU time: counted once. */
Test(findings, directory_lock_contention)
{
	struct synth *x = synth_new();
	directory_lock_case(x, 4);
	cr_assert_eq(verdict(x), 2);
	expect(x, "directory_lock_contention", 0.2,
	       "Directory-lock contention: the threads waited 200.00 ms, spinning, asleep and "
	       "queued to run once woken, for the parent directory's i_rwsem, which every unlink takes for write (20 rwsem "
	       "write waits, p99 ",
	       "with up to 4 threads",
	       "Fewer workers unlinking in one directory (one directory per worker)");
	expect(x, "kernel_cpu", 0.8, "Running in the kernel");
	synth_free(x);
}

/* A waiter woken by the lock's release that then queues for a CPU still
 * waits for the lock (a convoy): that run-queue wait is the lock's, as perf
 * lock counts it, and only the rest of the runnable time is contention. */
Test(findings, run_queue_wait_after_a_lock_wake_is_the_locks)
{
	struct synth *x = synth_new();
	directory_lock_case(x, 4);
	x->sites[0].blocked_ns = x->sites[0].in_syscall_ns = 150 * MS;
	struct trace_wait_site *w =
		lock_site(x, "xfs_buf_lock+0x2d", TC_LOCK, "semaphore", 10, 100 * MS);
	w->blocked_ns = w->in_syscall_ns = 60 * MS;
	/* 50 + 40 ms after the locks' wakes, 60 ms after other wakes */
	add_n(&x->s->misc.runq, 3, 50 * MS);
	x->s->misc.busy_runq_ns = 60 * MS;
	set_busy(x, 60 * MS);
	verdict(x);
	/* the kernel's CPU is what the busy time leaves: 1060 - 210 - 60 ms */
	double whole = 790 + 200 + 100 + 60;
	expect(x, "directory_lock_contention", 200 / whole, "waited 200.00 ms");
	expect(x, "lock_contention", 100 / whole, "waited 100.00 ms");
	expect(x, "cpu_contention", 60 / whole, "runnable for 60.00 ms");
	cr_assert_lt(rank_of(x, "directory_lock_contention"), rank_of(x, "cpu_contention"));
	synth_free(x);
}

/* xfs_buf_lock waits while the buffer's holder reads from the device are
 * that read's, in the proportion the buffer events saw a read during the
 * waits; the rest stays lock contention, and no read means no move. */
Test(findings, xfs_buffer_lock_held_across_a_read_is_the_read)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	lock_site(x, "xfs_buf_lock+0x2d", TC_LOCK, "semaphore", 10, 200 * MS);
	x->s->misc.xfs_buf_lock_ns = 200 * MS;
	x->s->misc.xfs_buf_lock_read_ns = 150 * MS;
	x->s->misc.xfs_buf_lock_reads = 8;
	verdict(x);
	expect(x, "locked_buffer_reads", 0.15, "waited 150.00 ms in xfs_buf_lock",
	       "8 waits overlapped a read", "not contention among CPUs");
	expect(x, "lock_contention", 0.05, "waited 50.00 ms");
	synth_free(x);

	x = synth_new();
	set_busy(x, 1000 * MS);
	lock_site(x, "xfs_buf_lock+0x2d", TC_LOCK, "semaphore", 10, 200 * MS);
	x->s->misc.xfs_buf_lock_ns = 200 * MS;
	verdict(x);
	cr_assert(!has(x, "locked_buffer_reads"));
	expect(x, "lock_contention", 0.2, "waited 200.00 ms");
	synth_free(x);
}

/* The waits of processes that removed nothing (rsync's sender and
 * receiver, xargs) are left out of the whole time: the shares are of the
 * removers' time, and a helper's site claims no cause. */
Test(findings, helper_processes_waits_are_left_out)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "__ext4_get_inode_loc+0x1b2", TC_META_READ, "inode_table", 10, 500 * MS);
	struct trace_wait_site *w = site(x, "pipe_write+0x1a0", TC_OTHER, NULL, 10, 300 * MS);
	w->helper = true;
	w->state = PROBE_OFFCPU_SLEEPING;
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_BLOCKED], 10, 50 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_SLEEPING], 10, 230 * MS);
	x->s->misc.helper_idle_ns = 2000 * MS;
	verdict(x);
	/* whole: 500 ms of reads, 200 ms on CPU (1000 - 800 waited) */
	expect(x, "inode_table_reads", 500.0 / 700, "inode-table blocks");
	cr_assert(!has(x, "other_waits") && !has(x, "idle_waits"));
	cr_assert_float_eq(helper_ns(&x->r), 2300.0 * MS, 1);
	synth_free(x);

	/* a helper's D wait (sync -f's commit) is still the delete's */
	x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "btrfs_commit_transaction+0x2c0", TC_OTHER, NULL, 10, 300 * MS)->helper = true;
	verdict(x);
	cr_assert(has(x, "other_waits"));
	cr_assert_float_eq(helper_ns(&x->r), 0, 1);
	synth_free(x);
}

/* A wrapper (sh -c, a script) that removed something itself and then waits
 * in wait4 for its deleting child: that wait is the child's time, which the
 * child's threads hold, so it leaves the whole time as a helper's does. */
Test(findings, parent_waiting_for_deleting_child_is_left_out)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "__ext4_get_inode_loc+0x1b2", TC_META_READ, "inode_table", 10, 500 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_BLOCKED], 10, 50 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_SLEEPING], 10, 150 * MS);
	x->s->misc.child_wait_ns = 1500 * MS;
	verdict(x);
	/* whole: 500 ms of reads, 500 ms on CPU (1000 - 500 waited) */
	expect(x, "inode_table_reads", 0.5, "inode-table blocks");
	cr_assert(!has(x, "idle_waits"));
	cr_assert_float_eq(helper_ns(&x->r), 1500.0 * MS, 1);
	synth_free(x);
}

/* Under strace -f the deleter is stopped at each system call and the
 * tracer's CPU handles the stops: both are the tracer's finding, and the
 * tracer's CPU leaves the CPU parts. */
Test(findings, ptrace_stops_and_tracer_cpu)
{
	struct synth *x = synth_new();
	set_cpu(x, 600 * MS, 200 * MS);
	x->s->misc.stopped_ns = 700 * MS;
	x->s->misc.state_ns[PROBE_XSTATE_TRACER_STOP] = 700 * MS;
	x->s->misc.stops = 60000;
	x->s->misc.state_count[PROBE_XSTATE_TRACER_STOP] = 60000;
	x->s->misc.tracer_oncpu_ns = 400 * MS;
	verdict(x);
	/* whole: 800 ms on CPU (400 of them the tracer's) and 700 ms stopped */
	expect(x, "ptrace_stops", 1100.0 / 1500, "60000 stops", "without the tracer");
	expect(x, "kernel_cpu", 300.0 / 1500, "Running in the kernel");
	synth_free(x);
}

/* xfs log waits at synchronous commits on a wsync mount are the mount
 * option's (remount without it), not log space; without a synchronous
 * mount or sync calls they stay the log's waits. */
Test(findings, xfs_sync_commits_on_wsync_mount)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "xlog_wait_on_iclog+0x17c", TC_XFS_LOG, "sync_commit", 100, 600 * MS);
	site(x, "xlog_grant_head_wait+0xb0", TC_XFS_LOG, NULL, 10, 100 * MS);
	dev(x, 7, true, false);
	x->r.devs[0].dirsync = true;
	verdict(x);
	expect(x, "xfs_log_forces", 0.6, "mounted wsync", "Remount without wsync");
	expect(x, "xfs_log_waits", 0.1, "bigger log");
	synth_free(x);

	x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "xlog_wait_on_iclog+0x17c", TC_XFS_LOG, "sync_commit", 100, 600 * MS);
	verdict(x);
	cr_assert(!has(x, "xfs_log_forces"));
	expect(x, "xfs_log_waits", 0.6, "bigger log");
	synth_free(x);
}

/* Threads that wait for a CPU while xfs's inodegc workers run on it wait
 * behind them: that wait is xfs_inodegc's (the unlinks' deferred part), not
 * the threads' own number's nor other load's. */
Test(findings, xfs_inodegc_workers_hold_the_cpus)
{
	struct synth *x = synth_new();
	double n = (double)cpus();
	x->r.wall_ns = 1000 * MS;
	set_cpu(x, (uint64_t)(n * 1000 * MS), 0);
	add_n(&x->s->misc.runq, 10, 60 * MS);
	x->s->misc.xfs_inodegc_throttles = 10;
	x->s->misc.runq_behind_fsw_ns[PROBE_FSW_XFS_INODEGC] = 400 * MS;
	x->s->misc.xfs_inodegc_worker_ns = 700 * MS;
	x->s->misc.xfs_inodegc_works = 20;
	verdict(x);
	expect(x, "xfs_inodegc", 400.0 / (n * 1000 + 600),
	       "for a CPU while the inodegc workers ran", "20 work items");
	synth_free(x);

	/* one unlinker that never met the throttle, preempted by the worker
	 * of the CPU it queued its inodes on: the delete's own inode GC */
	x = synth_new();
	x->r.wall_ns = 1000 * MS;
	set_cpu(x, 500 * MS, 0);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 100, 3 * MS);
	x->s->misc.xfs_inactive_queued = 100000;
	x->s->misc.runq_behind_fsw_ns[PROBE_FSW_XFS_INODEGC] = 250 * MS;
	verdict(x);
	expect(x, "xfs_inodegc", 250.0 / 800, "for a CPU while the inodegc workers ran");
	synth_free(x);

	/* the inodegc of another process's unlinks is not the delete's */
	x = synth_new();
	x->r.wall_ns = 1000 * MS;
	set_cpu(x, (uint64_t)(n * 1000 * MS), 0);
	add_n(&x->s->misc.runq, 10, 60 * MS);
	x->s->misc.runq_behind_fsw_ns[PROBE_FSW_XFS_INODEGC] = 400 * MS;
	x->s->misc.xfs_inodegc_worker_ns = 400 * MS;
	verdict(x);
	cr_assert(!has(x, "xfs_inodegc"));
	synth_free(x);
}

/* More threads than CPUs that block often take turns on the CPUs without
 * half a thread of excess on average: the waits that other traced threads
 * ended say so, and the remedy is fewer workers, not a quieter machine. */
Test(findings, cpu_contention_behind_each_other)
{
	struct synth *x = synth_new();
	x->r.wall_ns = 1000 * MS;
	double n = (double)cpus();
	x->r.max_threads = (unsigned)cpus() + 4;
	set_cpu(x, (uint64_t)(n * 1000 - 100) * MS, 0);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 100, 3 * MS);
	x->s->misc.runq_traced_ns = 240 * MS;
	verdict(x);
	cr_assert(!has(x, "cpu_oversubscription"));
	expect(x, "cpu_contention", 300.0 / (n * 1000 + 200), "mostly behind each other", "80%",
	       "Fewer workers");
	synth_free(x);
}

/* Waits to run behind the delete's filesystem's own kernel threads (jbd2
 * committing the unlinks) are the deletes' deferred work, not other load;
 * behind another filesystem's they stay CPU contention. */
Test(findings, fs_worker_cpu_is_the_deletes_filesystems)
{
	struct synth *x = synth_new();
	x->r.wall_ns = 1000 * MS;
	set_cpu(x, 600 * MS, 0);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 100, 3 * MS);
	x->s->misc.runq_behind_fsw_ns[PROBE_FSW_EXT4] = 200 * MS;
	dev(x, 0x700, true, false);
	snprintf(x->r.devs[0].name, sizeof x->r.devs[0].name, "loop0 (ext4 on /mnt)");
	verdict(x);
	expect(x, "fs_worker_cpu", 200.0 / 900, "behind ext4's journal thread", "not other load");
	expect(x, "cpu_contention", 100.0 / 900, "other tasks");
	synth_free(x);

	x = synth_new();
	x->r.wall_ns = 1000 * MS;
	set_cpu(x, 600 * MS, 0);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 100, 3 * MS);
	x->s->misc.runq_behind_fsw_ns[PROBE_FSW_EXT4] = 200 * MS;
	dev(x, 0x700, true, false);
	snprintf(x->r.devs[0].name, sizeof x->r.devs[0].name, "loop0 (xfs on /mnt)");
	verdict(x);
	cr_assert(!has(x, "fs_worker_cpu"));
	expect(x, "cpu_contention", 300.0 / 900, "other tasks");
	synth_free(x);

	/* the flusher serves every device: named, not claimed */
	x = synth_new();
	x->r.wall_ns = 1000 * MS;
	set_cpu(x, 600 * MS, 0);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 100, 3 * MS);
	x->s->misc.runq_behind_fsw_ns[PROBE_FSW_WRITEBACK] = 200 * MS;
	dev(x, 0x700, true, false);
	snprintf(x->r.devs[0].name, sizeof x->r.devs[0].name, "loop0 (ext4 on /mnt)");
	verdict(x);
	cr_assert(!has(x, "fs_worker_cpu"));
	expect(x, "cpu_contention", 300.0 / 900, "behind the flusher");
	synth_free(x);
}

/* One deleting thread waits for another process: fewer workers is no remedy. */
Test(findings, directory_lock_with_one_thread)
{
	struct synth *x = synth_new();
	directory_lock_case(x, 1);
	verdict(x);
	const struct trace_finding *d =
		expect(x, "directory_lock_contention", 0.2, "the holder is another process");
	cr_assert_null(strstr(text_of(d), "Fewer workers"), "%s", text_of(d));
	synth_free(x);
}

/* One finding per lock type, named by its heaviest site. */
Test(findings, lock_contention_by_lock_type)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	lock_site(x, "xfs_buf_lock+0x2d", TC_LOCK, "semaphore", 10, 100 * MS);
	lock_site(x, "ext4_orphan_add+0x40", TC_LOCK, "mutex", 5, 80 * MS);
	lock_site(x, "ext4_orphan_del+0x30", TC_LOCK, "mutex", 3, 20 * MS);
	cr_assert_eq(verdict(x), 3);
	expect(x, "lock_contention", 0.1,
	       "Lock contention: the threads waited 100.00 ms for a semaphore, asleep and queued "
	       "to run once woken (10 waits, mostly in xfs_buf_lock+0x2d)");
	expect(x, "lock_contention", 0.1,
	       "Lock contention: the threads waited 100.00 ms for a mutex, asleep and queued to "
	       "run once woken (8 waits, mostly in ext4_orphan_add+0x40)");
	expect(x, "kernel_cpu", 0.8, "Running");
	synth_free(x);
}

Test(findings, lock_spinning)
{
	struct synth *x = synth_new();
	set_cpu(x, 1000 * MS, 0);
	x->r.cpu.samples_sys[TCPU_SPIN] = 1;
	x->r.cpu.samples_sys[TCPU_UNLINK] = 4;
	cr_assert_eq(verdict(x), 2);
	expect(x, "lock_spinning", 0.2,
	       "Spinning on locks: 200.00 ms on CPU in spin loops (queued spinlocks, optimistic "
	       "rwsem and mutex spinning)");
	expect(x, "kernel_cpu", 0.8, "Running");
	synth_free(x);
}

/* ---- metadata reads, and the device behind them ---- */

/* 100 waits of 3 ms at SITE, the device serving requests in 500 us: a cold
 * cache on a healthy device, the reads named by their kind. */
static void read_case(const char *name, const char *detail, const char *id, const char *what,
		      const char *remedy)
{
	struct synth *x = synth_new();
	char evidence[200];

	set_busy(x, 1000 * MS);
	site(x, name, TC_META_READ, detail, 100, 300 * MS);
	add_n(&dev(x, 7 << 20, true, false)->bio_lat, 100, 500 * US);
	cr_assert_eq(verdict(x), 2, "%s", id);
	snprintf(evidence, sizeof evidence,
		 "Metadata reads: the threads waited 300.00 ms for %s read from the device (top "
		 "site %s; the delete's devices served 100 requests, p50 ",
		 what, name);
	expect(x, id, 0.3, evidence, "a wait took 3.00 ms on average): a cold cache.", remedy);
	/* removing the cause saves its part; the deleter's own CPU saves nothing */
	cr_assert_str_eq(x->f[0].id, id);
	cr_assert(!has(x, "device_throttled") && !has(x, "slow_device"));
	synth_free(x);
}

Test(findings, inode_table_reads)
{
	read_case("__ext4_get_inode_loc+0x1b2", "inode_table", "inode_table_reads",
		  "inode-table blocks", "Unlinking in inode order reads each inode-table block once");
}

Test(findings, directory_block_reads)
{
	read_case("__ext4_read_dirblock+0x1a", "directory_block", "directory_block_reads",
		  "directory blocks", "Each directory is read once however it is deleted");
}

Test(findings, bitmap_reads)
{
	read_case("ext4_wait_block_bitmap+0x4c", "bitmap", "bitmap_reads", "block and inode bitmaps",
		  "Freeing blocks and inodes reads their groups' bitmaps");
}

Test(findings, extent_tree_reads)
{
	read_case("__read_extent_tree_block+0x9d", "extent_tree", "extent_tree_reads",
		  "extent-tree leaves", "fewer extents (preallocation, defragmenting) do");
}

Test(findings, btree_and_unnamed_reads)
{
	read_case("read_tree_block+0x3a", "btree", "btree_reads", "b-tree nodes",
		  "reads its metadata b-trees");
	read_case("__bread_gfp+0x84", NULL, "metadata_reads", "metadata blocks",
		  "A warm cache or a faster device helps.");
}

/* Sites with the same first frame and different kinds stay apart: merged
 * by frame, extent-tree reads were shown as bitmap reads. */
Test(findings, extent_tree_and_bitmap_reads_with_one_frame_stay_apart)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "ext4_read_bh+0x5a", TC_META_READ, "extent_tree", 100, 300 * MS);
	site(x, "ext4_read_bh+0x5a", TC_META_READ, "bitmap", 20, 100 * MS);
	cr_assert_eq(verdict(x), 3);
	expect(x, "extent_tree_reads", 0.3, "300.00 ms for extent-tree leaves",
	       "top site ext4_read_bh+0x5a");
	expect(x, "bitmap_reads", 0.1, "100.00 ms for block and inode bitmaps",
	       "top site ext4_read_bh+0x5a");
	synth_free(x);
}

/* Reads of a cgroup with an I/O limit, 3.33 ms a wait on a device serving
 * them in 200 us: the limit, with the block-I/O waits. */
Test(findings, device_throttled_by_an_io_limit)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "__ext4_get_inode_loc+0x1b2", TC_META_READ, "inode_table", 100, 300 * MS);
	site(x, "submit_bio_wait+0x74", TC_BLOCK_IO, NULL, 20, 100 * MS);
	add_n(&dev(x, 7 << 20, true, false)->bio_lat, 120, 200 * US);
	snprintf(x->r.limits.io_cgroup, sizeof x->r.limits.io_cgroup, "/sys/fs/cgroup/backup.slice");
	snprintf(x->r.limits.io_limit, sizeof x->r.limits.io_limit, "7:0 read 400 IOPS");
	cr_assert_eq(verdict(x), 2);
	expect(x, "device_throttled", 0.4,
	       "Reads held above the device: the threads waited 400.00 ms for inode-table reads "
	       "(120 waits, 3.33 ms each on average) that the device serves in ",
	       "the cgroup /sys/fs/cgroup/backup.slice limits them (7:0 read 400 IOPS)",
	       "Raise the cgroup's limit (blkio.throttle.*, io.max)",
	       "a faster device would not help");
	cr_assert(!has(x, "inode_table_reads") && !has(x, "blocked_on_io"));
	synth_free(x);
}

/* Waits no longer than the device's service time were not held by the
 * limit: the device is slow, and a faster one would help. */
Test(findings, io_limit_not_blamed_for_a_slow_device)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "__ext4_get_inode_loc+0x1b2", TC_META_READ, "inode_table", 100, 400 * MS);
	add_n(&dev(x, 7 << 20, true, false)->bio_lat, 100, 4 * MS);
	snprintf(x->r.limits.io_limit, sizeof x->r.limits.io_limit, "7:0 read 400 IOPS");
	verdict(x);
	cr_assert(!has(x, "device_throttled"));
	expect(x, "slow_device", 0.4, "A slow device");
	synth_free(x);
}

/* No limit known, but each wait 50 times the device's service time. */
Test(findings, device_throttled_above_the_device)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "__ext4_get_inode_loc+0x1b2", TC_META_READ, "inode_table", 100, 500 * MS);
	add_n(&dev(x, 7 << 20, true, false)->bio_lat, 100, 100 * US);
	cr_assert_eq(verdict(x), 2);
	expect(x, "device_throttled", 0.5,
	       "Reads held above the device: the threads waited 500.00 ms for inode-table reads "
	       "(100 waits, 5.00 ms each on average)",
	       "a faster device would not help");
	cr_assert(!has(x, "inode_table_reads"));
	synth_free(x);
}

Test(findings, slow_device)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "__ext4_read_dirblock+0x1a", TC_META_READ, "directory_block", 100, 500 * MS);
	add_n(&dev(x, 7 << 20, true, false)->bio_lat, 100, 4 * MS);
	cr_assert_eq(verdict(x), 2);
	const struct trace_finding *d =
		expect(x, "slow_device", 0.5,
		       "A slow device: the threads waited 500.00 ms for directory-block reads (100 "
		       "waits), and the device loop0 itself takes ",
		       "A faster device, or a warm cache, helps");
	cr_assert(strstr(text_of(d), " ms per request (p50)"), "%s", text_of(d));
	cr_assert(!has(x, "directory_block_reads"));
	synth_free(x);
}

/* ---- the journal ---- */

/* Journal space, with another filesystem's commits and discards apart. */
Test(findings, journal_space)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	x->r.wall_ns = 10000 * MS;
	site(x, "jbd2_log_wait_commit+0xee (space)", TC_JOURNAL, NULL, 30, 300 * MS);
	struct probe_dev_stat *d = dev(x, 7 << 20, true, false);
	d->jbd2_commits = 29;
	d->jbd2_handles = 4000;
	struct probe_dev_stat *o = dev(x, 7 << 20 | 1, false, true);
	o->jbd2_commits = 100;
	o->bio_discards = 50;
	cr_assert_eq(verdict(x), 2);
	expect(x, "journal_space", 0.3,
	       "Journal space: the threads waited 300.00 ms for the journal to checkpoint and free "
	       "space; the delete's journal committed 29 transactions",
	       "A bigger journal (tune2fs -J size=, mkfs.ext4 -J size=)");
	cr_assert(!has(x, "discard_io"), "another device's discards blamed");
	cr_assert(!has(x, "journal_commit_waits"));
	synth_free(x);
}

static void journal_commit_case(struct synth *x, uint64_t commits)
{
	set_busy(x, 999 * MS);
	x->r.wall_ns = 1000 * MS;
	site(x, "jbd2_log_wait_commit+0xee", TC_JOURNAL, NULL, 5, 200 * MS);
	struct probe_dev_stat *d = dev(x, 7 << 20, true, false);
	d->jbd2_commits = commits;
	d->jbd2_handles = 5000;
}

/* Commits the deleter asked for with its own syncs: sync less. */
Test(findings, journal_commits_of_own_syncs)
{
	struct synth *x = synth_new();
	journal_commit_case(x, 60);
	set_busy(x, 1 * MS);
	x->s->sc[SYS_fsync].lat.count = 50;
	cr_assert_eq(verdict(x), 2);
	expect(x, "journal_commit_waits", 0.2, "which their own 50 sync calls",
	       "Sync once at the end, or not at all");
	cr_assert(!has(x, "journal_forced_by_other"));
	synth_free(x);
}

/* A commit per entry removed, without a sync: a synchronous directory. */
Test(findings, journal_commit_per_unlink_is_dirsync)
{
	struct synth *x = synth_new();
	journal_commit_case(x, 1500);
	set_busy(x, 1 * MS);
	x->s->sc[SYS_unlinkat].lat.count = 1500;
	cr_assert_eq(verdict(x), 2);
	expect(x, "journal_commit_waits", 0.2, "after every directory change",
	       "Mount without dirsync");
	synth_free(x);
}

Test(findings, journal_commit_waits)
{
	struct synth *x = synth_new();
	journal_commit_case(x, 3);
	set_busy(x, 1 * MS);
	cr_assert_eq(verdict(x), 2);
	expect(x, "journal_commit_waits", 0.2,
	       "Journal commits: the threads waited 200.00 ms for journal commits (5 waits); the "
	       "delete's journal committed 3 transactions",
	       "Fewer dirtied blocks per unlink (inode order)");
	synth_free(x);
}

/* Many more commits than the journal makes on its own, no fsync of the
 * deleter's: another process forces them. */
Test(findings, journal_forced_by_other)
{
	struct synth *x = synth_new();
	journal_commit_case(x, 100);
	x->s->devs[0].st.other_syncs = 120; /* another process's fsyncs here */
	set_busy(x, 1 * MS);
	cr_assert_eq(verdict(x), 2);
	expect(x, "journal_forced_by_other", 0.2,
	       "Journal commits forced by another process: the threads waited 200.00 ms for "
	       "commits they did not ask for and for the journal space those commits used up "
	       "(they made no sync call; other processes made 120 while the journal committed 100 "
	       "times in 1.0 s",
	       "Find the process that syncs");
	cr_assert(!has(x, "journal_commit_waits"));
	synth_free(x);

	/* fsyncs of files on another disk force no commit of this journal;
	 * sync(2) reaches every filesystem */
	x = synth_new();
	journal_commit_case(x, 100);
	x->s->misc.other_syncs = 120;
	set_busy(x, 1 * MS);
	verdict(x);
	cr_assert(!has(x, "journal_forced_by_other"));
	synth_free(x);
	x = synth_new();
	journal_commit_case(x, 100);
	x->s->misc.other_syncs = x->s->misc.other_global_syncs = 120;
	set_busy(x, 1 * MS);
	verdict(x);
	cr_assert(has(x, "journal_forced_by_other"));
	synth_free(x);
}

/* The commit waits' evidence leaves out the waits for journal space. */
Test(findings, journal_space_and_commit_waits_apart)
{
	struct synth *x = synth_new();
	journal_commit_case(x, 3);
	set_busy(x, 1 * MS);
	site(x, "jbd2_log_wait_commit+0xee (space)", TC_JOURNAL, NULL, 30, 300 * MS);
	cr_assert_eq(verdict(x), 3);
	expect(x, "journal_space", 0.3, "Journal space: the threads waited 300.00 ms");
	expect(x, "journal_commit_waits", 0.2,
	       "Journal commits: the threads waited 200.00 ms for journal commits (5 waits)");
	synth_free(x);
}

/* With an fsync of their own, the commits are the deleter's. */
Test(findings, journal_commits_after_own_fsync)
{
	struct synth *x = synth_new();
	journal_commit_case(x, 100);
	add_n(&x->s->sc[SYS_fsync].lat, 1, 1 * MS);
	verdict(x);
	expect(x, "journal_commit_waits", 0.2, "Journal commits: the threads waited 200.00 ms");
	cr_assert(!has(x, "journal_forced_by_other"));
	synth_free(x);
}

/* ---- writeback and discard ---- */

Test(findings, writeback_throttle)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "balance_dirty_pages+0x2f1", TC_WRITEBACK, "throttle", 10, 150 * MS);
	site(x, "folio_wait_writeback+0x2a", TC_WRITEBACK, NULL, 10, 50 * MS);
	cr_assert_eq(verdict(x), 3);
	expect(x, "writeback_throttle", 0.15,
	       "Writeback throttling: the threads were held 150.00 ms by dirty-page or writeback "
	       "throttling (top site balance_dirty_pages+0x2f1)",
	       "less dirty data beside it does");
	expect(x, "writeback_waits", 0.05,
	       "Writeback: the threads waited 50.00 ms for pages or inodes under writeback (10 "
	       "waits, top site folio_wait_writeback+0x2a)");
	synth_free(x);
}

Test(findings, discard_io)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "blkdev_issue_discard+0x50", TC_DISCARD, NULL, 10, 100 * MS);
	struct probe_dev_stat *d = dev(x, 7 << 20, true, true);
	d->bio_discards = 4;
	d->ext4_discards = 4; /* the same discards: counted once */
	d->bio_discard_bytes = 4 << 20;
	cr_assert_eq(verdict(x), 2);
	expect(x, "discard_io", 0.1,
	       "Online discard: the threads waited 100.00 ms on discards (4 discard requests, 4.0 "
	       "MiB, on the delete's devices). Mount without discard and run fstrim");
	synth_free(x);
}

/* ext4 with -o discard issues the discards in the commit: the commit waits
 * are discard waits, and not journal waits too. */
Test(findings, discard_io_in_journal_commits)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "jbd2_log_wait_commit+0xee", TC_JOURNAL, NULL, 10, 400 * MS);
	struct probe_dev_stat *d = dev(x, 7 << 20, true, true);
	d->ext4_discards = 300;
	d->jbd2_commits = 10;
	cr_assert_eq(verdict(x), 2);
	expect(x, "discard_io", 0.4,
	       "issued by the journal commits they waited for (300 discard requests");
	cr_assert(!has(x, "journal_commit_waits") && !has(x, "journal_forced_by_other"));
	synth_free(x);
}

/* ---- xfs, btrfs, FUSE, overlayfs ---- */

Test(findings, xfs_inodegc)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "destroy_inode+0x3b", TC_XFS_INODEGC, NULL, 148, 300 * MS);
	x->s->misc.xfs_inodegc_throttles = 148;
	cr_assert_eq(verdict(x), 2);
	expect(x, "xfs_inodegc", 0.3,
	       "XFS inode GC: the threads waited 300.00 ms in destroy_inode for background inode "
	       "inactivation to catch up (148 waits, 148 inode-GC throttles)",
	       "Nothing in the deleter changes this");
	synth_free(x);
}

Test(findings, xfs_log_waits)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "xlog_grant_head_wait+0xd9", TC_XFS_LOG, NULL, 5, 100 * MS);
	add_n(&x->s->misc.xfs_log_grant, 5, 20 * MS);
	cr_assert_eq(verdict(x), 2);
	expect(x, "xfs_log_waits", 0.1,
	       "XFS log space: the threads waited 100.00 ms for log space or log forces (top site "
	       "xlog_grant_head_wait+0xd9; 5 log-grant waits, 100.00 ms)",
	       "A bigger log (mkfs.xfs -l size=)");
	synth_free(x);
}

static void btrfs_case(struct synth *x, uint32_t threads)
{
	set_busy(x, 1000 * MS);
	lock_site(x, "__btrfs_tree_lock+0x28", TC_BTRFS, "rwsem:W", 100, 200 * MS)->detail =
		"tree_lock";
	site(x, "wait_current_trans+0x1b0", TC_BTRFS, "transaction", 3, 150 * MS);
	site(x, "btrfs_balance_delayed_items+0x90", TC_BTRFS, "delayed_items", 40, 100 * MS);
	add_n(&x->s->misc.btrfs_tree_lock, 100, 2 * MS);
	x->r.max_threads = threads;
}

Test(findings, btrfs_kinds)
{
	struct synth *x = synth_new();
	btrfs_case(x, 4);
	cr_assert_eq(verdict(x), 4);
	expect(x, "btrfs_tree_locks", 0.2,
	       "Btrfs tree locks: the threads waited 200.00 ms on contended b-tree locks (100 "
	       "waits over 10 us)",
	       "Fewer workers per directory");
	expect(x, "btrfs_transaction_commit", 0.15,
	       "Btrfs transaction commits: the threads waited 150.00 ms for the running "
	       "transaction to commit",
	       "top site wait_current_trans+0x1b0");
	expect(x, "btrfs_delayed_work", 0.1,
	       "Btrfs delayed items: the threads waited 100.00 ms flushing delayed inode and "
	       "directory items",
	       "top site btrfs_balance_delayed_items+0x90");
	expect(x, "kernel_cpu", 0.55, "Running");
	cr_assert(!has(x, "lock_contention"));
	synth_free(x);
}

/* One deleting thread: the tree-lock holders are btrfs's own workers. */
Test(findings, btrfs_tree_locks_with_one_thread)
{
	struct synth *x = synth_new();
	btrfs_case(x, 1);
	verdict(x);
	const struct trace_finding *b =
		expect(x, "btrfs_tree_locks", 0.2, "the holders are btrfs's own workers");
	cr_assert_null(strstr(text_of(b), "fewer workers"));
	synth_free(x);
}

Test(findings, fuse_daemon)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "request_wait_answer+0x1c1", TC_FUSE, NULL, 50, 250 * MS);
	x->r.max_threads = 2;
	cr_assert_eq(verdict(x), 2);
	expect(x, "fuse_daemon", 0.25,
	       "FUSE daemon latency: the threads waited 250.00 ms for the FUSE daemon to answer 50 "
	       "requests (5.00 ms each on average, top site request_wait_answer+0x1c1), with up "
	       "to 2 threads",
	       "or more daemon threads");
	cr_assert_str_eq(x->f[0].id, "fuse_daemon");
	synth_free(x);
}

Test(findings, overlayfs_copy_up)
{
	struct synth *x = synth_new();
	set_cpu(x, 1000 * MS, 0);
	x->r.cpu.samples_sys[TCPU_OVERLAY] = 3;
	x->r.cpu.samples_sys[TCPU_UNLINK] = 7;
	add_n(&x->s->sc[PROBE_NR_UNLINKAT].lat, 1000, 1 * MS);
	cr_assert_eq(verdict(x), 2);
	expect(x, "overlayfs_copy_up", 0.3,
	       "Overlayfs copy-up and whiteouts: 300.00 ms on CPU in overlayfs",
	       "a whiteout for every name; unlinkat mean 1.00 ms",
	       "removing the lower layer itself, where it is yours, does");
	expect(x, "kernel_cpu", 0.7, "Running");
	synth_free(x);
}

/* ---- on CPU ---- */

Test(findings, extent_freeing)
{
	struct synth *x = synth_new();
	set_cpu(x, 1000 * MS, 0);
	x->r.cpu.samples_sys[TCPU_FREEING] = 6;
	x->r.cpu.samples_sys[TCPU_UNLINK] = 4;
	x->s->misc.ext4_free_calls = 1234;
	cr_assert_eq(verdict(x), 2);
	expect(x, "extent_freeing", 0.6,
	       "Freeing data: 600.00 ms on CPU evicting inodes and freeing their extents, blocks and "
	       "page cache (1234 ext4 block frees)",
	       "--free-rate paces the freeing of huge files");
	synth_free(x);
}

/* Evicting empty inodes is part of the unlinks' own cost, not a cause. */
Test(findings, eviction_of_empty_inodes_is_kernel_cpu)
{
	struct synth *x = synth_new();
	set_cpu(x, 1000 * MS, 0);
	x->r.cpu.samples_sys[TCPU_FREEING] = 2;
	x->r.cpu.samples_sys[TCPU_UNLINK] = 8;
	cr_assert_eq(verdict(x), 1);
	expect(x, "kernel_cpu", 1.0, "Running in the kernel: 1.00 s");
	synth_free(x);
}

/* On CPU in faults (outside syscalls) and waiting for pages: one part. */
Test(findings, page_faults)
{
	struct synth *x = synth_new();
	set_cpu(x, 800 * MS, 0);
	x->r.cpu.kernel_other_ns = 100 * MS;
	x->r.cpu.samples_other[TCPU_FAULT] = 5;
	site(x, "filemap_fault+0x783", TC_PAGE_FAULT, NULL, 10, 100 * MS);
	cr_assert_eq(verdict(x), 2);
	expect(x, "page_faults", 0.2,
	       "Page faults: 200.00 ms in page faults (on CPU and waiting for pages, top site "
	       "filemap_fault+0x783)");
	expect(x, "kernel_cpu", 0.8, "Running");
	synth_free(x);
}

Test(findings, journaling_on_cpu_is_kernel_cpu)
{
	struct synth *x = synth_new();
	set_cpu(x, 1000 * MS, 0);
	x->r.cpu.samples_sys[TCPU_JOURNAL] = 1;
	x->r.cpu.samples_sys[TCPU_UNLINK] = 9;
	cr_assert_eq(verdict(x), 1);
	expect(x, "kernel_cpu", 1.0, "(journaling 10% of it)");
	synth_free(x);
}

/* Without on-CPU accounting, the busy syscall time is the kernel's. */
Test(findings, kernel_cpu)
{
	struct synth *x = synth_new();
	add_n(&x->s->sc[PROBE_NR_UNLINKAT].lat, 1000, 20 * US);
	cr_assert_eq(verdict(x), 1);
	expect(x, "kernel_cpu", 1.0,
	       "Running in the kernel: 20.00 ms of CPU work in the kernel, the filesystem's own "
	       "cost of the unlinks, lookups and directory reads (unlinkat: 1000 calls, mean 20.00 "
	       "us");
	synth_free(x);
}

/* Measured: the unlink work and the rest, inside and outside syscalls. */
Test(findings, kernel_cpu_measured)
{
	struct synth *x = synth_new();
	set_cpu(x, 600 * MS, 0);
	x->r.cpu.kernel_other_ns = 400 * MS;
	x->r.cpu.samples_sys[TCPU_UNLINK] = 1;
	x->r.cpu.samples_sys[TCPU_OTHER] = 1;
	cr_assert_eq(verdict(x), 1);
	expect(x, "kernel_cpu", 1.0, "Running in the kernel: 1.00 s of CPU work in the kernel");
	synth_free(x);
}

Test(findings, user_cpu)
{
	struct synth *x = synth_new();
	set_cpu(x, 700 * MS, 300 * MS);
	add_n(&x->s->sc[PROBE_NR_UNLINKAT].lat, 1000, 700 * US);
	cr_assert_eq(verdict(x), 2);
	expect(x, "user_cpu", 0.3,
	       "User-space CPU: the deleter ran its own code in user space for 300.00 ms between "
	       "its system calls",
	       "A compiled deleter that does no per-entry work");
	expect(x, "kernel_cpu", 0.7, "(unlinkat: 1000 calls");
	synth_free(x);
}

/* ---- the other waits ---- */

Test(findings, blocked_on_io)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "submit_bio_wait+0x74", TC_BLOCK_IO, NULL, 30, 300 * MS);
	cr_assert_eq(verdict(x), 2);
	expect(x, "blocked_on_io", 0.3,
	       "Blocked on block I/O: the threads waited 300.00 ms for block requests (30 waits, "
	       "top site submit_bio_wait+0x74");
	synth_free(x);
}

Test(findings, peer_waits)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "anon_pipe_read+0x393", TC_PEER, NULL, 68, 60 * MS)->state = PROBE_OFFCPU_SLEEPING;
	cr_assert_eq(verdict(x), 2);
	expect(x, "peer_waits", 0.06,
	       "Waiting for another process: the threads waited 60.00 ms reading or writing pipes "
	       "and sockets (68 waits, top site anon_pipe_read+0x393)");
	synth_free(x);
}

Test(findings, other_waits)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "ovl_copy_up_flags+0x33", TC_OTHER, NULL, 10, 100 * MS);
	verdict(x);
	expect(x, "other_waits", 0.1,
	       "Other waits: the threads waited 100.00 ms at sites the table does not know (10 "
	       "waits, top site ovl_copy_up_flags+0x33)");
	synth_free(x);
}

/* --no-callers: D waits without stacks are said to be unplaced, not "other". */
Test(findings, waits_without_stacks)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "(no stack)", TC_OTHER, NULL, 22, 100 * MS);
	verdict(x);
	expect(x, "other_waits", 0.1,
	       "Other waits: the threads waited 100.00 ms where no stack was recorded (22 waits). "
	       "Trace without --no-callers");
	synth_free(x);
}

/* Waits whose stack the kernel refused (both stack maps' buckets taken):
 * the finding says so. */
Test(findings, waits_whose_stacks_were_refused)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "(no stack: its stack-map buckets taken)", TC_OTHER, NULL, 22, 100 * MS);
	verdict(x);
	expect(x, "other_waits", 0.1,
	       "the threads waited 100.00 ms where no stack was recorded (22 waits, (no stack: "
	       "its stack-map buckets taken))");
	synth_free(x);
}

/* Waits whose site the full table could not keep: a part of their own. */
Test(findings, unattributed_waits)
{
	struct synth *x = synth_new();
	set_cpu(x, 950 * MS, 0);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_BLOCKED], 5, 10 * MS);
	x->s->misc.wait_sites_lost_ns = 50 * MS;
	cr_assert_eq(verdict(x), 2);
	expect(x, "unattributed_waits", 0.05,
	       "Unattributed waits: 50.00 ms of waits whose site the probes could not keep");
	synth_free(x);
}

/* ---- idle, minor parts, ranking ---- */

/* A parent waiting for its deleting child: the largest part, not a cause,
 * ranked last. */
Test(findings, idle_waits_ranked_last)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "xlog_grant_head_wait+0xd9", TC_XFS_LOG, NULL, 5, 200 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_BLOCKED], 5, 40 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_SLEEPING], 1, 5000 * MS);
	cr_assert_eq(verdict(x), 3);
	cr_assert_str_eq(x->f[0].id, "kernel_cpu");
	cr_assert_str_eq(x->f[1].id, "xfs_log_waits");
	cr_assert_str_eq(x->f[2].id, "idle_waits");
	cr_assert_not(x->f[2].cause);
	cr_assert(x->f[0].cause && x->f[1].cause);
	expect(x, "idle_waits", 5.0 / 6,
	       "Idle, not a cause: 5.00 s waiting for children, other threads, events or timers");
	expect(x, "kernel_cpu", 0.8 / 6, "Running");
	expect(x, "xfs_log_waits", 0.2 / 6, "XFS log space");
	synth_free(x);
}

/* Parts under 1% (lock types under 5%) are one finding; the total stays 1. */
Test(findings, minor_parts_merged)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "folio_wait_writeback+0x2a", TC_WRITEBACK, NULL, 1, 5 * MS);
	site(x, "filemap_fault+0x1", TC_PAGE_FAULT, NULL, 1, 3 * MS);
	lock_site(x, "ext4_orphan_add+0x40", TC_LOCK, "mutex", 10, 30 * MS);
	cr_assert_eq(verdict(x), 2);
	expect(x, "kernel_cpu", 0.962, "Running");
	expect(x, "minor_parts", 0.038,
	       "Smaller parts: 3 under 1% each, lock types under 5% (lock_contention 3.0%, "
	       "writeback_waits 0.5%, page_faults 0.3%)");
	synth_free(x);
}

/* The merged parts rank by their sum: above a cause smaller than it, and
 * above idle time whatever its size. */
Test(findings, minor_parts_ranked_by_their_sum)
{
	static const char *const locks[] = { "rwsem:R", "mutex", "semaphore", "pcpu-sem" };
	struct synth *x = synth_new();

	set_busy(x, 1000 * MS);
	site(x, "xlog_grant_head_wait+0xd9", TC_XFS_LOG, NULL, 5, 30 * MS);
	for (int i = 0; i < 4; i++)
		lock_site(x, "xfs_ilock+0x9d", TC_LOCK, locks[i], 10, 45 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_BLOCKED], 1, 210 * MS);
	add_n(&x->s->misc.offcpu[PROBE_OFFCPU_SLEEPING], 1, 1000 * MS);
	cr_assert_eq(verdict(x), 4);
	cr_assert_str_eq(x->f[0].id, "kernel_cpu");
	cr_assert_str_eq(x->f[1].id, "minor_parts");
	cr_assert_str_eq(x->f[2].id, "xfs_log_waits");
	cr_assert_str_eq(x->f[3].id, "idle_waits");
	expect(x, "kernel_cpu", 0.395, "Running");
	expect(x, "minor_parts", 0.09, "Smaller parts: 4 under 1% each, lock types under 5%");
	expect(x, "xfs_log_waits", 0.015, "XFS log space");
	expect(x, "idle_waits", 0.5, "Idle, not a cause");
	synth_free(x);
}

/* Ranked by share, largest first, the deleter's own kernel CPU after the
 * causes of a tenth or more; cut at MAX. */
Test(findings, ranked_by_share_and_cut_at_max)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "a+0x1", TC_META_READ, "inode_table", 1, 100 * MS);
	site(x, "b+0x1", TC_JOURNAL, NULL, 1, 300 * MS);
	site(x, "c+0x1", TC_XFS_LOG, NULL, 1, 200 * MS);
	cr_assert_eq(verdict(x), 4);
	cr_assert_str_eq(x->f[0].id, "journal_commit_waits");
	cr_assert_str_eq(x->f[1].id, "xfs_log_waits");
	cr_assert_str_eq(x->f[2].id, "inode_table_reads");
	cr_assert_str_eq(x->f[3].id, "kernel_cpu");
	cr_assert_eq(trace_findings(&x->r, x->f, 2), 2);
	cr_assert_str_eq(x->f[1].id, "xfs_log_waits");
	synth_free(x);
}

/* Nothing traced: no verdict, no whole time. */
Test(findings, nothing_on_an_empty_trace)
{
	struct synth *x = synth_new();
	cr_assert_eq(verdict(x), 0);
	cr_assert_eq(whole_ns(&x->r), 0);
	x->r.total = NULL;
	cr_assert_eq(verdict(x), 0);
	synth_free(x);
}

/* ---- the explaining findings ---- */

static void scattered(struct synth *x)
{
	add_n(&x->s->misc.ext4_ino_jump, 2000, 60000);
}

/* Scattered inode order explains the journal waits: listed right after
 * them, with their share, not counted again. */
Test(findings, scattered_inode_order_explains_journal_commits)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	x->r.wall_ns = 10000 * MS;
	site(x, "jbd2_log_wait_commit+0xee", TC_JOURNAL, NULL, 30, 530 * MS);
	scattered(x);
	cr_assert_eq(verdict(x), 3);
	cr_assert_str_eq(x->f[0].id, "journal_commit_waits");
	cr_assert_str_eq(x->f[1].id, "scattered_inode_order");
	cr_assert_str_eq(x->f[1].explains, "journal_commit_waits");
	cr_assert_leq(x->f[1].share, x->f[0].share);
	expect(x, "scattered_inode_order", 0.53,
	       "only 0% of 2000 consecutive ext4 unlinks stay within 64 inodes of the previous one",
	       "Unlink a big directory in inode order");
	synth_free(x);
}

/* Cold: the inode-table reads outweigh the journal waits. */
Test(findings, scattered_inode_order_explains_inode_table_reads)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	x->r.wall_ns = 10000 * MS;
	site(x, "__ext4_get_inode_loc+0x1b2", TC_META_READ, "inode_table", 600, 600 * MS);
	site(x, "jbd2_log_wait_commit+0xee", TC_JOURNAL, NULL, 10, 100 * MS);
	scattered(x);
	verdict(x);
	cr_assert_str_eq(x->f[0].id, "inode_table_reads");
	cr_assert_str_eq(x->f[1].id, "scattered_inode_order");
	cr_assert_str_eq(x->f[1].explains, "inode_table_reads");
	cr_assert_float_eq(x->f[1].share, 0.6, 1e-9);
	synth_free(x);
}

/* Unlinks in order explain nothing; nor does an explanation without the
 * finding it explains (the commit waits are discard waits here). */
Test(findings, scattered_inode_order_only_with_its_finding)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "jbd2_log_wait_commit+0xee", TC_JOURNAL, NULL, 10, 400 * MS);
	add_n(&x->s->misc.ext4_ino_jump, 2000, 3);
	verdict(x);
	cr_assert(!has(x, "scattered_inode_order"));

	struct probe_dev_stat *d = dev(x, 7 << 20, true, true);
	d->ext4_discards = 300;
	memset(&x->s->misc.ext4_ino_jump, 0, sizeof x->s->misc.ext4_ino_jump);
	scattered(x);
	verdict(x);
	expect(x, "discard_io", 0.4, "Online discard");
	cr_assert(!has(x, "scattered_inode_order"));
	synth_free(x);
}

static void small_getdents_case(struct synth *x)
{
	set_busy(x, 700 * MS);
	x->s->sc[SYS_getdents64].lat.total = 300 * MS;
	add_n(&x->s->misc.getdents_bytes, 10, 0);
	add_n(&x->s->misc.getdents_bytes, 100, 4096);
}

Test(findings, small_getdents_batches)
{
	struct synth *x = synth_new();
	small_getdents_case(x);
	cr_assert_eq(verdict(x), 2);
	cr_assert_str_eq(x->f[0].id, "kernel_cpu");
	cr_assert_str_eq(x->f[1].explains, "kernel_cpu");
	expect(x, "small_getdents_batches", 0.3,
	       "Small getdents64 batches: 100 reads returned 4.0 KiB each on average (10.0 reads "
	       "per directory, 300.00 ms in getdents64)",
	       "A 64 KiB or larger buffer needs several times fewer calls");
	synth_free(x);
}

/* getdents64's time is mostly waits for directory blocks here: the batches
 * explain at most the kernel's CPU time. */
Test(findings, small_getdents_batches_capped_at_kernel_cpu)
{
	struct synth *x = synth_new();
	small_getdents_case(x);
	site(x, "__ext4_read_dirblock+0x1a", TC_META_READ, "directory_block", 900, 950 * MS);
	cr_assert_eq(verdict(x), 3);
	cr_assert_str_eq(x->f[0].id, "directory_block_reads");
	cr_assert_str_eq(x->f[1].id, "kernel_cpu");
	cr_assert_str_eq(x->f[2].id, "small_getdents_batches");
	cr_assert_float_eq(x->f[1].share, 0.05, 1e-9);
	cr_assert_float_eq(x->f[2].share, 0.05, 1e-9);
	synth_free(x);
}

Test(findings, allocator_churn)
{
	struct synth *x = synth_new();
	add_n(&x->s->sc[PROBE_NR_UNLINKAT].lat, 1000, 50 * US);
	add_n(&x->s->sc[SYS_mmap].lat, 200, 100 * US);
	cr_assert_eq(verdict(x), 2);
	cr_assert_str_eq(x->f[0].id, "kernel_cpu");
	cr_assert_str_eq(x->f[1].explains, "kernel_cpu");
	expect(x, "allocator_churn", 20.0 / 70,
	       "Allocator churn: 0.200 brk/mmap/munmap calls per entry removed (200 calls, 20.00 "
	       "ms)",
	       "Reusing buffers removes these calls");
	synth_free(x);
}

Test(findings, allocator_churn_capped_at_kernel_cpu)
{
	struct synth *x = synth_new();
	add_n(&x->s->sc[PROBE_NR_UNLINKAT].lat, 1000, 50 * US);
	add_n(&x->s->sc[SYS_mmap].lat, 200, 100 * US);
	site(x, "blkdev_issue_discard+0x50", TC_DISCARD, NULL, 10, 65 * MS);
	cr_assert_eq(verdict(x), 3);
	expect(x, "kernel_cpu", 5.0 / 70, "Running");
	expect(x, "allocator_churn", 5.0 / 70, "Allocator churn");
	synth_free(x);
}

/* ---- the catalogue as data ---- */

/* Every entry of the catalogue has its words: an id of its own, a title, a
 * remedy that is one sentence (a capital first, a full stop last), and a
 * confirming command or none. */
Test(findings, every_catalogue_entry_has_its_words)
{
	struct trace_finding_words w[128];
	int n = trace_finding_catalogue(w, 128);

	cr_assert_gt(n, 40);
	cr_assert_leq(n, 128);
	for (int i = 0; i < n; i++) {
		cr_assert(w[i].id && *w[i].id);
		cr_assert(w[i].title && *w[i].title, "%s: no title", w[i].id);
		cr_assert(w[i].remedy && *w[i].remedy, "%s: no remedy", w[i].id);
		size_t l = strlen(w[i].remedy);
		cr_assert(w[i].remedy[0] >= 'A' && w[i].remedy[0] <= 'Z' && w[i].remedy[l - 1] == '.',
			  "%s: remedy '%s' is no sentence", w[i].id, w[i].remedy);
		cr_assert(w[i].confirm, "%s", w[i].id);
		for (int j = 0; j < i; j++)
			cr_assert_str_neq(w[i].id, w[j].id);
	}
}

/* The sentence is the title, the evidence, the remedy and the command, in
 * that order; a subsystem's title is capitalized there. */
Test(findings, sentence_of_title_evidence_remedy_and_command)
{
	struct trace_finding f = { .id = "audit",
				   .title = "syscall auditing",
				   .remedy = "Remove the rules.",
				   .confirm = "auditctl -s" };
	char buf[TRACE_FINDING_SENTENCE];

	snprintf(f.evidence, sizeof f.evidence, "the threads waited 1.00 ms in it");
	trace_finding_sentence(&f, buf, sizeof buf);
	cr_assert_str_eq(buf, "Syscall auditing: the threads waited 1.00 ms in it. Remove the "
			      "rules. Confirm: auditctl -s.");
	f.confirm = "";
	trace_finding_sentence(&f, buf, sizeof buf);
	cr_assert_str_eq(buf,
			 "Syscall auditing: the threads waited 1.00 ms in it. Remove the rules.");
	/* too small a buffer cuts the sentence, never past it */
	cr_assert_eq(trace_finding_sentence(&f, buf, 10), 9);
	cr_assert_str_eq(buf, "Syscall a");
}

/* A case with a remedy of its own says it instead of its row's: reads held
 * by a cgroup's I/O limit, and by something else above the device. */
Test(findings, remedy_of_a_case)
{
	struct synth *x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "__ext4_get_inode_loc+0x1b2", TC_META_READ, "inode_table", 100, 500 * MS);
	add_n(&dev(x, 7 << 20, true, false)->bio_lat, 100, 100 * US);
	verdict(x);
	const struct trace_finding *held = expect(x, "device_throttled", 0.5, "a throttle");
	cr_assert(strstr(held->remedy, "hypervisor"), "%s", held->remedy);
	synth_free(x);

	x = synth_new();
	set_busy(x, 1000 * MS);
	site(x, "__ext4_get_inode_loc+0x1b2", TC_META_READ, "inode_table", 100, 500 * MS);
	add_n(&dev(x, 7 << 20, true, false)->bio_lat, 100, 100 * US);
	snprintf(x->r.limits.io_limit, sizeof x->r.limits.io_limit, "7:0 read 400 IOPS");
	verdict(x);
	held = expect(x, "device_throttled", 0.5, "limits them");
	cr_assert(strstr(held->remedy, "delete outside the cgroup"), "%s", held->remedy);
	synth_free(x);
}

/* ---- the property ---- */

static uint64_t rnd(unsigned *seed, uint64_t max)
{
	return max ? ((uint64_t)rand_r(seed) << 16 ^ (uint64_t)rand_r(seed)) % max : 0;
}

/* On random traces (measured CPU or not, limits or not), every share is in
 * [0, 1], explanations stay under their findings, the causes rank by share
 * and the top-level shares sum to 1. */
Test(findings, shares_sum_to_one_on_random_traces)
{
	static const char *const details[] = {
		"inode_table", "directory_block", "bitmap", "extent_tree", "btree", "tree_lock",
		"transaction", "delayed_items",	  "space",  "throttle",	   NULL
	};
	static const char *const locks[] = { "rwsem:W",	 "rwsem:R",  "mutex", "semaphore",
					     "pcpu-sem", "rt-mutex", NULL };
	static const char *const names[] = { "x+0x1", "jbd2_log_wait_commit+0xee (space)",
					     "(no stack)", "y+0x2" };
	unsigned seed = 17;

	for (int iter = 0; iter < 1000; iter++) {
		struct synth *x = synth_new();
		struct probe_misc *m = &x->s->misc;

		x->r.max_threads = 1 + (uint32_t)rnd(&seed, 64);
		x->r.wall_ns = rnd(&seed, 10000 * MS);
		if (rnd(&seed, 4))
			set_busy(x, 1 + rnd(&seed, 900 * MS));
		for (int i = (int)rnd(&seed, 5); i > 0; i--)
			add_n(&x->s->sc[rnd(&seed, 300)].lat, 1 + (int)rnd(&seed, 50),
			      1000 + rnd(&seed, 50 * MS));
		for (int i = (int)rnd(&seed, 8); i > 0; i--) {
			uint64_t ns = rnd(&seed, 400 * MS);
			struct trace_wait_site *w =
				site(x, names[rnd(&seed, 4)], (int)rnd(&seed, TC_COUNT),
				     details[rnd(&seed, 11)], 1 + rnd(&seed, 9), ns);
			w->lock = locks[rnd(&seed, 7)];
			w->in_syscall_ns = rnd(&seed, ns + 1);
			w->state = rnd(&seed, 2) ? PROBE_OFFCPU_BLOCKED : PROBE_OFFCPU_SLEEPING;
		}
		if (rnd(&seed, 2)) {
			x->r.cpu.have = true;
			x->r.cpu.user_ns = rnd(&seed, 500 * MS);
			x->r.cpu.syscall_ns = rnd(&seed, 900 * MS);
			x->r.cpu.kernel_other_ns = rnd(&seed, 100 * MS);
		}
		for (int k = 0; k < TCPU_COUNT; k++) {
			x->r.cpu.samples_sys[k] = rnd(&seed, 3) ? 0 : rnd(&seed, 1000);
			x->r.cpu.samples_other[k] = rnd(&seed, 3) ? 0 : rnd(&seed, 1000);
		}
		if (rnd(&seed, 2)) {
			x->r.limits.cpu_quota = (double)rnd(&seed, 400) / 100;
			x->r.limits.nr_throttled = rnd(&seed, 100);
			x->r.limits.throttled_ns = rnd(&seed, 2000 * MS);
		}
		if (rnd(&seed, 2)) {
			x->r.limits.mem_limit = rnd(&seed, 2) << 30;
			x->r.limits.mem_failcnt = rnd(&seed, 3);
			x->r.limits.mem_reclaim_pages = rnd(&seed, 3);
		}
		if (rnd(&seed, 3) == 0)
			snprintf(x->r.limits.io_limit, sizeof x->r.limits.io_limit, "7:0 rbps=1");
		add_n(&m->offcpu[PROBE_OFFCPU_BLOCKED], (int)rnd(&seed, 5), rnd(&seed, 300 * MS));
		add_n(&m->offcpu[PROBE_OFFCPU_SLEEPING], (int)rnd(&seed, 5), rnd(&seed, 900 * MS));
		add_n(&m->offcpu[PROBE_OFFCPU_PREEMPTED], (int)rnd(&seed, 5), rnd(&seed, 50 * MS));
		add_n(&m->runq, (int)rnd(&seed, 5), rnd(&seed, 50 * MS));
		m->busy_runq_ns = rnd(&seed, 3) ? 0 : rnd(&seed, 300 * MS);
		m->busy_preempt_ns = rnd(&seed, 3) ? 0 : rnd(&seed, 300 * MS);
		m->runq_traced_ns = rnd(&seed, 300 * MS);
		m->wait_sites_lost_ns = rnd(&seed, 3) ? 0 : rnd(&seed, 50 * MS);
		add_n(&m->ext4_ino_jump, rnd(&seed, 2) ? 2000 : 0, 60000);
		add_n(&m->getdents_bytes, (int)rnd(&seed, 20), 0);
		add_n(&m->getdents_bytes, (int)rnd(&seed, 200), 4096);
		if (rnd(&seed, 2)) {
			struct probe_dev_stat *d = dev(x, 7 << 20, true, rnd(&seed, 2));
			add_n(&d->bio_lat, (int)rnd(&seed, 50), 1 + rnd(&seed, 8 * MS));
			d->jbd2_commits = rnd(&seed, 200);
			d->ext4_discards = rnd(&seed, 3);
		}
		verdict(x);
		synth_free(x);
	}
}

/* ---- classification of kernel stacks (innermost first) ---- */

static int classify(const char *site_expected, const char *lock_expected, bool space_expected,
		    int n, const char *const *frames)
{
	int site;
	const char *lock;
	bool space;
	int c = trace_classify(frames, n, &site, &lock, &space);
	cr_assert_str_eq(frames[site], site_expected);
	if (lock_expected)
		cr_assert(lock && !strcmp(lock, lock_expected), "lock %s", lock ? lock : "-");
	else
		cr_assert_null(lock);
	cr_assert_eq(space, space_expected);
	return c;
}
#define FRAMES(...) \
	(const char *const[]) \
	{ \
		__VA_ARGS__ \
	}
#define NFRAMES(...) (int)(sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(char *))
#define CLASSIFY(site, lock, space, ...) \
	classify(site, lock, space, NFRAMES(__VA_ARGS__), FRAMES(__VA_ARGS__))
/* the cause and the kind of wait of a stack */
#define DETAIL(...) detail_of(NFRAMES(__VA_ARGS__), FRAMES(__VA_ARGS__))

static const char *detail_of(int n, const char *const *frames)
{
	int site;
	const char *lock;
	bool space;
	return wait_detail(frames, n, trace_classify(frames, n, &site, &lock, &space));
}

Test(classify, ext4_inode_table_read)
{
	cr_assert_eq(CLASSIFY("__ext4_get_inode_loc+0x1b2", NULL, false, "__schedule+0x3a",
			      "schedule+0x27", "io_schedule+0x46", "bit_wait_io+0x11",
			      "__wait_on_bit+0x42", "out_of_line_wait_on_bit+0x8b",
			      "__wait_on_buffer+0x30", "__ext4_get_inode_loc+0x1b2",
			      "__ext4_iget+0x10c", "ext4_lookup+0x10d", "__lookup_slow+0x81"),
		     TC_META_READ);
}

Test(classify, jbd2_checkpoint_is_journal_space)
{
	cr_assert_eq(CLASSIFY("jbd2_log_wait_commit+0xee", NULL, true, "__schedule+0x3a",
			      "schedule+0x27", "jbd2_log_wait_commit+0xee",
			      "jbd2_log_do_checkpoint+0x2a1", "__jbd2_log_wait_for_space+0x9b",
			      "start_this_handle+0x381", "jbd2__journal_start+0xf9",
			      "__ext4_journal_start_sb+0x103", "ext4_evict_inode+0x11c"),
		     TC_JOURNAL);
	cr_assert_eq(CLASSIFY("jbd2_log_wait_commit+0xee", NULL, false, "schedule+0x27",
			      "jbd2_log_wait_commit+0xee", "ext4_sync_fs+0x1cf"),
		     TC_JOURNAL);
}

Test(classify, xfs_inodegc_flush)
{
	cr_assert_eq(CLASSIFY("destroy_inode+0x3b", NULL, false, "__schedule+0x3a", "schedule+0x27",
			      "schedule_timeout+0x9e", "__wait_for_common+0x93",
			      "__flush_work+0x222", "destroy_inode+0x3b", "do_unlinkat+0x1f5"),
		     TC_XFS_INODEGC);
	cr_assert_eq(CLASSIFY("xfs_inodegc_flush+0x9c", NULL, false, "schedule+0x27",
			      "__flush_work+0x222", "xfs_inodegc_flush+0x9c"),
		     TC_XFS_INODEGC);
}

Test(classify, xlog_grant)
{
	cr_assert_eq(CLASSIFY("xlog_grant_head_wait+0xd9", NULL, false, "schedule+0x27",
			      "xlog_grant_head_wait+0xd9", "xlog_grant_head_check+0xd3",
			      "xfs_log_reserve+0xbe", "xfs_trans_reserve+0x12a"),
		     TC_XFS_LOG);
}

/* a semaphore is named by down's caller, as perf names it */
Test(classify, semaphore_named_past_down)
{
	cr_assert_eq(CLASSIFY("xfs_buf_lock+0x2d", "semaphore", false, "__schedule+0x3a",
			      "schedule+0x27", "schedule_timeout+0x9e", "__down_common+0x15f",
			      "down+0x4f", "xfs_buf_lock+0x2d", "xfs_buf_find_lock+0x5a"),
		     TC_LOCK);
}

Test(classify, directory_rwsem)
{
	cr_assert_eq(CLASSIFY("do_unlinkat+0x160", "rwsem:W", false, "schedule+0x27",
			      "rwsem_down_write_slowpath+0x23b", "down_write+0x5c",
			      "do_unlinkat+0x160", "__x64_sys_unlinkat+0x3b"),
		     TC_DIR_LOCK);
	cr_assert_eq(CLASSIFY("xfs_ilock+0x9d", "rwsem:R", false, "schedule+0x27",
			      "rwsem_down_read_slowpath+0x1c0", "down_read+0x48", "xfs_ilock+0x9d"),
		     TC_LOCK);
	cr_assert_eq(CLASSIFY("ext4_orphan_add+0x40", "mutex", false, "schedule+0x27",
			      "schedule_preempt_disabled+0x15", "__mutex_lock.constprop.0+0x2a1",
			      "ext4_orphan_add+0x40", "ext4_evict_inode+0x1d0"),
		     TC_LOCK);
}

Test(classify, btrfs_tree_lock_discard_writeback_reclaim_peer)
{
	cr_assert_eq(CLASSIFY("__btrfs_tree_lock+0x28", "rwsem:W", false, "schedule+0x27",
			      "rwsem_down_write_slowpath+0x23b", "down_write_nested+0x5c",
			      "__btrfs_tree_lock+0x28", "btrfs_search_slot+0x2f4"),
		     TC_BTRFS);
	cr_assert_eq(CLASSIFY("submit_bio_wait+0x74", NULL, false, "io_schedule+0x46",
			      "submit_bio_wait+0x74", "blkdev_issue_discard+0x50",
			      "ext4_issue_discard+0x9f"),
		     TC_DISCARD);
	cr_assert_eq(CLASSIFY("folio_wait_writeback+0x2a", NULL, false, "io_schedule+0x46",
			      "folio_wait_bit_common+0x13b", "folio_wait_writeback+0x2a",
			      "__filemap_fdatawait_range+0xac"),
		     TC_WRITEBACK);
	cr_assert_eq(CLASSIFY("shrink_folio_list+0x300", NULL, false, "schedule+0x27",
			      "shrink_folio_list+0x300", "shrink_lruvec+0x5a",
			      "try_to_free_pages+0xd1"),
		     TC_RECLAIM);
	cr_assert_eq(CLASSIFY("anon_pipe_read+0x393", NULL, false, "schedule+0x27",
			      "anon_pipe_read+0x393", "vfs_read+0x397"),
		     TC_PEER);
}

/* A FUSE request waits for its daemon: a cause of its own. */
Test(classify, fuse_request_waits_for_the_daemon)
{
	cr_assert_eq(CLASSIFY("request_wait_answer+0x1c1", NULL, false, "schedule+0x27",
			      "request_wait_answer+0x1c1", "fuse_simple_request+0x1a0",
			      "fuse_unlink+0x6f", "vfs_unlink+0x11b"),
		     TC_FUSE);
	cr_assert_str_eq(trace_cause_id(TC_FUSE), "fuse");
	cr_assert_str_eq(trace_cause_id(TC_OTHER), "other");
	cr_assert_null(
		DETAIL("schedule+0x27", "request_wait_answer+0x1c1", "fuse_simple_request+0x1a0"));
}

Test(classify, lock_callers)
{
	cr_assert_eq(trace_caller_cause("do_unlinkat+0x160", PROBE_LCB_F_WRITE), TC_DIR_LOCK);
	cr_assert_eq(trace_caller_cause("do_unlinkat+0x160", PROBE_LCB_F_READ), TC_LOCK);
	cr_assert_eq(trace_caller_cause("__btrfs_tree_read_lock+0x28", PROBE_LCB_F_READ), TC_BTRFS);
	cr_assert_eq(trace_caller_cause("xfs_buf_lock+0x2d", 0), TC_LOCK);
}

/* ---- the kind of a wait (wait_detail) ---- */

Test(detail, extent_tree_read_while_truncating)
{
	cr_assert_str_eq(DETAIL("__schedule+0x3a", "io_schedule+0x46", "bit_wait_io+0x11",
				"__wait_on_bit+0x42", "out_of_line_wait_on_bit+0x8b",
				"__wait_on_buffer+0x30", "ext4_read_bh+0x5a",
				"__read_extent_tree_block+0x9d", "ext4_find_extent+0x1a6",
				"ext4_ext_remove_space+0x1e5", "ext4_truncate+0x3b0"),
			 "extent_tree");
}

/* The bitmap wait is innermost: the extent removal below it is why the
 * blocks were freed, not what was read. */
Test(detail, bitmap_read_while_freeing_blocks)
{
	cr_assert_str_eq(DETAIL("__schedule+0x3a", "io_schedule+0x46", "bit_wait_io+0x11",
				"__wait_on_bit+0x42", "out_of_line_wait_on_bit+0x8b",
				"__wait_on_buffer+0x30", "ext4_wait_block_bitmap+0x4c",
				"ext4_mb_load_buddy_gfp+0x2b1", "ext4_free_blocks+0x6a4",
				"ext4_ext_remove_space+0x8a1", "ext4_truncate+0x3b0"),
			 "bitmap");
}

/* One first frame, two kinds: the site's name alone cannot tell them. */
Test(detail, same_first_frame_two_kinds)
{
	const char *const extent[] = { "__schedule+0x3a",
				       "io_schedule+0x46",
				       "__wait_on_buffer+0x30",
				       "ext4_read_bh+0x5a",
				       "__read_extent_tree_block+0x9d",
				       "ext4_find_extent+0x1a6" };
	const char *const bitmap[] = { "__schedule+0x3a",
				       "io_schedule+0x46",
				       "__wait_on_buffer+0x30",
				       "ext4_read_bh+0x5a",
				       "ext4_read_inode_bitmap+0x1f1",
				       "ext4_free_inode+0xa4" };
	int s1, s2;
	const char *lock;
	bool space;

	cr_assert_eq(trace_classify(extent, 6, &s1, &lock, &space), TC_META_READ);
	cr_assert_eq(trace_classify(bitmap, 6, &s2, &lock, &space), TC_META_READ);
	cr_assert_str_eq(extent[s1], bitmap[s2]);
	cr_assert_str_eq(wait_detail(extent, 6, TC_META_READ), "extent_tree");
	cr_assert_str_eq(wait_detail(bitmap, 6, TC_META_READ), "bitmap");
}

Test(detail, inode_table_read_for_a_write)
{
	cr_assert_str_eq(DETAIL("__schedule+0x3a", "io_schedule+0x46", "__wait_on_buffer+0x30",
				"__ext4_get_inode_loc+0x1b2", "ext4_get_inode_loc+0x1c",
				"ext4_reserve_inode_write+0x3f", "__ext4_mark_inode_dirty+0x5d"),
			 "inode_table");
}

Test(detail, directory_block_read)
{
	cr_assert_str_eq(DETAIL("io_schedule+0x46", "__wait_on_buffer+0x30", "ext4_bread_batch+0x141",
				"__ext4_find_entry+0x1c8", "ext4_lookup+0x8c", "__lookup_slow+0x81"),
			 "directory_block");
}

Test(detail, dirty_page_throttle)
{
	cr_assert_str_eq(DETAIL("__schedule+0x3a", "schedule+0x27", "schedule_timeout+0x9e",
				"io_schedule_timeout+0x1e", "balance_dirty_pages+0x2f1",
				"balance_dirty_pages_ratelimited_flags+0x2d8",
				"generic_perform_write+0x154"),
			 "throttle");
	cr_assert_null(DETAIL("io_schedule+0x46", "folio_wait_bit_common+0x13b",
			      "folio_wait_writeback+0x2a", "__filemap_fdatawait_range+0xac"));
}

Test(detail, btrfs_kinds)
{
	cr_assert_str_eq(DETAIL("schedule+0x27", "wait_current_trans+0x1b0",
				"start_transaction+0x28c", "btrfs_unlink+0x33"),
			 "transaction");
	cr_assert_str_eq(DETAIL("schedule+0x27", "btrfs_balance_delayed_items+0x90",
				"btrfs_btree_balance_dirty+0x5a", "btrfs_unlink+0x80"),
			 "delayed_items");
	cr_assert_str_eq(DETAIL("schedule+0x27", "rwsem_down_write_slowpath+0x23b",
				"down_write_nested+0x5c", "__btrfs_tree_lock+0x28",
				"btrfs_search_slot+0x2f4"),
			 "tree_lock");
	cr_assert_str_eq(DETAIL("schedule+0x27", "handle_reserve_ticket+0x2a1",
				"__reserve_bytes+0x3ca", "btrfs_reserve_metadata_bytes+0x1d"),
			 "space");
}

/* A kind belongs to its cause: a metadata read's frames are no kind of
 * writeback. */
Test(detail, kinds_only_of_their_cause)
{
	const char *const read[] = { "__wait_on_buffer+0x30", "__ext4_get_inode_loc+0x1b2" };
	cr_assert_null(wait_detail(read, 2, TC_WRITEBACK));
	cr_assert_null(wait_detail(read, 2, TC_JOURNAL));
}

/* The delete's devices: an operand's filesystem (the operand is gone, its
 * parent directory is not) is traced; another device is not. */
#include <sys/stat.h>
#include <sys/sysmacros.h>
Test(scope, operands_device_is_the_deletes)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	char *argv[] = { "rm", "-rf", "/tmp/adaptrm-gone-operand/x", "/tmp/adaptrm-gone-2", NULL };
	struct trace_result r = { .mode = "command", .argv = argv, .total = s };
	struct stat st;

	cr_assert_eq(stat("/tmp", &st), 0);
	uint32_t tmpdev = PROBE_MKDEV(major(st.st_dev), minor(st.st_dev));
	s->devs[0].dev = tmpdev;
	s->devs[0].st.jbd2_commits = 3;
	s->devs[1].dev = PROBE_MKDEV(4000, 4000);
	s->devs[1].st.bio_discards = 9;
	s->ndevs = 2;
	trace_collect_waits(NULL, &r);
	cr_assert_eq(r.ndevs, 2);
	cr_assert_eq(r.devs[0].dev, tmpdev);
	cr_assert(r.devs[0].traced, "/tmp's device not traced");
	cr_assert(!r.devs[1].traced, "an unrelated device traced");
	cr_assert_eq(r.nsites, 0);
	trace_free_waits(&r);
	free(s);
}
