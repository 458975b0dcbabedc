// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace catalogue's rules for the CPU, memory, locks, the thread
 * states and the remaining waits (findings_int.h): each decides whether its
 * row's cause applies and words the evidence; the row (findings.c) holds the
 * cause's name, the parts it claims, the remedy and the confirming command. */
#include "probes/hist.h"
#include "trace/findings_int.h"
#include "trace/measure.h"
#include "trace/result.h"
#include "trace/states.h"
#include "trace/subsys.h"
#include "trace/waits.h"
#include "trace/wakers.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* "48 MiB", "1.5 GiB": a limit as people set it */
static const char *mib(uint64_t bytes, char *buf, size_t len)
{
	double m = (double)bytes / 1048576.0;
	if (m >= 1024)
		snprintf(buf, len, "%.4g GiB", m / 1024);
	else
		snprintf(buf, len, "%.4g MiB", m);
	return buf;
}

/* ---- the catalogue's rules: one per row ---- */

void rule_cpu_quota(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct trace_limits *l = &c->r->limits;
	char b1[32], b2[32];

	finding_claim(k,
		      "the cgroup %s may use %.0f%% of a CPU (CFS bandwidth) and throttled the traced "
		      "threads %llu times for %s; they were runnable but not allowed to run for %s",
		      l->cpu_cgroup, 100 * l->cpu_quota, (unsigned long long)l->nr_throttled,
		      trace_fmt_ns((double)l->throttled_ns, b1, sizeof b1),
		      trace_fmt_ns(k->ns, b2, sizeof b2));
}

/* The wait that more traced threads than usable CPUs explain: fewer
 * workers would not have it. Its remedy needs more threads than CPUs. */
void rule_cpu_oversubscription(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (c->r->max_threads <= c->cpus)
		return;
	finding_claim(k,
		      "the threads waited %s for a CPU held by other traced threads: %.1f of them "
		      "were running or runnable on average, up to %u threads, on %.4g CPUs",
		      trace_fmt_ns(k->ns, b1, sizeof b1), c->runnable, c->r->max_threads, c->cpus);
}

/* "; held by NAME (pid N) 61%, NAME 20%" for the untraced tasks that
 * held the CPUs the threads waited for, into BUF. */
static const char *cpu_holders(const struct finding_ctx *c, char *buf, size_t len)
{
	struct trace_waker_sum h[8];
	double total;
	int n = trace_wakers_by_who(c->r, trace_waker_held, NULL, h, 8, &total);
	size_t used = 0;

	*buf = '\0';
	for (int i = 0, shown = 0; i < n && shown < 3 && total > 0; i++) {
		if (h[i].who.cls == PROBE_WAKER_TRACED || h[i].who.cls == PROBE_WAKER_IDLE ||
		    h[i].ns < 0.1 * total)
			continue;
		char name[96];
		int w = snprintf(buf + used, len - used, "%s%s %.0f%%",
				 shown++ ? ", " : "; the CPUs held by ",
				 trace_waker_name(&h[i].who, name, sizeof name),
				 100 * h[i].ns / total);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	return buf;
}

/* The rest of the run-queue wait was behind other tasks (and the traced
 * threads' own turns, with no more of them than CPUs): its share depends on
 * the thread count, so the rule computes it. */
void rule_cpu_contention(const struct finding_ctx *c, struct finding_sink *k)
{
	double ns = c->runq_other + (c->r->max_threads <= c->cpus ? c->runq_own : 0);
	char b1[32];

	if (ns <= 0)
		return;
	/* named, not claimed: the RCU callbacks free the unlinked inodes and
	 * dentries, the flusher writes back what the deletes dirtied, but
	 * both serve every other process and device too */
	static const struct {
		int fsw;
		const char *where;
	} named[] = {
		{ PROBE_FSW_SOFTIRQ, "ksoftirqd and the RCU threads, where the kernel frees the "
				     "unlinked inodes and dentries after a grace period" },
		{ PROBE_FSW_WRITEBACK, "the flusher (writeback)" },
	};
	char b2[32], also[320] = "";
	size_t len = 0;
	for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
		double part = (double)c->m->runq_behind_fsw_ns[named[i].fsw];
		if (part > ns)
			part = ns;
		if (part < 0.1 * ns)
			continue;
		int w = snprintf(also + len, sizeof also - len, "; %s of it behind %s",
				 trace_fmt_ns(part, b2, sizeof b2), named[i].where);
		if (w > 0 && (size_t)w < sizeof also - len)
			len += (size_t)w;
	}
	/* Most waits ended by another traced thread, with more threads than
	 * CPUs besides one (a main thread that waits for its workers) and more
	 * running or runnable than CPUs on average: they mostly took turns
	 * with each other, under the half a thread of excess that
	 * cpu_oversubscription needs (they block often, and are many only at
	 * times). */
	if (c->not_traced < 0.5 && c->r->max_threads > c->cpus + 1 && c->runnable > c->cpus) {
		finding_remedy(finding_add(k, sh(c, ns),
					   "the threads were runnable for %s, mostly behind each other "
					   "(%.0f%% of it ended when another traced thread left the "
					   "CPU; up to %u threads on %.4g CPUs%s)",
					   trace_fmt_ns(ns, b1, sizeof b1), 100 * (1 - c->not_traced),
					   c->r->max_threads, c->cpus, also),
			       "Fewer workers would take fewer turns; the rest waited behind other "
			       "tasks.");
		return;
	}
	char holders[256], quiet[32];
	finding_add(k, sh(c, ns),
		    "the threads were runnable for %s while other tasks held the CPUs (%.0f%% of it "
		    "behind tasks that are not traced: other processes, kernel workers%s%s); on a "
		    "quiet machine the delete would take about %s",
		    trace_fmt_ns(ns, b1, sizeof b1), 100 * c->not_traced, also,
		    cpu_holders(c, holders, sizeof holders),
		    trace_fmt_ns((double)c->r->wall_ns * (1 - sh(c, ns)), quiet, sizeof quiet));
}

/* The waits to run behind the delete's filesystems' own kernel threads
 * and work items (but xfs's inodegc, xfs_inodegc's), one phrase each. */
void rule_fs_worker_cpu(const struct finding_ctx *c, struct finding_sink *k)
{
	static const char *const what[PROBE_FSW_COUNT] = {
		[PROBE_FSW_XFS] = "xfs's log and buffer workers (xfsaild, CIL pushes)",
		[PROBE_FSW_EXT4] =
			"ext4's journal thread (jbd2: committing the unlinks' transactions)",
		[PROBE_FSW_BTRFS] = "btrfs's workers (transaction commits, delayed items and refs)",
	};
	char list[512] = "", b[32];
	size_t len = 0;

	for (int i = 0; i < PROBE_FSW_COUNT; i++) {
		if (c->fsw_runq[i] <= 0 || !what[i])
			continue;
		int w = snprintf(list + len, sizeof list - len, "%s%s behind %s", len ? "; " : "",
				 trace_fmt_ns(c->fsw_runq[i], b, sizeof b), what[i]);
		if (w > 0 && (size_t)w < sizeof list - len)
			len += (size_t)w;
	}
	finding_claim(k,
		      "the threads waited %s to run while the filesystem's own kernel threads ran "
		      "on the CPU they waited for (%s)",
		      trace_fmt_ns(k->ns, b, sizeof b), list);
}

/* A memory limit that was neither hit nor reclaimed from while tracing did
 * not cause the reclaim: the machine's shortage did, and raising the limit
 * would not help. */
static bool memcg_limited(const struct finding_ctx *c)
{
	const struct trace_limits *l = &c->r->limits;
	return l->mem_limit && (l->mem_failcnt || l->mem_reclaim_pages);
}

void rule_memcg_reclaim(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct trace_limits *l = &c->r->limits;
	char b1[32], b2[32];

	if (!memcg_limited(c))
		return;
	char scanned[48] = "";
	if (l->mem_reclaim_pages)
		snprintf(scanned, sizeof scanned, ", %llu pages scanned",
			 (unsigned long long)l->mem_reclaim_pages);
	finding_claim(k,
		      "the cgroup %s is limited to %s and the threads reclaimed its pages in their "
		      "own context for %s, the waits inside reclaim included (limit hit %llu "
		      "times%s)",
		      l->mem_cgroup, mib(l->mem_limit, b2, sizeof b2),
		      trace_fmt_ns(k->ns, b1, sizeof b1), (unsigned long long)l->mem_failcnt,
		      scanned);
}

void rule_memory_reclaim(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (memcg_limited(c))
		return;
	finding_claim(k,
		      "the threads freed memory in their own context for %s (top site %s): the "
		      "machine ran short of free memory",
		      trace_fmt_ns(k->ns, b1, sizeof b1), finding_top_site(c, TC_RECLAIM, NULL));
}

void rule_directory_lock(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *w = &c->s->lock[PROBE_LCB_F_WRITE].wait;
	const int cause = TC_DIR_LOCK;
	char b1[32], b2[32], holder[320];

	/* the releaser wakes the waiter: it names the holder */
	trace_wakers_phrase(c->r, trace_waker_of_cause, &cause, holder, sizeof holder);
	struct trace_finding *f = finding_claim(
		k,
		"the threads waited %s, spinning, asleep and queued to run once woken, for the "
		"parent directory's i_rwsem, which every unlink takes for write (%llu rwsem write "
		"waits, p99 %s), with up to %u threads%s",
		trace_fmt_ns(k->ns, b1, sizeof b1), (unsigned long long)w->count,
		trace_fmt_ns(hist_quantile(w, 0.99), b2, sizeof b2), c->r->max_threads, holder);
	/* one deleting thread cannot wait for itself: the holder is another
	 * process, and fewer workers would change nothing */
	if (c->r->max_threads <= 1)
		finding_remedy(f, "With one deleting thread the holder is another process working "
				  "in the same directory: nothing in the deleter changes this.");
}

/* Every other lock type, one finding each, named by its heaviest site: a
 * family in one row, so the rule computes each share. */
void rule_other_locks(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	for (int i = 0; i < NLOCKS; i++) {
		const char *site = "";
		uint64_t n = 0, best = 0;
		if (c->lock[i] <= 0)
			continue;
		for (int j = 0; j < c->r->nsites; j++) {
			const struct trace_wait_site *w = &c->r->sites[j];
			if (w->cause != TC_LOCK || index_of(finding_lock_names, NLOCKS, w->lock) != i)
				continue;
			n += w->count;
			if (w->blocked_ns > best) {
				best = w->blocked_ns;
				site = w->site;
			}
		}
		finding_add(k, sh(c, c->lock[i]),
			    "the threads waited %s for a %s, asleep and queued to run once woken (%llu "
			    "waits, mostly in %s)",
			    trace_fmt_ns(c->lock[i], b1, sizeof b1), finding_lock_names[i],
			    (unsigned long long)n, site);
	}
}

/* the spinning on locks is on-CPU time of its own */
void rule_lock_spinning(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	finding_claim(k,
		      "%s on CPU in spin loops (queued spinlocks, optimistic rwsem and mutex "
		      "spinning): threads contending for the same kernel object",
		      trace_fmt_ns(k->ns, b1, sizeof b1));
}

/* Evicting an empty inode is part of every unlink's cost; freeing is a
 * cause of its own only where it outweighs the unlinks (files with data). */
#define FREEING_OWN_SHARE 0.4

/* Freeing outweighs the rest of the filesystem's CPU work. */
static bool freeing_own(const struct finding_ctx *c)
{
	double fs = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER] + c->kcpu[TCPU_JOURNAL] +
		    c->kcpu[TCPU_FREEING];
	return c->kcpu[TCPU_FREEING] >= FREEING_OWN_SHARE * fs;
}

void rule_extent_freeing(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (!freeing_own(c))
		return;
	finding_claim(k,
		      "%s on CPU evicting inodes and freeing their extents, blocks and page cache "
		      "(%llu ext4 block frees)",
		      trace_fmt_ns(k->ns, b1, sizeof b1), (unsigned long long)c->m->ext4_free_calls);
}

void rule_page_faults(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];
	const char *site = finding_top_site(c, TC_PAGE_FAULT, NULL);

	finding_claim(k,
		      "%s in page faults (on CPU and waiting for pages%s%s): the deleter touches "
		      "memory it has not mapped yet, or mapped pages were evicted",
		      trace_fmt_ns(k->ns, b1, sizeof b1), *site ? ", top site " : "", site);
}

/* The kernel's CPU with the freeing of inodes without much data, which only
 * the freeing's own weight takes out: the rule computes the share. */
void rule_kernel_cpu(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_snapshot *s = c->s;
	/* journaling on CPU is every metadata change's cost: the filesystem's own */
	double ns = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER] + c->kcpu[TCPU_JOURNAL];
	if (!freeing_own(c))
		ns += c->kcpu[TCPU_FREEING]; /* the inodes' eviction, with their unlinks */
	char b1[32], b2[32], b3[32], b4[32];
	int top = -1;

	if (ns <= 0)
		return;
	for (int nr = 0; nr < PROBE_NR_SYSCALLS; nr++)
		if (!trace_is_wait_syscall(nr) && s->sc[nr].lat.count &&
		    (top < 0 || s->sc[nr].lat.total > s->sc[top].lat.total))
			top = nr;
	char journaling[64] = "";
	if (c->kcpu[TCPU_JOURNAL] >= 0.05 * ns)
		snprintf(journaling, sizeof journaling, "; journaling %.0f%% of it",
			 100 * c->kcpu[TCPU_JOURNAL] / ns);
	if (top < 0) {
		finding_add(k, sh(c, ns),
			    "%s of CPU work in the kernel, the filesystem's own cost%s%s%s",
			    trace_fmt_ns(ns, b1, sizeof b1), *journaling ? " (" : "",
			    *journaling ? journaling + 2 : "", *journaling ? ")" : "");
		return;
	}
	const struct probe_hist *lat = &s->sc[top].lat;
	finding_add(k, sh(c, ns),
		    "%s of CPU work in the kernel, the filesystem's own cost of the unlinks, lookups "
		    "and directory reads (%s: %llu calls, mean %s, p99 %s%s)",
		    trace_fmt_ns(ns, b1, sizeof b1), trace_syscall_name(top, b4, sizeof b4),
		    (unsigned long long)lat->count, trace_fmt_ns(hist_mean(lat), b2, sizeof b2),
		    trace_fmt_ns(hist_quantile(lat, 0.99), b3, sizeof b3), journaling);
}

void rule_user_cpu(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	finding_claim(k, "the deleter ran its own code in user space for %s%s",
		      trace_fmt_ns(k->ns, b1, sizeof b1),
		      c->entries ? " between its system calls" : "");
}

/* A ptrace tracer (strace -f, gdb, ltrace) stops the thread at every
 * system call's entry and exit until it has handled the stop: the delete
 * then runs at the tracer's pace, outside any filesystem. */
void rule_ptrace_stops(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32], b2[32];

	finding_claim(k,
		      "the threads were stopped for %s in %llu stops, for a ptrace tracer (strace, "
		      "gdb, ltrace stop a thread at every system call's entry and exit until they "
		      "let it go on); the tracer ran %s on CPU",
		      trace_fmt_ns(c->stopped, b1, sizeof b1),
		      (unsigned long long)c->m->state_count[PROBE_XSTATE_TRACER_STOP],
		      trace_fmt_ns(c->tracer_cpu, b2, sizeof b2));
}

/* ---- the remaining waits: nothing in the deleter changes any of them ---- */

/* "the threads waited T WHAT (N waits, top site S)" for a cause's sites */
static void cause_waits(const struct finding_ctx *c, struct finding_sink *k, int cause,
			const char *what)
{
	char b1[32];

	finding_claim(k, "the threads waited %s %s (%llu waits, top site %s)",
		      trace_fmt_ns(k->ns, b1, sizeof b1), what,
		      (unsigned long long)finding_cause_waits(c, cause),
		      finding_top_site(c, cause, NULL));
}

void rule_writeback_waits(const struct finding_ctx *c, struct finding_sink *k)
{
	cause_waits(c, k, TC_WRITEBACK, "for pages or inodes under writeback");
}

void rule_peer_waits(const struct finding_ctx *c, struct finding_sink *k)
{
	cause_waits(c, k, TC_PEER, "reading or writing pipes and sockets");
}

void rule_other_waits(const struct finding_ctx *c, struct finding_sink *k)
{
	const char *top = finding_top_site(c, TC_OTHER, NULL);
	char b1[32];

	if (strncmp(top, "(no stack", 9)) {
		cause_waits(c, k, TC_OTHER, "at sites the table does not know");
		return;
	}
	/* the site names why the kernel kept no stack, if it said */
	char why[80] = "";
	if (strcmp(top, "(no stack)"))
		snprintf(why, sizeof why, ", %s", top);
	finding_remedy(
		finding_claim(k, "the threads waited %s where no stack was recorded (%llu waits%s)",
			      trace_fmt_ns(k->ns, b1, sizeof b1),
			      (unsigned long long)finding_cause_waits(c, TC_OTHER), why),
		"Trace without --no-callers: the report then names the wait sites and their "
		"causes.");
}

void rule_unattributed_waits(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	finding_claim(k,
		      "%s of waits whose site the probes could not keep (the wait-site table was "
		      "full)",
		      trace_fmt_ns(k->ns, b1, sizeof b1));
}

/* Every kernel subsystem's part the catalogue left: its waits, its CPU
 * and the waits to run behind its helpers. A family: each subsystem's words
 * are its row of probes/subsys.c, the evidence trace/subsys.c's. */
void rule_subsystems(const struct finding_ctx *c, struct finding_sink *k)
{
	char evidence[sizeof k->out->evidence];

	for (int ss = 0; ss < SS_COUNT; ss++) {
		double ns = c->sub_wait[ss] + c->sub_cpu[ss] + c->sub_runq[ss];
		if (ns <= 0)
			continue;
		k->id = trace_subsys_finding_id(ss);
		trace_subsys_evidence(c->r, ss, c->sub_wait[ss], c->sub_cpu[ss], c->sub_runq[ss],
				      evidence, sizeof evidence);
		struct trace_finding *f = finding_add(k, sh(c, ns), "%s", evidence);
		if (f) {
			f->title = subsys_name(ss);
			f->remedy = subsys_remedy(ss);
			f->confirm = subsys_confirm(ss);
		}
	}
}

/* ---- the states that are causes of their own, and what no state holds ---- */

void rule_signal_stop(const struct finding_ctx *c, struct finding_sink *k)
{
	const unsigned x = PROBE_XSTATE_SIGNAL_STOP;
	char b1[32], wakers[320];

	trace_wakers_phrase(c->r, trace_waker_in_xstate, &x, wakers, sizeof wakers);
	finding_claim(k,
		      "the threads were stopped (state T, job control) for %s in %llu stops, by "
		      "SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU, not by a tracer%s",
		      trace_fmt_ns(k->ns, b1, sizeof b1),
		      (unsigned long long)c->m->state_count[PROBE_XSTATE_SIGNAL_STOP], wakers);
}

void rule_frozen(const struct finding_ctx *c, struct finding_sink *k)
{
	const unsigned x = PROBE_XSTATE_FROZEN;
	char b1[32], wakers[320];

	trace_wakers_phrase(c->r, trace_waker_in_xstate, &x, wakers, sizeof wakers);
	finding_claim(k,
		      "the threads were frozen for %s in %llu freezes, by the cgroup freezer "
		      "(freezer.state FROZEN) or a system suspend%s",
		      trace_fmt_ns(k->ns, b1, sizeof b1),
		      (unsigned long long)c->m->state_count[PROBE_XSTATE_FROZEN], wakers);
}

void rule_other_states(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	finding_claim(k,
		      "the threads were off CPU for %s in %llu switches in a state that is neither "
		      "running, blocked, sleeping, stopped nor frozen (parked, dying, new)",
		      trace_fmt_ns(k->ns, b1, sizeof b1),
		      (unsigned long long)c->m->state_count[PROBE_XSTATE_OTHER]);
}

void rule_before_trace(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	finding_claim(k,
		      "%s in %llu threads that were already waiting when the probes attached (a -p "
		      "target's idle threads, a command before it starts), in a state they did not "
		      "see begin: not a cause the trace can name",
		      trace_fmt_ns(k->ns, b1, sizeof b1), (unsigned long long)c->m->pretrace_count);
}

void rule_not_accounted(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32], b2[32];

	finding_claim(k,
		      "%s of the threads' %s lifetime while traced is in no state the probes saw "
		      "(threads that were already off CPU when tracing began, or events lost); the "
		      "shares above are of the whole, this part unexplained",
		      trace_fmt_ns(k->ns, b1, sizeof b1), trace_fmt_ns(c->life, b2, sizeof b2));
}

/* not a cause: the time the threads chose to wait (a parent for its
 * child, idle workers, timers); ranked last */
void rule_idle_waits(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	finding_claim(k,
		      "%s waiting for children, other threads, events or timers (wait4, futex, poll, "
		      "sleeps): a parent waiting for its deleting child, idle workers",
		      trace_fmt_ns(k->ns, b1, sizeof b1));
}
