// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace report: strace -c style table, DTrace quantize histograms,
 * lock, off-CPU and filesystem sections, a ranked verdict; and the same
 * data as JSON (schema in docs/json.md). Each section's rows come from its
 * model (report_model.h); the functions here only format them, so a row is
 * chosen in one place for both renderings. */
#include "trace/report.h"
#include "lib/json.h"
#include "lib/wrap.h"
#include "probes/hist.h"
#include "trace/cgroups.h"
#include "trace/fsfields.h"
#include "trace/measure.h"
#include "trace/report_model.h"
#include "trace/states.h"
#include "trace/verdict.h"
#include "trace/waits.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers of the sections ---- */

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

/* ---- the sections, each as text and as JSON ---- */

static void text_header(FILE *f, const struct report_model *model)
{
	const struct trace_result *r = model->r;

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

static void json_header(struct json_writer *w, const struct report_model *model)
{
	const struct trace_result *r = model->r;

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

/* the strace -c table */
static void text_syscall_table(FILE *f, const struct report_syscalls *m)
{
	fprintf(f, "%6s %11s %11s %9s %9s %10s %10s %s\n", "% time", "seconds", "usecs/call",
		"calls", "errors", "p50~ usecs", "p99~ usecs", "syscall");
	fprintf(f,
		"------ ----------- ----------- --------- --------- ---------- ---------- ----------------\n");
	for (int i = 0; i < m->shown; i++) {
		const struct report_syscall *x = &m->rows[i];
		fprintf(f, "%6.2f %11.6f %11.0f %9llu ", x->pct, x->st->lat.total / 1e9,
			x->mean_ns / 1e3, (unsigned long long)x->st->lat.count);
		if (x->st->errors)
			fprintf(f, "%9llu ", (unsigned long long)x->st->errors);
		else
			fprintf(f, "%9s ", "");
		fprintf(f, "%10.1f %10.1f %s\n", x->p50_ns / 1e3, x->p99_ns / 1e3, x->name);
	}
	if (m->shown < m->n)
		fprintf(f, "%6s %11s %11s %9s   ... %d more syscalls (--all)\n", "", "", "", "",
			m->n - m->shown);
	fprintf(f,
		"------ ----------- ----------- --------- --------- ---------- ---------- ----------------\n");
	fprintf(f, "%6.2f %11.6f %11.0f %9llu ", 100.0, m->total_ns / 1e9,
		m->calls ? m->total_ns / 1e3 / m->calls : 0, (unsigned long long)m->calls);
	if (m->errors)
		fprintf(f, "%9llu ", (unsigned long long)m->errors);
	else
		fprintf(f, "%9s ", "");
	fprintf(f, "%10s %10s total\n", "", "");
	fprintf(f, "~ estimated within log2 buckets, capped at the largest possible call\n");
}

/* the strace -c table, then the deletion syscalls' histograms */
static void text_syscalls(FILE *f, const struct report_model *model)
{
	const struct report_syscalls *m = &model->syscalls;
	char b1[32], title[128];

	fprintf(f, "\n");
	text_syscall_table(f, m);
	fprintf(f, "\nLatency of the %s syscalls\n", m->all ? "traced" : "deletion");
	for (int i = 0; i < m->n; i++) {
		const struct report_syscall *x = &m->rows[m->hist_order[i]];
		if (!x->hist)
			continue;
		snprintf(title, sizeof title, "%s: %llu calls, %llu errors, mean %s", x->name,
			 (unsigned long long)x->st->lat.count, (unsigned long long)x->st->errors,
			 trace_fmt_ns(x->mean_ns, b1, sizeof b1));
		print_hist_time(f, title, &x->st->lat);
		if (x->nr == PROBE_NR_UNLINKAT && m->removedir->count) {
			snprintf(title, sizeof title, "unlinkat(AT_REMOVEDIR): %llu calls, mean %s",
				 (unsigned long long)m->removedir->count,
				 trace_fmt_ns(hist_mean(m->removedir), b1, sizeof b1));
			print_hist_time(f, title, m->removedir);
		}
	}
	if (m->getdents_hist) {
		snprintf(title, sizeof title, "getdents64 bytes returned per call: mean %.0f",
			 hist_mean(m->getdents_bytes));
		print_hist_block(f, title, m->getdents_bytes);
	}
	if (m->hidden)
		fprintf(f,
			"\n  %d more histogram%s (syscalls with fewer than %d calls, or not deletion syscalls): --all or the JSON\n",
			m->hidden, m->hidden == 1 ? "" : "s", TRACE_HIST_MIN_CALLS);
}

static void json_syscalls(struct json_writer *w, const struct report_model *model)
{
	const struct report_syscalls *m = &model->syscalls;

	jw_array(w, "syscalls");
	for (int i = 0; i < m->n; i++) {
		const struct report_syscall *x = &m->rows[i];
		jw_object(w, NULL);
		jw_string(w, "name", x->name);
		jw_int(w, "nr", x->nr);
		jw_uint(w, "calls", x->st->lat.count);
		jw_uint(w, "errors", x->st->errors);
		jw_uint(w, "total_ns", x->st->lat.total);
		trace_json_hist(w, "latency_ns", &x->st->lat);
		jw_end(w);
	}
	jw_end(w);
	trace_json_hist(w, "unlinkat_removedir_ns", m->removedir);
	trace_json_hist(w, "getdents64_bytes", m->getdents_bytes);
}

/* wait histograms by lock type, then the top contended callers */
static void text_locks(FILE *f, const struct report_model *model)
{
	const struct report_locks *m = &model->locks;
	char b1[32], b2[32], title[128];

	fprintf(f, "\nLock contention by lock type%s\n", m->callers_shown ? "" : " (callers: --all)");
	if (!m->traced)
		fprintf(f, "  not traced\n");
	for (int i = 0; i < m->ntypes; i++) {
		const struct report_lock_type *x = &m->types[i];
		snprintf(title, sizeof title, "%s (flags 0x%x): %llu waits, %s total, p99 %s",
			 x->name, x->flags, (unsigned long long)x->wait->count,
			 trace_fmt_ns((double)x->wait->total, b1, sizeof b1),
			 trace_fmt_ns(x->p99_ns, b2, sizeof b2));
		if (m->hists)
			print_hist_time(f, title, x->wait);
		else
			fprintf(f, "  %s\n", title);
	}
	if (m->traced && !m->ntypes)
		fprintf(f, "  no contended locks\n");
	if (!m->ncallers || !m->callers_shown)
		return;
	fprintf(f, "\n  %10s %12s %12s %12s   %s\n", "contended", "total wait", "avg wait", "type",
		"caller");
	for (int i = 0; i < m->ncallers; i++) {
		const struct report_lock_caller *c = &m->callers[i];
		fprintf(f, "  %10llu %12s %12s %12s   %s\n", (unsigned long long)c->count,
			trace_fmt_ns((double)c->total_ns, b1, sizeof b1),
			trace_fmt_ns(c->avg_ns, b2, sizeof b2), c->type, c->caller);
	}
}

static void json_locks(struct json_writer *w, const struct report_model *model)
{
	const struct report_locks *m = &model->locks;

	jw_array(w, "locks");
	for (int i = 0; i < m->ntypes; i++) {
		jw_object(w, NULL);
		jw_string(w, "type", m->types[i].name);
		jw_uint(w, "flags", m->types[i].flags);
		trace_json_hist(w, "wait_ns", m->types[i].wait);
		jw_end(w);
	}
	jw_end(w);
	jw_array(w, "lock_callers");
	for (int i = 0; i < m->ncallers; i++) {
		jw_object(w, NULL);
		jw_string(w, "caller", m->callers[i].caller);
		jw_string(w, "type", m->callers[i].type);
		jw_uint(w, "count", m->callers[i].count);
		jw_uint(w, "total_ns", m->callers[i].total_ns);
		jw_end(w);
	}
	jw_end(w);
}

/* The traced threads' time by state: on CPU, runnable, blocked and
 * sleeping with the run-queue delay after their wakeup apart, idle. */
static void text_offcpu(FILE *f, const struct report_model *model)
{
	const struct report_offcpu *m = &model->offcpu;
	char b1[32], b2[32], b3[32];

	fprintf(f, "\nThread time by state\n");
	if (m->cpu->have)
		fprintf(f,
			"  on CPU                %12s user, %s kernel in syscalls, %s kernel outside\n",
			trace_fmt_ns((double)m->cpu->user_ns, b1, sizeof b1),
			trace_fmt_ns((double)m->cpu->syscall_ns, b2, sizeof b2),
			trace_fmt_ns((double)m->cpu->kernel_other_ns, b3, sizeof b3));
	if (!m->traced) {
		fprintf(f, "  off CPU: not traced\n");
		return;
	}
	if (m->by_sites) {
		fprintf(f, "  blocked (D)           %12s, then %s waiting to run (%llu times)\n",
			trace_fmt_ns(m->blocked_ns, b1, sizeof b1),
			trace_fmt_ns(m->blocked_rq_ns, b2, sizeof b2),
			(unsigned long long)m->blocked->count);
		fprintf(f, "  sleeping in syscalls  %12s, then %s waiting to run\n",
			trace_fmt_ns(m->slept_ns, b1, sizeof b1),
			trace_fmt_ns(m->slept_rq_ns, b2, sizeof b2));
	} else {
		fprintf(f, "  blocked (D)           %12s with the run-queue delay (%llu times)\n",
			trace_fmt_ns((double)m->blocked->total, b1, sizeof b1),
			(unsigned long long)m->blocked->count);
	}
	fprintf(f, "  sleeping (S), all     %12s with the run-queue delay (%llu times)\n",
		trace_fmt_ns((double)m->sleeping->total, b1, sizeof b1),
		(unsigned long long)m->sleeping->count);
	fprintf(f, "  preempted (runnable)  %12s (%llu times, p99 %s)\n",
		trace_fmt_ns((double)m->preempted->total, b1, sizeof b1),
		(unsigned long long)m->preempted->count,
		trace_fmt_ns(m->preempted_p99_ns, b2, sizeof b2));
	fprintf(f, "  wakeup to running     %12s (%llu times, p99 %s)\n",
		trace_fmt_ns((double)m->runq->total, b1, sizeof b1),
		(unsigned long long)m->runq->count, trace_fmt_ns(m->runq_p99_ns, b2, sizeof b2));
	if (m->blocked_hist)
		print_hist_time(f, "blocked (D) time per switch", m->blocked);
}

static void json_offcpu(struct json_writer *w, const struct report_model *model)
{
	const struct report_offcpu *m = &model->offcpu;

	jw_object(w, "offcpu");
	trace_json_hist(w, "blocked_ns", m->blocked);
	trace_json_hist(w, "sleeping_ns", m->sleeping);
	trace_json_hist(w, "preempted_ns", m->preempted);
	jw_end(w);
}

/* The traced threads' whole time, on and off CPU, and what the on-CPU
 * kernel samples were doing, by category over 1% (evidence, not in the
 * verdict). */
static void text_oncpu(FILE *f, const struct report_model *model)
{
	const struct report_oncpu *m = &model->oncpu;
	char b1[32], b2[32], b3[32], b4[32], b5[32];

	if (!m->traced)
		return;
	fprintf(f, "\nOn-CPU time of the traced threads\n");
	fprintf(f,
		"  %s on CPU of %s thread time: %s in busy syscalls, %s in waiting syscalls, "
		"%s outside syscalls\n",
		trace_fmt_ns((double)m->oncpu_ns, b1, sizeof b1),
		trace_fmt_ns((double)m->thread_ns, b2, sizeof b2),
		trace_fmt_ns((double)m->syscall_ns, b3, sizeof b3),
		trace_fmt_ns((double)m->wait_syscall_ns, b4, sizeof b4),
		trace_fmt_ns((double)m->outside_ns, b5, sizeof b5));
	if (!m->sampled)
		return;
	fprintf(f, "  %llu samples at %u Hz per CPU, %.0f%% in user mode",
		(unsigned long long)m->samples, m->sample_hz, 100.0 * m->user_share);
	if (m->samples_nostack)
		fprintf(f, ", %llu without a kernel stack", (unsigned long long)m->samples_nostack);
	fprintf(f, "\n");
	if (!m->samples_kernel)
		return;
	fprintf(f, "  on-CPU kernel:");
	for (int i = 0, shown = 0; i < m->ncats; i++) {
		const struct report_cpu_cat *x = &m->cats[i];
		if (!x->shown)
			continue;
		fprintf(f, "%s %s %.0f%%", shown++ ? "," : "", cpu_cat_name(x->cat), 100 * x->share);
	}
	fprintf(f, " (of %llu kernel samples)\n", (unsigned long long)m->samples_kernel);
}

static void json_oncpu(struct json_writer *w, const struct report_model *model)
{
	const struct report_oncpu *m = &model->oncpu;

	jw_object(w, "oncpu");
	jw_uint(w, "oncpu_ns", m->oncpu_ns);
	jw_uint(w, "syscall_ns", m->syscall_ns);
	jw_uint(w, "wait_syscall_ns", m->wait_syscall_ns);
	jw_uint(w, "outside_syscall_ns", m->outside_ns);
	jw_uint(w, "offcpu_ns", m->offcpu_ns);
	jw_uint(w, "thread_ns", m->thread_ns);
	jw_uint(w, "sample_hz", m->sample_hz);
	jw_uint(w, "samples", m->samples);
	jw_uint(w, "samples_user", m->samples_user);
	jw_uint(w, "samples_kernel", m->samples_kernel);
	jw_uint(w, "samples_no_stack", m->samples_nostack);
	/* the samples a subsystem other than the delete's own spent */
	jw_object(w, "subsystem_samples");
	for (int ss = 0; ss < SS_COUNT; ss++)
		if (m->subsys[ss])
			jw_uint(w, subsys_id(ss), m->subsys[ss]);
	jw_end(w);
	jw_array(w, "kernel_categories");
	for (int i = 0; i < m->ncats; i++) {
		const struct report_cpu_cat *x = &m->cats[i];
		jw_object(w, NULL);
		jw_string(w, "id", cpu_cat_id(x->cat));
		jw_string(w, "name", cpu_cat_name(x->cat));
		jw_uint(w, "samples", x->samples);
		jw_double(w, "share", x->share);
		jw_end(w);
	}
	jw_end(w);
	jw_end(w);
}

/* jbd2 and block events by device: the delete's devices first, then the
 * others apart (a loop device and its backing disk are two devices) */
static void text_devices(FILE *f, const struct report_fs *m)
{
	bool any_other = false;

	if (!m->devs_traced)
		return;
	if (!m->ndevs)
		fprintf(f, "  devices: no journal commits or block I/O\n");
	for (int i = 0; i < m->ndevs; i++) {
		const struct report_fs_dev *x = &m->devs[i];
		bool other = !x->td->traced;
		if (!x->shown)
			continue;
		if (other && !any_other) {
			fprintf(f, "  other devices (not the delete's, not in the verdict):\n");
			any_other = true;
		}
		fprintf(f, "  %s%s%s\n", other ? "  " : "", x->td->name,
			other ? "" : " [the delete's]");
		const char *ind = other ? "      " : "    ";
		if (x->jbd2)
			trace_fs_text(f, ind, TRACE_FS_LINE_JBD2, NULL, x->d);
		if (x->block)
			trace_fs_text(f, ind, TRACE_FS_LINE_BLOCK, NULL, x->d);
		if (x->ext4_discards)
			trace_fs_text(f, ind, TRACE_FS_LINE_EXT4_DISCARDS, NULL, x->d);
		if (x->other_block)
			trace_fs_text(f, ind, TRACE_FS_LINE_OTHER_BLOCK, NULL, x->d);
		if (x->latency_hist)
			print_hist_time(f, "block I/O latency", &x->d->bio_lat);
	}
}

static void text_fs(FILE *f, const struct report_model *model)
{
	const struct report_fs *fs = &model->fs;
	const struct probe_misc *m = fs->m;

	fprintf(f, "\nFilesystem and block events\n");
	if (fs->ext4.traced) {
		if (fs->ext4.active) {
			trace_fs_text(f, "  ", TRACE_FS_LINE_EXT4, m, NULL);
			if (fs->ext4.hist)
				print_hist_time(f, "ext4_unlink latency", &m->ext4_unlink);
			if (fs->ino_order) {
				fprintf(f,
					"\n  unlink order: %.0f%% of a thread's consecutive unlinks stay within %d inodes (p50 jump %.0f inodes)\n",
					100.0 * fs->ino_near_share, TRACE_INO_NEAR, fs->ino_p50);
				if (fs->ino_hist)
					print_hist_block(
						f, "distance to the previous unlinked inode (inodes)",
						&m->ext4_ino_jump);
			}
		} else
			fprintf(f, "  ext4: no activity\n");
	}
	if (fs->xfs.traced) {
		if (fs->xfs.active) {
			trace_fs_text(f, "  ", TRACE_FS_LINE_XFS, m, NULL);
			if (fs->xfs.hist)
				print_hist_time(f, "xfs log-grant wait", &m->xfs_log_grant);
		} else
			fprintf(f,
				"  xfs: no log-grant waits, inode-GC throttles or inodes queued\n");
	}
	if (fs->btrfs.traced) {
		if (fs->btrfs.active) {
			trace_fs_text(f, "  ", TRACE_FS_LINE_BTRFS, m, NULL);
			if (fs->btrfs.hist)
				print_hist_time(f, "btrfs tree-lock wait", &m->btrfs_tree_lock);
		} else
			fprintf(f, "  btrfs: no tree-lock waits or reservation tickets\n");
	}
	text_devices(f, fs);
}

/* ext4, jbd2 and block: the delete's devices added up; every device with
 * events in "devices", in the text's order */
static void json_fs(struct json_writer *w, const struct report_model *model)
{
	const struct report_fs *fs = &model->fs;

	jw_object(w, "fs");
	static const char *const groups[] = { "ext4", "jbd2", "xfs", "btrfs", "block", "other_block" };
	for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
		trace_fs_json(w, groups[i], fs->m, &fs->delete_devs);
	jw_array(w, "devices");
	for (int i = 0; i < fs->ndevs; i++) {
		const struct report_fs_dev *x = &fs->devs[i];
		jw_object(w, NULL);
		jw_string(w, "dev", x->id);
		jw_string(w, "name", x->td->name);
		jw_bool(w, "traced", x->td->traced);
		jw_bool(w, "discard_mount", x->td->discard);
		jw_uint(w, "unlinks", x->d->unlinks);
		jw_uint(w, "ext4_discards", x->d->ext4_discards);
		jw_uint(w, "ext4_discard_blocks", x->d->ext4_discard_blocks);
		trace_fs_json(w, "jbd2", NULL, x->d);
		trace_fs_json(w, "block", NULL, x->d);
		trace_fs_json(w, "other_block", NULL, x->d);
		jw_end(w);
	}
	jw_end(w);
	jw_end(w);
}

static void text_intervals(FILE *f, const struct report_model *model)
{
	const struct report_intervals *m = &model->intervals;

	if (!m->n)
		return;
	fprintf(f, "\nIntervals (every %.3g s asked; the last one ends with the trace)\n",
		m->asked_ns / 1e9);
	fprintf(f, "  %8s %8s %7s %10s %10s %10s %10s %10s %10s\n", "t s", "len s", "threads",
		"unlinkat", "p99~ us", "getdents", "lock ms", "D ms", "S ms");
	for (int i = 0; i < m->n; i++) {
		const struct trace_interval *v = &m->rows[i];
		fprintf(f, "  %8.3f %8.3f %7u %10llu %10.1f %10llu %10.2f %10.2f %10.2f\n",
			v->t_ns / 1e9, v->len_ns / 1e9, v->nthreads,
			(unsigned long long)v->unlinkat_calls, v->unlinkat_p99_ns / 1e3,
			(unsigned long long)v->getdents_calls, v->lock_wait_ns / 1e6,
			v->blocked_ns / 1e6, v->sleeping_ns / 1e6);
	}
	if (m->late)
		fprintf(f,
			"  note: rows are %.3g s apart on average, not every %.3g s: sampling could not keep up\n",
			m->spacing_ns / 1e9, m->asked_ns / 1e9);
}

static void json_intervals(struct json_writer *w, const struct report_model *model)
{
	const struct report_intervals *m = &model->intervals;

	jw_uint(w, "interval_ns", m->asked_ns);
	jw_array(w, "intervals");
	for (int i = 0; i < m->n; i++) {
		const struct trace_interval *v = &m->rows[i];
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
static void text_wait_sites(FILE *f, const struct report_model *model)
{
	const struct report_sites *m = &model->sites;
	char b1[32], b2[32];

	if (!m->traced)
		return;
	fprintf(f, "\nWait sites (off-CPU in D, or in S inside a busy syscall; share of %s)\n",
		trace_fmt_ns((double)m->all_ns, b1, sizeof b1));
	if (!m->n) {
		fprintf(f, "  %s\n", m->no_stacks ? "no stacks recorded (--no-callers)" : "none");
		return;
	}
	fprintf(f, "  %12s %9s %6s %2s  %-28s %s\n", "off-CPU", "waits", "share", "st", "cause",
		"site <- callers");
	for (int i = 0; i < m->shown; i++) {
		const struct trace_wait_site *w = m->rows[i].w;
		char cause[48];
		if (w->lock || w->detail)
			snprintf(cause, sizeof cause, "%s (%s)", trace_cause_name(w->cause),
				 w->lock ? w->lock : w->detail);
		else
			snprintf(cause, sizeof cause, "%s", trace_cause_name(w->cause));
		fprintf(f, "  %12s %9llu %5.1f%% %2s  %-28s %s",
			trace_fmt_ns((double)w->total_ns, b2, sizeof b2),
			(unsigned long long)w->count, 100.0 * m->rows[i].share,
			w->state == PROBE_OFFCPU_BLOCKED ? "D" : "S", cause, w->site);
		for (int j = 0; j < w->nstack && j < 3; j++)
			fprintf(f, " <- %s", w->stack[j]);
		if (w->other_fs)
			fprintf(f, " [%s: not the delete's filesystem]", w->fs);
		fprintf(f, "\n");
	}
	if (m->n > m->shown)
		fprintf(f, "  ... %d more sites (--all, the JSON)\n", m->n - m->shown);
	if (m->lost)
		fprintf(f, "  note: %llu waits (%s) not recorded: the wait-site table was full\n",
			(unsigned long long)m->lost, trace_fmt_ns((double)m->lost_ns, b1, sizeof b1));
}

static void json_wait_sites(struct json_writer *w, const struct report_model *model)
{
	const struct report_sites *m = &model->sites;

	jw_array(w, "wait_sites");
	for (int i = 0; i < m->n; i++) {
		const struct trace_wait_site *s = m->rows[i].w;
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
		jw_double(w, "share", m->rows[i].share);
		jw_array_compact(w, "stack");
		for (int j = 0; j < s->nstack; j++)
			jw_string(w, NULL, s->stack[j]);
		jw_end(w);
		jw_end(w);
	}
	jw_end(w);
	jw_uint(w, "wait_sites_lost", m->lost);
}

/* Waiting to run: from sched_wakeup to running, and preempted. */
static void text_runq(FILE *f, const struct report_model *model)
{
	const struct report_runq *m = &model->runq;
	char b1[32], b2[32], b3[32], b4[32];

	if (!m->shown)
		return;
	fprintf(f, "\nWaiting to run (run-queue delay of the traced threads)\n");
	fprintf(f, "  after wakeups        %9llu times, %12s total, p50 %s, p99 %s\n",
		(unsigned long long)m->wakeup->count,
		trace_fmt_ns((double)m->wakeup->total, b1, sizeof b1),
		trace_fmt_ns(m->p50_ns, b2, sizeof b2), trace_fmt_ns(m->p99_ns, b3, sizeof b3));
	fprintf(f,
		"  inside busy syscalls %s after wakeups, %s preempted; %.0f%% of all run-queue "
		"and preempted time behind other traced threads\n",
		trace_fmt_ns((double)m->busy_runq_ns, b1, sizeof b1),
		trace_fmt_ns((double)m->busy_preempted_ns, b4, sizeof b4),
		100.0 * m->behind_traced_share);
}

static void json_runq(struct json_writer *w, const struct report_model *model)
{
	const struct report_runq *m = &model->runq;

	jw_object(w, "runq");
	trace_json_hist(w, "wakeup_to_run_ns", m->wakeup);
	jw_uint(w, "busy_runq_ns", m->busy_runq_ns);
	jw_uint(w, "busy_preempted_ns", m->busy_preempted_ns);
	jw_uint(w, "behind_traced_ns", m->behind_traced_ns);
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
		jw_uint(w, fsw[i], m->behind_fsw_ns[i]);
	jw_end(w);
	jw_end(w);
}

/* -rf: what the adaptive controller did while the probes watched, so that
 * a change of the worker count can be read against the histograms. */
static void text_controller(FILE *f, const struct report_model *model)
{
	const struct trace_result *r = model->r;

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

static void json_controller(struct json_writer *w, const struct report_model *model)
{
	const struct trace_result *r = model->r;

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

/* The sections whose model is elsewhere: the verdict (findings.h), the
 * states, the wakers and the cgroups each render their own computed object
 * from the result. */
static void text_verdict(FILE *f, const struct report_model *model)
{
	trace_text_verdict(f, model->r);
}

static void json_verdict(struct json_writer *w, const struct report_model *model)
{
	trace_json_verdict(w, model->r);
}

static void text_states(FILE *f, const struct report_model *model)
{
	trace_text_states(f, model->r);
}

static void json_states(struct json_writer *w, const struct report_model *model)
{
	trace_json_states(w, model->r);
}

static void text_wakers(FILE *f, const struct report_model *model)
{
	trace_text_wakers(f, model->r);
}

static void json_wakers(struct json_writer *w, const struct report_model *model)
{
	trace_json_wakers(w, model->r);
}

static void text_cgroups(FILE *f, const struct report_model *model)
{
	if (model->r->cgroups)
		trace_cgroups_text(f, model->r->cgroups);
}

static void json_cgroups(struct json_writer *w, const struct report_model *model)
{
	if (model->r->cgroups)
		trace_cgroups_json(w, model->r->cgroups);
}

/* Both reports walk this list: a section is in both or in neither. */
static const struct report_section {
	const char *name;
	void (*text)(FILE *, const struct report_model *);
	void (*json)(struct json_writer *, const struct report_model *);
} sections[] = {
	{ "header", text_header, json_header },
	{ "verdict", text_verdict, json_verdict },
	{ "syscalls", text_syscalls, json_syscalls },
	{ "locks", text_locks, json_locks },
	{ "offcpu", text_offcpu, json_offcpu },
	{ "oncpu", text_oncpu, json_oncpu },
	{ "states", text_states, json_states },
	{ "wakers", text_wakers, json_wakers },
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
	struct report_model *model = trace_report_model(r);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = r->width ? open_memstream(&buf, &len) : NULL;

	/* the sections print whole lines; the wrap, if any, is done once here */
	for (size_t i = 0; i < NSECTIONS; i++)
		sections[i].text(m ? m : f, model);
	if (m) {
		fclose(m);
		wrap_text(f, buf, r->width);
		free(buf);
	}
	trace_report_model_free(model);
}

void trace_report_json(FILE *f, const struct trace_result *r)
{
	struct report_model *model = trace_report_model(r);
	struct json_writer w;

	jw_init(&w, f);
	jw_object(&w, NULL);
	for (size_t i = 0; i < NSECTIONS; i++)
		sections[i].json(&w, model);
	jw_finish(&w);
	trace_report_model_free(model);
}
