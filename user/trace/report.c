// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace report: strace -c style table, DTrace quantize histograms,
 * lock, off-CPU and filesystem sections, a ranked verdict; and the same
 * data as JSON (schema in README "Tracing"). */
#include "trace/report.h"
#include "lib/json.h"
#include "lib/wrap.h"
#include "probes/hist.h"
#include "trace/cgroups.h"
#include "trace/fsfields.h"
#include "trace/measure.h"
#include "trace/oncpu.h"
#include "trace/states.h"
#include "trace/verdict.h"
#include "trace/waits.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- helpers of the sections ---- */

static int cmp_total(const void *a, const void *b, void *arg)
{
	const struct probe_snapshot *s = arg;
	uint64_t x = s->sc[*(const int *)a].lat.total, y = s->sc[*(const int *)b].lat.total;
	return x < y ? 1 : x > y ? -1 : 0;
}

static void print_hist_block(FILE *f, const char *title, const struct probe_hist *h)
{
	fprintf(f, "\n  %s\n", title);
	hist_print_quantize(f, h->b, PROBE_HIST_BUCKETS);
}

/* 2^K ns in the unit it is closest to a power of two of: "512ns", "2us",
 * "64ms" (1us here is 1024 ns: the buckets are powers of two). */
static const char *pow2_ns(int k, char *buf, size_t len)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	int u = k / 10 < 3 ? k / 10 : 3;
	snprintf(buf, len, "%llu%s", 1ull << (k - 10 * u), units[u]);
	return buf;
}

/* A latency histogram in time ranges, "[2us, 4us)", from the first bucket
 * with a count to the last: the default report's form. */
static void print_hist_time(FILE *f, const char *title, const struct probe_hist *h)
{
	int first = -1, last = -1;
	uint64_t most = 0;
	char lo[32], hi[32], range[72];

	fprintf(f, "\n  %s\n", title);
	for (int i = 0; i < PROBE_HIST_BUCKETS; i++)
		if (h->b[i]) {
			if (first < 0)
				first = i;
			last = i;
			if (h->b[i] > most)
				most = h->b[i];
		}
	for (int i = first; i >= 0 && i <= last; i++) {
		if (i == 0)
			snprintf(range, sizeof range, "0");
		else if (i == PROBE_HIST_BUCKETS - 1)
			snprintf(range, sizeof range, "[%s, ...)", pow2_ns(i - 1, lo, sizeof lo));
		else
			snprintf(range, sizeof range, "[%s, %s)", pow2_ns(i - 1, lo, sizeof lo),
				 pow2_ns(i, hi, sizeof hi));
		int bar = most ? (int)((h->b[i] * 40 + most - 1) / most) : 0;
		fprintf(f, "    %-16s %9llu |%.*s\n", range, h->b[i], bar,
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
	}
}

/* Rows of the syscall table by default (--all: every syscall). */
#define TRACE_TABLE_ROWS 12

static void print_syscall_table(FILE *f, const struct probe_snapshot *s, bool all)
{
	int order[PROBE_NR_SYSCALLS], n = 0;
	uint64_t total = 0, calls = 0, errors = 0;
	char nb[32];

	for (int k = 0; k < PROBE_NR_SYSCALLS; k++)
		if (s->sc[k].lat.count) {
			order[n++] = k;
			total += s->sc[k].lat.total;
			calls += s->sc[k].lat.count;
			errors += s->sc[k].errors;
		}
	qsort_r(order, n, sizeof *order, cmp_total, (void *)s);
	fprintf(f, "%6s %11s %11s %9s %9s %10s %10s %s\n", "% time", "seconds", "usecs/call",
		"calls", "errors", "p50~ usecs", "p99~ usecs", "syscall");
	fprintf(f,
		"------ ----------- ----------- --------- --------- ---------- ---------- ----------------\n");
	for (int i = 0; i < n; i++) {
		const struct probe_sc_stat *st = &s->sc[order[i]];
		if (!all && i == TRACE_TABLE_ROWS) {
			fprintf(f, "%6s %11s %11s %9s   ... %d more syscalls (--all)\n", "", "", "",
				"", n - i);
			break;
		}
		fprintf(f, "%6.2f %11.6f %11.0f %9llu ", total ? 100.0 * st->lat.total / total : 0,
			st->lat.total / 1e9, hist_mean(&st->lat) / 1e3,
			(unsigned long long)st->lat.count);
		if (st->errors)
			fprintf(f, "%9llu ", (unsigned long long)st->errors);
		else
			fprintf(f, "%9s ", "");
		fprintf(f, "%10.1f %10.1f %s\n", hist_quantile(&st->lat, 0.5) / 1e3,
			hist_quantile(&st->lat, 0.99) / 1e3,
			trace_syscall_name(order[i], nb, sizeof nb));
	}
	fprintf(f,
		"------ ----------- ----------- --------- --------- ---------- ---------- ----------------\n");
	fprintf(f, "%6.2f %11.6f %11.0f %9llu ", 100.0, total / 1e9,
		calls ? total / 1e3 / calls : 0, (unsigned long long)calls);
	if (errors)
		fprintf(f, "%9llu ", (unsigned long long)errors);
	else
		fprintf(f, "%9s ", "");
	fprintf(f, "%10s %10s total\n", "", "");
	fprintf(f, "~ estimated within log2 buckets, capped at the largest possible call\n");
}

/* -rf: what the adaptive controller did while the probes watched, so that
 * a change of the worker count can be read against the histograms. */
static void print_controller(FILE *f, const struct trace_result *r)
{
	if (!r->controller)
		return;
	fprintf(f, "\nAdaptive controller: %s\n", r->controller);
	if (!r->ndecisions)
		return;
	fprintf(f, "  %8s %9s   %s\n", "t s", "workers", "decision and evidence");
	for (size_t i = 0; i < r->ndecisions; i++) {
		const struct controller_decision *d = &r->decisions[i];
		char w[24];
		if (d->from)
			snprintf(w, sizeof w, "%d -> %d", d->from, d->to);
		else
			snprintf(w, sizeof w, "%d", d->to);
		fprintf(f, "  %8.2f %9s   %s\n", d->t, w, d->why);
	}
}

/* ---- the sections, each as text and as JSON ---- */

static void text_header(FILE *f, const struct trace_result *r)
{
	fprintf(f, "adaptrm --trace:");
	for (char **a = r->argv; a && *a; a++)
		fprintf(f, " %s", *a);
	fprintf(f, "\n  pid %d, ", r->pid);
	if (r->exit_status >= 0)
		fprintf(f, "exit status %d, ", r->exit_status);
	fprintf(f, "%.3f s, up to %u threads at once, %u threads in all\n", r->wall_ns / 1e9,
		r->max_threads, r->threads_seen);
	fprintf(f, "  probes:");
	for (int g = 0; g < PROBE_G_COUNT; g++)
		if (r->attached[g])
			fprintf(f, " %s", probes_group_name(g));
	fprintf(f, "\n  probes' start: loaded in %.1f ms, attached in %.1f ms\n", r->load_ns / 1e6,
		r->attach_ns / 1e6);
	for (const char *p = r->notes; p && *p;) {
		const char *e = strchr(p, '\n');
		int len = e ? (int)(e - p) : (int)strlen(p);
		fprintf(f, "  note: %.*s\n", len, p);
		p += len + (e != NULL);
	}
	if (r->total->misc.lost)
		fprintf(f, "  note: %llu events lost (per-thread state full)\n", r->total->misc.lost);
	if (r->total->misc.devs_lost)
		fprintf(f, "  note: %llu filesystem or block events lost (more than %d devices)\n",
			r->total->misc.devs_lost, PROBE_MAX_DEVS);
	if (r->total->misc.tgids_lost)
		fprintf(f,
			"  note: %llu processes not traced: more than %d traced processes were alive "
			"at once\n",
			r->total->misc.tgids_lost, PROBE_MAX_TGIDS);
}

static void json_header(struct json_writer *w, const struct trace_result *r)
{
	jw_string(w, "schema", TRACE_SCHEMA);
	jw_string(w, "mode", r->mode);
	jw_array_compact(w, "command");
	for (char **a = r->argv; a && *a; a++)
		jw_string(w, NULL, *a);
	jw_end(w);
	jw_int(w, "pid", r->pid);
	if (r->exit_status >= 0)
		jw_int(w, "exit_status", r->exit_status);
	else
		jw_null(w, "exit_status");
	jw_uint(w, "wall_ns", r->wall_ns);
	jw_uint(w, "max_threads", r->max_threads);
	jw_uint(w, "threads_seen", r->threads_seen);
	jw_uint(w, "busy_ns", trace_busy_ns(r->total));
	jw_uint(w, "other_syncs", r->total->misc.other_syncs);
	jw_array_compact(w, "probes");
	for (int g = 0; g < PROBE_G_COUNT; g++)
		if (r->attached[g])
			jw_string(w, NULL, probes_group_name(g));
	jw_end(w);
	jw_uint(w, "probes_load_ns", r->load_ns);
	jw_uint(w, "probes_attach_ns", r->attach_ns);
	jw_array(w, "notes");
	for (const char *p = r->notes; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[256];
		snprintf(line, sizeof line, "%.*s", (int)len, p);
		jw_string(w, NULL, line);
		p += len + (e != NULL);
	}
	jw_end(w);
	jw_uint(w, "lost_events", r->total->misc.lost);
	jw_uint(w, "processes_not_traced", r->total->misc.tgids_lost);
	jw_uint(w, "device_events_lost", r->total->misc.devs_lost);
}

/* Deletion syscalls: their histograms are in the text report once they
 * have TRACE_HIST_MIN_CALLS calls; the others only with --all. */
static bool is_deletion_syscall(int nr)
{
	switch (nr) {
	case SYS_unlinkat:
	case SYS_getdents64:
	case SYS_openat:
	case SYS_close:
	case SYS_newfstatat:
	case SYS_statx: return true;
	}
	return trace_is_old_unlink(nr);
}

static bool shows_hist(const struct trace_result *r, int nr, const struct probe_hist *h)
{
	bool removes = nr == SYS_unlinkat || trace_is_old_unlink(nr) || nr == SYS_getdents64;
	return h->count &&
	       (r->all || (removes && is_deletion_syscall(nr) && h->count >= TRACE_HIST_MIN_CALLS));
}

/* the strace -c table, then the deletion syscalls' histograms */
static void text_syscalls(FILE *f, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	const struct probe_misc *m = &s->misc;
	char b1[32], nb[32], title[128];
	int order[PROBE_NR_SYSCALLS], n = 0, hidden = 0;
	bool listed[PROBE_NR_SYSCALLS] = { false };

	fprintf(f, "\n");
	print_syscall_table(f, s, r->all);
	/* the detail syscalls in their order, then (--all) the rest by time */
	for (int i = 0; i < trace_detail_count; i++) {
		order[n++] = trace_detail_nrs[i];
		listed[trace_detail_nrs[i]] = true;
	}
	int rest = n;
	for (int k = 0; k < PROBE_NR_SYSCALLS; k++)
		if (!listed[k] && s->sc[k].lat.count)
			order[n++] = k;
	qsort_r(order + rest, n - rest, sizeof *order, cmp_total, (void *)s);
	fprintf(f, "\nLatency of the %s syscalls\n", r->all ? "traced" : "deletion");
	for (int i = 0; i < n; i++) {
		int nr = order[i];
		const struct probe_sc_stat *st = &s->sc[nr];
		if (!st->lat.count)
			continue;
		if (!shows_hist(r, nr, &st->lat)) {
			hidden++;
			continue;
		}
		snprintf(title, sizeof title, "%s: %llu calls, %llu errors, mean %s",
			 trace_syscall_name(nr, nb, sizeof nb), (unsigned long long)st->lat.count,
			 (unsigned long long)st->errors,
			 trace_fmt_ns(hist_mean(&st->lat), b1, sizeof b1));
		print_hist_time(f, title, &st->lat);
		if (nr == PROBE_NR_UNLINKAT && m->unlinkat_dir.count) {
			snprintf(title, sizeof title, "unlinkat(AT_REMOVEDIR): %llu calls, mean %s",
				 (unsigned long long)m->unlinkat_dir.count,
				 trace_fmt_ns(hist_mean(&m->unlinkat_dir), b1, sizeof b1));
			print_hist_time(f, title, &m->unlinkat_dir);
		}
	}
	if (m->getdents_bytes.count && r->all) {
		snprintf(title, sizeof title, "getdents64 bytes returned per call: mean %.0f",
			 hist_mean(&m->getdents_bytes));
		print_hist_block(f, title, &m->getdents_bytes);
	} else if (m->getdents_bytes.count)
		hidden++;
	if (hidden)
		fprintf(f,
			"\n  %d more histogram%s (syscalls with fewer than %d calls, or not deletion syscalls): --all or the JSON\n",
			hidden, hidden == 1 ? "" : "s", TRACE_HIST_MIN_CALLS);
}

static void json_syscalls(struct json_writer *w, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	char nb[32];

	jw_array(w, "syscalls");
	for (int k = 0; k < PROBE_NR_SYSCALLS; k++) {
		const struct probe_sc_stat *st = &s->sc[k];
		if (!st->lat.count)
			continue;
		jw_object(w, NULL);
		jw_string(w, "name", trace_syscall_name(k, nb, sizeof nb));
		jw_int(w, "nr", k);
		jw_uint(w, "calls", st->lat.count);
		jw_uint(w, "errors", st->errors);
		jw_uint(w, "total_ns", st->lat.total);
		trace_json_hist(w, "latency_ns", &st->lat);
		jw_end(w);
	}
	jw_end(w);
	trace_json_hist(w, "unlinkat_removedir_ns", &s->misc.unlinkat_dir);
	trace_json_hist(w, "getdents64_bytes", &s->misc.getdents_bytes);
}

/* wait histograms by lock type, then the top contended callers */
static void text_locks(FILE *f, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	char b1[32], b2[32], title[128];
	bool any = false;

	fprintf(f, "\nLock contention by lock type%s\n", r->all ? "" : " (callers: --all)");
	if (!r->attached[PROBE_G_LOCKS])
		fprintf(f, "  not traced\n");
	for (int k = 0; k < PROBE_LOCK_TYPES; k++) {
		const struct probe_hist *h = &s->lock[k].wait;
		if (!h->count)
			continue;
		any = true;
		snprintf(title, sizeof title, "%s (flags 0x%x): %llu waits, %s total, p99 %s",
			 probes_lock_type_name(k), k, (unsigned long long)h->count,
			 trace_fmt_ns((double)h->total, b1, sizeof b1),
			 trace_fmt_ns(hist_quantile(h, 0.99), b2, sizeof b2));
		if (r->all)
			print_hist_time(f, title, h);
		else
			fprintf(f, "  %s\n", title);
	}
	if (r->attached[PROBE_G_LOCKS] && !any)
		fprintf(f, "  no contended locks\n");
	if (!r->ncallers || !r->all)
		return;
	fprintf(f, "\n  %10s %12s %12s %12s   %s\n", "contended", "total wait", "avg wait", "type",
		"caller");
	for (int i = 0; i < r->ncallers; i++) {
		const struct probe_caller *c = &r->callers[i];
		fprintf(f, "  %10llu %12s %12s %12s   %s\n", (unsigned long long)c->count,
			trace_fmt_ns((double)c->total_ns, b1, sizeof b1),
			trace_fmt_ns(c->count ? (double)c->total_ns / c->count : 0, b2, sizeof b2),
			probes_lock_type_name(c->flags), r->caller_names[i]);
	}
}

static void json_locks(struct json_writer *w, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;

	jw_array(w, "locks");
	for (int k = 0; k < PROBE_LOCK_TYPES; k++) {
		if (!s->lock[k].wait.count)
			continue;
		jw_object(w, NULL);
		jw_string(w, "type", probes_lock_type_name(k));
		jw_uint(w, "flags", k);
		trace_json_hist(w, "wait_ns", &s->lock[k].wait);
		jw_end(w);
	}
	jw_end(w);
	jw_array(w, "lock_callers");
	for (int i = 0; i < r->ncallers; i++) {
		jw_object(w, NULL);
		jw_string(w, "caller", r->caller_names[i]);
		jw_string(w, "type", probes_lock_type_name(r->callers[i].flags));
		jw_uint(w, "count", r->callers[i].count);
		jw_uint(w, "total_ns", r->callers[i].total_ns);
		jw_end(w);
	}
	jw_end(w);
}

/* The traced threads' time by state: on CPU, runnable, blocked and
 * sleeping with the run-queue delay after their wakeup apart, idle. */
static void text_offcpu(FILE *f, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;
	double blocked = 0, blocked_rq = 0, slept = 0, slept_rq = 0;
	char b1[32], b2[32], b3[32];

	fprintf(f, "\nThread time by state\n");
	if (r->cpu.have)
		fprintf(f,
			"  on CPU                %12s user, %s kernel in syscalls, %s kernel outside\n",
			trace_fmt_ns((double)r->cpu.user_ns, b1, sizeof b1),
			trace_fmt_ns((double)r->cpu.syscall_ns, b2, sizeof b2),
			trace_fmt_ns((double)r->cpu.kernel_other_ns, b3, sizeof b3));
	if (!r->attached[PROBE_G_OFFCPU]) {
		fprintf(f, "  off CPU: not traced\n");
		return;
	}
	for (int i = 0; i < r->nsites; i++) {
		const struct trace_wait_site *w = &r->sites[i];
		double rq = (double)(w->total_ns - w->blocked_ns);
		if (w->state == PROBE_OFFCPU_BLOCKED) {
			blocked += (double)w->blocked_ns;
			blocked_rq += rq;
		} else {
			slept += (double)w->blocked_ns;
			slept_rq += rq;
		}
	}
	const struct probe_hist *d = &m->offcpu[PROBE_OFFCPU_BLOCKED];
	const struct probe_hist *sl = &m->offcpu[PROBE_OFFCPU_SLEEPING];
	const struct probe_hist *pr = &m->offcpu[PROBE_OFFCPU_PREEMPTED];
	if (r->nsites) {
		fprintf(f, "  blocked (D)           %12s, then %s waiting to run (%llu times)\n",
			trace_fmt_ns(blocked, b1, sizeof b1),
			trace_fmt_ns(blocked_rq, b2, sizeof b2), (unsigned long long)d->count);
		fprintf(f, "  sleeping in syscalls  %12s, then %s waiting to run\n",
			trace_fmt_ns(slept, b1, sizeof b1), trace_fmt_ns(slept_rq, b2, sizeof b2));
	} else {
		fprintf(f, "  blocked (D)           %12s with the run-queue delay (%llu times)\n",
			trace_fmt_ns((double)d->total, b1, sizeof b1), (unsigned long long)d->count);
	}
	fprintf(f, "  sleeping (S), all     %12s with the run-queue delay (%llu times)\n",
		trace_fmt_ns((double)sl->total, b1, sizeof b1), (unsigned long long)sl->count);
	fprintf(f, "  preempted (runnable)  %12s (%llu times, p99 %s)\n",
		trace_fmt_ns((double)pr->total, b1, sizeof b1), (unsigned long long)pr->count,
		trace_fmt_ns(hist_quantile(pr, 0.99), b2, sizeof b2));
	fprintf(f, "  wakeup to running     %12s (%llu times, p99 %s)\n",
		trace_fmt_ns((double)m->runq.total, b1, sizeof b1), (unsigned long long)m->runq.count,
		trace_fmt_ns(hist_quantile(&m->runq, 0.99), b2, sizeof b2));
	if (r->all && d->count)
		print_hist_time(f, "blocked (D) time per switch", d);
}

static void json_offcpu(struct json_writer *w, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;

	jw_object(w, "offcpu");
	trace_json_hist(w, "blocked_ns", &m->offcpu[PROBE_OFFCPU_BLOCKED]);
	trace_json_hist(w, "sleeping_ns", &m->offcpu[PROBE_OFFCPU_SLEEPING]);
	trace_json_hist(w, "preempted_ns", &m->offcpu[PROBE_OFFCPU_PREEMPTED]);
	jw_end(w);
}

/* The traced threads' whole time, on and off CPU, and what the on-CPU
 * kernel samples were doing, by category over 1% (evidence, not in the
 * verdict). */
static int cmp_cat(const void *a, const void *b, void *arg)
{
	const uint64_t *n = arg;
	int x = *(const int *)a, y = *(const int *)b;

	if (n[x] != n[y])
		return n[x] < n[y] ? 1 : -1;
	return x - y;
}

/* The kernel categories with samples, most first; returns how many. */
static int cats_by_samples(const struct trace_result *r, int order[CPU_COUNT])
{
	int n = 0;

	for (int c = 0; c < CPU_COUNT; c++)
		if (c != CPU_USER && r->cpu_samples[c])
			order[n++] = c;
	qsort_r(order, n, sizeof *order, cmp_cat, (void *)r->cpu_samples);
	return n;
}

static void text_oncpu(FILE *f, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;
	uint64_t on = m->oncpu_ns, busy = m->oncpu_syscall_ns, waitsc = m->oncpu_wait_syscall_ns;
	uint64_t kernel = trace_cpu_kernel_samples(r);
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	int order[CPU_COUNT], n;

	if (!r->attached[PROBE_G_OFFCPU])
		return;
	fprintf(f, "\nOn-CPU time of the traced threads\n");
	fprintf(f,
		"  %s on CPU of %s thread time: %s in busy syscalls, %s in waiting syscalls, "
		"%s outside syscalls\n",
		trace_fmt_ns((double)on, b1, sizeof b1),
		trace_fmt_ns((double)probes_thread_ns(r->total), b2, sizeof b2),
		trace_fmt_ns((double)busy, b3, sizeof b3),
		trace_fmt_ns((double)waitsc, b4, sizeof b4),
		trace_fmt_ns((double)(on > busy + waitsc ? on - busy - waitsc : 0), b5, sizeof b5));
	if (!r->attached[PROBE_G_ONCPU])
		return;
	fprintf(f, "  %llu samples at %d Hz per CPU, %.0f%% in user mode", m->cpu_samples,
		PROBE_CPU_SAMPLE_HZ,
		m->cpu_samples ? 100.0 * (double)m->cpu_samples_user / (double)m->cpu_samples : 0);
	if (m->cpu_samples_nostack)
		fprintf(f, ", %llu without a kernel stack", m->cpu_samples_nostack);
	fprintf(f, "\n");
	if (!kernel)
		return;
	fprintf(f, "  on-CPU kernel:");
	n = cats_by_samples(r, order);
	for (int i = 0, shown = 0; i < n; i++) {
		double share = (double)r->cpu_samples[order[i]] / (double)kernel;
		if (share < 0.01)
			continue;
		fprintf(f, "%s %s %.0f%%", shown++ ? "," : "", cpu_cat_name(order[i]), 100 * share);
	}
	fprintf(f, " (of %llu kernel samples)\n", (unsigned long long)kernel);
}

static void json_oncpu(struct json_writer *w, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;
	uint64_t on = m->oncpu_ns, in_sc = m->oncpu_syscall_ns + m->oncpu_wait_syscall_ns;
	uint64_t kernel = trace_cpu_kernel_samples(r);
	int order[CPU_COUNT], n = cats_by_samples(r, order);

	jw_object(w, "oncpu");
	jw_uint(w, "oncpu_ns", on);
	jw_uint(w, "syscall_ns", m->oncpu_syscall_ns);
	jw_uint(w, "wait_syscall_ns", m->oncpu_wait_syscall_ns);
	jw_uint(w, "outside_syscall_ns", on > in_sc ? on - in_sc : 0);
	jw_uint(w, "offcpu_ns", probes_thread_ns(r->total) - on);
	jw_uint(w, "thread_ns", probes_thread_ns(r->total));
	jw_uint(w, "sample_hz", r->attached[PROBE_G_ONCPU] ? PROBE_CPU_SAMPLE_HZ : 0);
	jw_uint(w, "samples", m->cpu_samples);
	jw_uint(w, "samples_user", m->cpu_samples_user);
	jw_uint(w, "samples_kernel", kernel);
	jw_uint(w, "samples_no_stack", m->cpu_samples_nostack);
	/* the samples a subsystem other than the delete's own spent */
	jw_object(w, "subsystem_samples");
	for (int ss = 0; ss < SS_COUNT; ss++)
		if (r->cpu.ss_sys[ss] + r->cpu.ss_other[ss])
			jw_uint(w, subsys_id(ss), r->cpu.ss_sys[ss] + r->cpu.ss_other[ss]);
	jw_end(w);
	jw_array(w, "kernel_categories");
	for (int i = 0; i < n; i++) {
		jw_object(w, NULL);
		jw_string(w, "id", cpu_cat_id(order[i]));
		jw_string(w, "name", cpu_cat_name(order[i]));
		jw_uint(w, "samples", r->cpu_samples[order[i]]);
		jw_double(w, "share", (double)r->cpu_samples[order[i]] / (double)kernel);
		jw_end(w);
	}
	jw_end(w);
	jw_end(w);
}

/* The sum of the delete's devices (waits.h: trace_dev.traced). */
static void traced_devs_total(const struct trace_result *r, struct probe_dev_stat *t)
{
	memset(t, 0, sizeof *t);
	for (int i = 0; i < r->ndevs; i++) {
		const struct probe_dev_stat *d = probes_dev_find(r->total, r->devs[i].dev);
		if (!d || !r->devs[i].traced)
			continue;
		unsigned long long *a = (void *)t;
		const unsigned long long *b = (const void *)d;
		for (size_t w = 0; w < sizeof *t / 8; w++)
			a[w] += b[w];
	}
}

/* jbd2 and block events by device: the delete's devices first, then the
 * others apart (a loop device and its backing disk are two devices) */
static void text_devices(FILE *f, const struct trace_result *r)
{
	bool any_other = false;

	if (!r->attached[PROBE_G_JBD2] && !r->attached[PROBE_G_BLOCK])
		return;
	if (!r->ndevs)
		fprintf(f, "  devices: no journal commits or block I/O\n");
	for (int pass = 0; pass < (r->all ? 2 : 1); pass++)
		for (int i = 0; i < r->ndevs; i++) {
			const struct trace_dev *td = &r->devs[i];
			const struct probe_dev_stat *d = probes_dev_find(r->total, td->dev);
			if (!d || td->traced != (pass == 0))
				continue;
			if (!d->jbd2_commits && !d->bio_lat.count && !d->bio_discards &&
			    !d->ext4_discards && !d->other_lat.count && !d->other_discards)
				continue;
			if (pass == 1 && !any_other) {
				fprintf(f,
					"  other devices (not the delete's, not in the verdict):\n");
				any_other = true;
			}
			fprintf(f, "  %s%s%s\n", pass ? "  " : "", td->name,
				pass ? "" : " [the delete's]");
			const char *ind = pass ? "      " : "    ";
			if (d->jbd2_commits)
				trace_fs_text(f, ind, TRACE_FS_LINE_JBD2, NULL, d);
			if (d->bio_lat.count || d->bio_discards)
				trace_fs_text(f, ind, TRACE_FS_LINE_BLOCK, NULL, d);
			if (d->ext4_discards)
				trace_fs_text(f, ind, TRACE_FS_LINE_EXT4_DISCARDS, NULL, d);
			if (d->other_lat.count || d->other_discards)
				trace_fs_text(f, ind, TRACE_FS_LINE_OTHER_BLOCK, NULL, d);
			if (pass == 0 && d->bio_lat.count && r->all)
				print_hist_time(f, "block I/O latency", &d->bio_lat);
		}
}

static void text_fs(FILE *f, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;

	fprintf(f, "\nFilesystem and block events\n");
	if (r->attached[PROBE_G_EXT4]) {
		if (m->ext4_unlink.count || m->ext4_free_calls) {
			trace_fs_text(f, "  ", TRACE_FS_LINE_EXT4, m, NULL);
			if (m->ext4_unlink.count && r->all)
				print_hist_time(f, "ext4_unlink latency", &m->ext4_unlink);
			if (m->ext4_ino_jump.count) {
				fprintf(f,
					"\n  unlink order: %.0f%% of a thread's consecutive unlinks stay within %d inodes (p50 jump %.0f inodes)\n",
					100.0 * trace_ino_near_share(&m->ext4_ino_jump),
					TRACE_INO_NEAR, hist_quantile(&m->ext4_ino_jump, 0.5));
				if (r->all)
					print_hist_block(
						f, "distance to the previous unlinked inode (inodes)",
						&m->ext4_ino_jump);
			}
		} else
			fprintf(f, "  ext4: no activity\n");
	}
	if (r->attached[PROBE_G_XFS]) {
		if (m->xfs_log_grant.count || m->xfs_inodegc_throttles || m->xfs_inactive_queued) {
			trace_fs_text(f, "  ", TRACE_FS_LINE_XFS, m, NULL);
			if (m->xfs_log_grant.count && r->all)
				print_hist_time(f, "xfs log-grant wait", &m->xfs_log_grant);
		} else
			fprintf(f,
				"  xfs: no log-grant waits, inode-GC throttles or inodes queued\n");
	}
	if (r->attached[PROBE_G_BTRFS]) {
		if (m->btrfs_tree_lock.count || m->btrfs_reserve.count) {
			trace_fs_text(f, "  ", TRACE_FS_LINE_BTRFS, m, NULL);
			if (m->btrfs_tree_lock.count && r->all)
				print_hist_time(f, "btrfs tree-lock wait", &m->btrfs_tree_lock);
		} else
			fprintf(f, "  btrfs: no tree-lock waits or reservation tickets\n");
	}
	text_devices(f, r);
}

/* ext4, jbd2 and block: the delete's devices (traced_devs_total); every
 * device with events in "devices" */
static void json_fs(struct json_writer *w, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;
	struct probe_dev_stat t;

	traced_devs_total(r, &t);

	jw_object(w, "fs");
	static const char *const groups[] = { "ext4", "jbd2", "xfs", "btrfs", "block", "other_block" };
	for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
		trace_fs_json(w, groups[i], m, &t);
	jw_array(w, "devices");
	for (int i = 0; i < r->ndevs; i++) {
		const struct probe_dev_stat *d = probes_dev_find(r->total, r->devs[i].dev);
		char dev[24];
		if (!d)
			continue;
		snprintf(dev, sizeof dev, "%u:%u", PROBE_DEV_MAJOR(r->devs[i].dev),
			 PROBE_DEV_MINOR(r->devs[i].dev));
		jw_object(w, NULL);
		jw_string(w, "dev", dev);
		jw_string(w, "name", r->devs[i].name);
		jw_bool(w, "traced", r->devs[i].traced);
		jw_bool(w, "discard_mount", r->devs[i].discard);
		jw_uint(w, "unlinks", d->unlinks);
		jw_uint(w, "ext4_discards", d->ext4_discards);
		jw_uint(w, "ext4_discard_blocks", d->ext4_discard_blocks);
		trace_fs_json(w, "jbd2", NULL, d);
		trace_fs_json(w, "block", NULL, d);
		trace_fs_json(w, "other_block", NULL, d);
		jw_end(w);
	}
	jw_end(w);
	jw_end(w);
}

static void text_intervals(FILE *f, const struct trace_result *r)
{
	if (!r->niv)
		return;
	fprintf(f, "\nIntervals (every %.3g s asked; the last one ends with the trace)\n",
		r->interval_ns / 1e9);
	fprintf(f, "  %8s %8s %7s %10s %10s %10s %10s %10s %10s\n", "t s", "len s", "threads",
		"unlinkat", "p99~ us", "getdents", "lock ms", "D ms", "S ms");
	uint64_t len = 0;
	for (int i = 0; i < r->niv; i++) {
		const struct trace_interval *v = &r->iv[i];
		if (i < r->niv - 1)
			len += v->len_ns;
		fprintf(f, "  %8.3f %8.3f %7u %10llu %10.1f %10llu %10.2f %10.2f %10.2f\n",
			v->t_ns / 1e9, v->len_ns / 1e9, v->nthreads,
			(unsigned long long)v->unlinkat_calls, v->unlinkat_p99_ns / 1e3,
			(unsigned long long)v->getdents_calls, v->lock_wait_ns / 1e6,
			v->blocked_ns / 1e6, v->sleeping_ns / 1e6);
	}
	/* the sampler cannot keep every pace: say when rows are longer than asked */
	if (r->niv > 1 && r->interval_ns && len / (r->niv - 1) > r->interval_ns * 3 / 2)
		fprintf(f,
			"  note: rows are %.3g s apart on average, not every %.3g s: sampling could not keep up\n",
			len / (r->niv - 1) / 1e9, r->interval_ns / 1e9);
}

static void json_intervals(struct json_writer *w, const struct trace_result *r)
{
	jw_uint(w, "interval_ns", r->interval_ns);
	jw_array(w, "intervals");
	for (int i = 0; i < r->niv; i++) {
		const struct trace_interval *v = &r->iv[i];
		jw_object(w, NULL);
		jw_uint(w, "t_ns", v->t_ns);
		jw_uint(w, "len_ns", v->len_ns);
		jw_uint(w, "threads", v->nthreads);
		jw_uint(w, "unlinkat_calls", v->unlinkat_calls);
		jw_uint(w, "unlinkat_ns", v->unlinkat_ns);
		jw_double(w, "unlinkat_p50_ns", v->unlinkat_p50_ns);
		jw_double(w, "unlinkat_p99_ns", v->unlinkat_p99_ns);
		jw_uint(w, "getdents64_calls", v->getdents_calls);
		jw_uint(w, "getdents64_ns", v->getdents_ns);
		jw_uint(w, "openat_calls", v->openat_calls);
		jw_uint(w, "lock_wait_ns", v->lock_wait_ns);
		jw_uint(w, "rwsem_write_wait_ns", v->rwsem_write_wait_ns);
		jw_uint(w, "blocked_ns", v->blocked_ns);
		jw_uint(w, "sleeping_ns", v->sleeping_ns);
		jw_uint(w, "preempted_ns", v->preempted_ns);
		jw_uint(w, "other_state_ns", v->other_state_ns);
		jw_uint(w, "oncpu_ns", v->oncpu_ns);
		jw_uint(w, "oncpu_syscall_ns", v->oncpu_syscall_ns);
		jw_uint(w, "oncpu_wait_syscall_ns", v->oncpu_wait_syscall_ns);
		jw_end(w);
	}
	jw_end(w);
}

/* The wait sites: where the traced threads blocked (D) or slept inside a
 * busy syscall (S), named by the first frame outside scheduling, waiting
 * and locking code, with the cause the classification table gives. */
static void text_wait_sites(FILE *f, const struct trace_result *r)
{
	uint64_t all = 0;
	char b1[32], b2[32];

	if (!r->attached[PROBE_G_OFFCPU])
		return;
	for (int i = 0; i < r->nsites; i++)
		all += r->sites[i].total_ns;
	fprintf(f, "\nWait sites (off-CPU in D, or in S inside a busy syscall; share of %s)\n",
		trace_fmt_ns((double)all, b1, sizeof b1));
	if (!r->nsites) {
		fprintf(f, "  %s\n",
			r->have_sites || r->total->misc.offcpu[PROBE_OFFCPU_BLOCKED].count ?
				"no stacks recorded (--no-callers)" :
				"none");
		return;
	}
	fprintf(f, "  %12s %9s %6s %2s  %-28s %s\n", "off-CPU", "waits", "share", "st", "cause",
		"site <- callers");
	int shown = r->all ? TRACE_MAX_SITES : 5;
	for (int i = 0; i < r->nsites && i < shown; i++) {
		const struct trace_wait_site *w = &r->sites[i];
		char cause[48];
		if (w->lock || w->detail)
			snprintf(cause, sizeof cause, "%s (%s)", trace_cause_name(w->cause),
				 w->lock ? w->lock : w->detail);
		else
			snprintf(cause, sizeof cause, "%s", trace_cause_name(w->cause));
		fprintf(f, "  %12s %9llu %5.1f%% %2s  %-28s %s",
			trace_fmt_ns((double)w->total_ns, b2, sizeof b2),
			(unsigned long long)w->count, all ? 100.0 * w->total_ns / all : 0,
			w->state == PROBE_OFFCPU_BLOCKED ? "D" : "S", cause, w->site);
		for (int j = 0; j < w->nstack && j < 3; j++)
			fprintf(f, " <- %s", w->stack[j]);
		if (w->other_fs)
			fprintf(f, " [%s: not the delete's filesystem]", w->fs);
		fprintf(f, "\n");
	}
	if (r->nsites > shown)
		fprintf(f, "  ... %d more sites (--all, the JSON)\n", r->nsites - shown);
	if (r->total->misc.wait_sites_lost)
		fprintf(f, "  note: %llu waits (%s) not recorded: the wait-site table was full\n",
			r->total->misc.wait_sites_lost,
			trace_fmt_ns((double)r->total->misc.wait_sites_lost_ns, b1, sizeof b1));
}

static void json_wait_sites(struct json_writer *w, const struct trace_result *r)
{
	uint64_t all = 0;

	for (int i = 0; i < r->nsites; i++)
		all += r->sites[i].total_ns;
	jw_array(w, "wait_sites");
	for (int i = 0; i < r->nsites; i++) {
		const struct trace_wait_site *s = &r->sites[i];
		jw_object(w, NULL);
		jw_string(w, "site", s->site);
		jw_string(w, "cause", trace_cause_id(s->cause));
		if (s->subsys >= 0)
			jw_string(w, "subsystem", subsys_id(s->subsys));
		if (s->lock)
			jw_string(w, "lock", s->lock);
		jw_string(w, "state", s->state == PROBE_OFFCPU_BLOCKED ? "D" : "S");
		if (s->helper)
			jw_bool(w, "helper", true);
		if (s->fs)
			jw_string(w, "fs", s->fs);
		if (s->other_fs)
			jw_bool(w, "other_fs", true);
		jw_uint(w, "count", s->count);
		jw_uint(w, "total_ns", s->total_ns);
		jw_uint(w, "blocked_ns", s->blocked_ns);
		jw_double(w, "share", all ? (double)s->total_ns / (double)all : 0);
		jw_array_compact(w, "stack");
		for (int j = 0; j < s->nstack; j++)
			jw_string(w, NULL, s->stack[j]);
		jw_end(w);
		jw_end(w);
	}
	jw_end(w);
	jw_uint(w, "wait_sites_lost", r->total->misc.wait_sites_lost);
}

/* Waiting to run: from sched_wakeup to running, and preempted. */
static void text_runq(FILE *f, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;
	const struct probe_hist *h = &m->runq;
	double all = (double)(h->total + m->offcpu[PROBE_OFFCPU_PREEMPTED].total);
	char b1[32], b2[32], b3[32], b4[32];

	if (!r->attached[PROBE_G_RUNQ] || !r->all)
		return;
	fprintf(f, "\nWaiting to run (run-queue delay of the traced threads)\n");
	fprintf(f, "  after wakeups        %9llu times, %12s total, p50 %s, p99 %s\n",
		(unsigned long long)h->count, trace_fmt_ns((double)h->total, b1, sizeof b1),
		trace_fmt_ns(hist_quantile(h, 0.5), b2, sizeof b2),
		trace_fmt_ns(hist_quantile(h, 0.99), b3, sizeof b3));
	fprintf(f,
		"  inside busy syscalls %s after wakeups, %s preempted; %.0f%% of all run-queue "
		"and preempted time behind other traced threads\n",
		trace_fmt_ns((double)m->busy_runq_ns, b1, sizeof b1),
		trace_fmt_ns((double)m->busy_preempt_ns, b4, sizeof b4),
		all > 0 ? 100.0 * (double)m->runq_traced_ns / all : 0);
}

static void json_runq(struct json_writer *w, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;

	jw_object(w, "runq");
	trace_json_hist(w, "wakeup_to_run_ns", &m->runq);
	jw_uint(w, "busy_runq_ns", m->busy_runq_ns);
	jw_uint(w, "busy_preempted_ns", m->busy_preempt_ns);
	jw_uint(w, "behind_traced_ns", m->runq_traced_ns);
	static const char *const fsw[PROBE_FSW_COUNT] = {
		[PROBE_FSW_XFS_INODEGC] = "xfs_inodegc",
		[PROBE_FSW_XFS] = "xfs",
		[PROBE_FSW_EXT4] = "ext4",
		[PROBE_FSW_BTRFS] = "btrfs",
		[PROBE_FSW_WRITEBACK] = "writeback",
		[PROBE_FSW_SOFTIRQ] = "softirq_rcu",
	};
	jw_object(w, "behind_fs_workers_ns");
	for (int i = 0; i < PROBE_FSW_COUNT; i++)
		jw_uint(w, fsw[i], m->runq_behind_fsw_ns[i]);
	jw_end(w);
	jw_end(w);
}

/* -rf: the adaptive controller's decisions */
static void text_controller(FILE *f, const struct trace_result *r)
{
	print_controller(f, r);
}

static void json_controller(struct json_writer *w, const struct trace_result *r)
{
	if (!r->controller)
		return;
	jw_object(w, "controller");
	jw_string(w, "summary", r->controller);
	jw_array(w, "decisions");
	for (size_t i = 0; i < r->ndecisions; i++) {
		jw_object(w, NULL);
		jw_double(w, "t", r->decisions[i].t);
		jw_int(w, "from", r->decisions[i].from);
		jw_int(w, "to", r->decisions[i].to);
		jw_string(w, "why", r->decisions[i].why);
		jw_end(w);
	}
	jw_end(w);
	jw_end(w);
}

/* The cgroups' limits and what they did (cgroups.c). */
static void text_cgroups(FILE *f, const struct trace_result *r)
{
	if (r->cgroups)
		trace_cgroups_text(f, r->cgroups);
}

static void json_cgroups(struct json_writer *w, const struct trace_result *r)
{
	if (r->cgroups)
		trace_cgroups_json(w, r->cgroups);
}

/* Both reports walk this list: a section is in both or in neither. */
static const struct report_section {
	const char *name;
	void (*text)(FILE *, const struct trace_result *);
	void (*json)(struct json_writer *, const struct trace_result *);
} sections[] = {
	{ "header", text_header, json_header },
	{ "verdict", trace_text_verdict, trace_json_verdict },
	{ "syscalls", text_syscalls, json_syscalls },
	{ "locks", text_locks, json_locks },
	{ "offcpu", text_offcpu, json_offcpu },
	{ "oncpu", text_oncpu, json_oncpu },
	{ "states", trace_text_states, trace_json_states },
	{ "wakers", trace_text_wakers, trace_json_wakers },
	{ "wait_sites", text_wait_sites, json_wait_sites },
	{ "runq", text_runq, json_runq },
	{ "fs", text_fs, json_fs },
	{ "cgroups", text_cgroups, json_cgroups },
	{ "intervals", text_intervals, json_intervals },
	{ "controller", text_controller, json_controller },
};
#define NSECTIONS (sizeof sections / sizeof *sections)

void trace_report_text(FILE *f, const struct trace_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = r->width ? open_memstream(&buf, &len) : NULL;

	/* the sections print whole lines; the wrap, if any, is done once here */
	for (size_t i = 0; i < NSECTIONS; i++)
		sections[i].text(m ? m : f, r);
	if (m) {
		fclose(m);
		wrap_text(f, buf, r->width);
		free(buf);
	}
}

void trace_report_json(FILE *f, const struct trace_result *r)
{
	struct json_writer w;

	jw_init(&w, f);
	jw_object(&w, NULL);
	for (size_t i = 0; i < NSECTIONS; i++)
		sections[i].json(&w, r);
	jw_finish(&w);
}
