/* The --trace report: strace -c style table, DTrace quantize histograms,
 * lock, off-CPU and filesystem sections, a ranked verdict; and the same
 * data as JSON (schema in README "Tracing"). */
#include "trace/report.h"
#include "probes/hist.h"
#include "lib/json.h"
#include "probes/syscall_names.h"
#include "trace/findings.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

const int trace_detail_nrs[] = {
	SYS_unlinkat, SYS_unlink, SYS_rmdir, SYS_getdents64, SYS_openat, SYS_close,
	SYS_newfstatat, SYS_statx, SYS_brk, SYS_mmap, SYS_munmap, SYS_fcntl,
};
const int trace_detail_count = sizeof trace_detail_nrs / sizeof *trace_detail_nrs;

bool trace_is_wait_syscall(int nr)
{
	switch (nr) {
	case SYS_poll: case SYS_select: case SYS_pause: case SYS_nanosleep: case SYS_wait4:
	case SYS_rt_sigsuspend: case SYS_futex: case SYS_clock_nanosleep: case SYS_epoll_wait:
	case SYS_waitid: case SYS_pselect6: case SYS_ppoll: case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
		return true;
	}
	return false;
}

uint64_t trace_busy_ns(const struct probe_snapshot *s)
{
	uint64_t t = 0;

	for (int k = 0; k < PROBE_NR_SYSCALLS; k++)
		if (!trace_is_wait_syscall(k))
			t += s->sc[k].lat.total;
	return t;
}

const char *trace_fmt_ns(double ns, char *buf, size_t len)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

const char *trace_syscall_name(int nr, char *buf, size_t len)
{
	const char *n = syscall_name((unsigned)nr);
	if (n)
		return n;
	snprintf(buf, len, "syscall_%d", nr);
	return buf;
}

/* Kernel HZ for the jiffies of jbd2 stats: from the kernel config when
 * readable, else 250 (our kernels). */
static int kernel_hz(void)
{
	static int hz;
	struct utsname u;
	char path[300], line[256];

	if (hz)
		return hz;
	hz = 250;
	if (uname(&u) == 0) {
		snprintf(path, sizeof path, "/boot/config-%s", u.release);
		FILE *f = fopen(path, "re");
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "CONFIG_HZ=%d", &hz) == 1)
				break;
		if (f)
			fclose(f);
	}
	return hz;
}

double trace_jiffies_ms(unsigned long long j, unsigned long long n)
{
	return n ? (double)j * 1000.0 / kernel_hz() / (double)n : 0;
}

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

static void print_syscall_table(FILE *f, const struct probe_snapshot *s)
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
		"calls", "errors", "p50 usecs", "p99 usecs", "syscall");
	fprintf(f, "------ ----------- ----------- --------- --------- ---------- ---------- ----------------\n");
	for (int i = 0; i < n; i++) {
		const struct probe_sc_stat *st = &s->sc[order[i]];
		fprintf(f, "%6.2f %11.6f %11.0f %9llu ", total ? 100.0 * st->lat.total / total : 0,
			st->lat.total / 1e9, hist_mean(&st->lat) / 1e3,
			(unsigned long long)st->lat.count);
		if (st->errors)
			fprintf(f, "%9llu ", (unsigned long long)st->errors);
		else
			fprintf(f, "%9s ", "");
		fprintf(f, "%10.1f %10.1f %s\n", hist_quantile(&st->lat, 0.5) / 1e3,
			hist_quantile(&st->lat, 0.99) / 1e3, trace_syscall_name(order[i], nb, sizeof nb));
	}
	fprintf(f, "------ ----------- ----------- --------- --------- ---------- ---------- ----------------\n");
	fprintf(f, "%6.2f %11.6f %11.0f %9llu ", 100.0, total / 1e9,
		calls ? total / 1e3 / calls : 0, (unsigned long long)calls);
	if (errors)
		fprintf(f, "%9llu ", (unsigned long long)errors);
	else
		fprintf(f, "%9s ", "");
	fprintf(f, "%10s %10s total\n", "", "");
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

static void json_hist(struct json_writer *w, const char *key, const struct probe_hist *h)
{
	jw_object(w, key);
	jw_uint(w, "count", h->count);
	jw_uint(w, "total", h->total);
	jw_double(w, "mean", hist_mean(h));
	jw_double(w, "p50", hist_quantile(h, 0.5));
	jw_double(w, "p99", hist_quantile(h, 0.99));
	jw_array_compact(w, "buckets");
	for (int i = 0; i < PROBE_HIST_BUCKETS; i++)
		if (h->b[i]) {
			jw_array_compact(w, NULL);
			jw_uint(w, NULL, hist_bucket_value(i));
			jw_uint(w, NULL, h->b[i]);
			jw_end(w);
		}
	jw_end(w);
	jw_end(w);
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
			fprintf(f, " %s", probe_group_name(g));
	fprintf(f, "\n");
	for (const char *p = r->notes; p && *p;) {
		const char *e = strchr(p, '\n');
		int len = e ? (int)(e - p) : (int)strlen(p);
		fprintf(f, "  note: %.*s\n", len, p);
		p += len + (e != NULL);
	}
	if (r->total->misc.lost)
		fprintf(f, "  note: %llu events lost (per-thread state full)\n", r->total->misc.lost);
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
	jw_array_compact(w, "probes");
	for (int g = 0; g < PROBE_G_COUNT; g++)
		if (r->attached[g])
			jw_string(w, NULL, probe_group_name(g));
	jw_end(w);
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
}

/* the strace -c table, then the deletion syscalls' histograms */
static void text_syscalls(FILE *f, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	const struct probe_misc *m = &s->misc;
	char b1[32], nb[32], title[128];

	fprintf(f, "\n");
	print_syscall_table(f, s);
	fprintf(f, "\nLatency of the deletion syscalls (ns)\n");
	for (int i = 0; i < trace_detail_count; i++) {
		int nr = trace_detail_nrs[i];
		const struct probe_sc_stat *st = &s->sc[nr];
		if (!st->lat.count)
			continue;
		snprintf(title, sizeof title, "%s: %llu calls, %llu errors, mean %s",
			 trace_syscall_name(nr, nb, sizeof nb), (unsigned long long)st->lat.count,
			 (unsigned long long)st->errors,
			 trace_fmt_ns(hist_mean(&st->lat), b1, sizeof b1));
		print_hist_block(f, title, &st->lat);
		if (nr == PROBE_NR_UNLINKAT && m->unlinkat_dir.count) {
			snprintf(title, sizeof title, "unlinkat(AT_REMOVEDIR): %llu calls, mean %s",
				 (unsigned long long)m->unlinkat_dir.count,
				 trace_fmt_ns(hist_mean(&m->unlinkat_dir), b1, sizeof b1));
			print_hist_block(f, title, &m->unlinkat_dir);
		}
	}
	if (m->getdents_bytes.count) {
		snprintf(title, sizeof title, "getdents64 bytes returned per call: mean %.0f",
			 hist_mean(&m->getdents_bytes));
		print_hist_block(f, title, &m->getdents_bytes);
	}
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
		json_hist(w, "latency_ns", &st->lat);
		jw_end(w);
	}
	jw_end(w);
	json_hist(w, "unlinkat_removedir_ns", &s->misc.unlinkat_dir);
	json_hist(w, "getdents64_bytes", &s->misc.getdents_bytes);
}

/* wait histograms by lock type, then the top contended callers */
static void text_locks(FILE *f, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	char b1[32], b2[32], title[128];
	bool any = false;

	fprintf(f, "\nLock contention (wait ns by lock type)\n");
	if (!r->attached[PROBE_G_LOCKS])
		fprintf(f, "  not traced\n");
	for (int k = 0; k < PROBE_LOCK_TYPES; k++) {
		const struct probe_hist *h = &s->lock[k].wait;
		if (!h->count)
			continue;
		any = true;
		snprintf(title, sizeof title, "%s (flags 0x%x): %llu waits, %s total, p99 %s",
			 probe_lock_type_name(k), k, (unsigned long long)h->count,
			 trace_fmt_ns((double)h->total, b1, sizeof b1),
			 trace_fmt_ns(hist_quantile(h, 0.99), b2, sizeof b2));
		print_hist_block(f, title, h);
	}
	if (r->attached[PROBE_G_LOCKS] && !any)
		fprintf(f, "  no contended locks\n");
	if (!r->ncallers)
		return;
	fprintf(f, "\n  %10s %12s %12s %12s   %s\n", "contended", "total wait", "avg wait", "type",
		"caller");
	for (int i = 0; i < r->ncallers; i++) {
		const struct probe_caller *c = &r->callers[i];
		fprintf(f, "  %10llu %12s %12s %12s   %s\n", (unsigned long long)c->count,
			trace_fmt_ns((double)c->total_ns, b1, sizeof b1),
			trace_fmt_ns(c->count ? (double)c->total_ns / c->count : 0, b2, sizeof b2),
			probe_lock_type_name(c->flags), r->caller_names[i]);
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
		jw_string(w, "type", probe_lock_type_name(k));
		jw_uint(w, "flags", k);
		json_hist(w, "wait_ns", &s->lock[k].wait);
		jw_end(w);
	}
	jw_end(w);
	jw_array(w, "lock_callers");
	for (int i = 0; i < r->ncallers; i++) {
		jw_object(w, NULL);
		jw_string(w, "caller", r->caller_names[i]);
		jw_string(w, "type", probe_lock_type_name(r->callers[i].flags));
		jw_uint(w, "count", r->callers[i].count);
		jw_uint(w, "total_ns", r->callers[i].total_ns);
		jw_end(w);
	}
	jw_end(w);
}

static void text_offcpu(FILE *f, const struct trace_result *r)
{
	static const char *const kinds[] = { "blocked (D)", "sleeping (S)", "preempted (runnable)" };
	const struct probe_misc *m = &r->total->misc;
	char b1[32], b2[32], b3[32];

	fprintf(f, "\nOff-CPU time of the traced threads\n");
	if (!r->attached[PROBE_G_OFFCPU])
		fprintf(f, "  not traced\n");
	for (int k = 0; r->attached[PROBE_G_OFFCPU] && k < PROBE_OFFCPU_KINDS; k++) {
		const struct probe_hist *h = &m->offcpu[k];
		fprintf(f, "  %-21s %9llu times, %12s total, p50 %s, p99 %s\n", kinds[k],
			(unsigned long long)h->count, trace_fmt_ns((double)h->total, b1, sizeof b1),
			trace_fmt_ns(hist_quantile(h, 0.5), b3, sizeof b3),
			trace_fmt_ns(hist_quantile(h, 0.99), b2, sizeof b2));
	}
	if (m->offcpu[PROBE_OFFCPU_BLOCKED].count)
		print_hist_block(f, "blocked (D) time per switch (ns)", &m->offcpu[PROBE_OFFCPU_BLOCKED]);
}

static void json_offcpu(struct json_writer *w, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;

	jw_object(w, "offcpu");
	json_hist(w, "blocked_ns", &m->offcpu[PROBE_OFFCPU_BLOCKED]);
	json_hist(w, "sleeping_ns", &m->offcpu[PROBE_OFFCPU_SLEEPING]);
	json_hist(w, "preempted_ns", &m->offcpu[PROBE_OFFCPU_PREEMPTED]);
	jw_end(w);
}

static void text_fs(FILE *f, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;
	char b1[32], b2[32];

	fprintf(f, "\nFilesystem and block events\n");
	if (r->attached[PROBE_G_EXT4]) {
		if (m->ext4_unlink.count || m->ext4_free_calls || m->ext4_discards) {
			fprintf(f, "  ext4: %llu unlinks (mean %s, p99 %s); %llu blocks freed in %llu calls; %llu discards (%llu blocks)\n",
				(unsigned long long)m->ext4_unlink.count,
				trace_fmt_ns(hist_mean(&m->ext4_unlink), b1, sizeof b1),
				trace_fmt_ns(hist_quantile(&m->ext4_unlink, 0.99), b2, sizeof b2),
				m->ext4_freed_blocks, m->ext4_free_calls, m->ext4_discards,
				m->ext4_discard_blocks);
			if (m->ext4_unlink.count)
				print_hist_block(f, "ext4_unlink latency (ns)", &m->ext4_unlink);
			if (m->ext4_ino_jump.count) {
				fprintf(f, "\n  unlink order: %.0f%% of a thread's consecutive unlinks stay within %d inodes (p50 jump %.0f inodes)\n",
					100.0 * trace_ino_near_share(&m->ext4_ino_jump), TRACE_INO_NEAR,
					hist_quantile(&m->ext4_ino_jump, 0.5));
				print_hist_block(f, "distance to the previous unlinked inode (inodes)",
						 &m->ext4_ino_jump);
			}
		} else
			fprintf(f, "  ext4: no activity\n");
	}
	if (r->attached[PROBE_G_JBD2]) {
		if (m->jbd2_commits)
			fprintf(f, "  jbd2: %llu commits (all filesystems), average %.1f ms waiting, %.1f ms running, %.1f ms locked, %.1f ms flushing, %.1f ms logging; %llu handles, %llu blocks\n",
				m->jbd2_commits, trace_jiffies_ms(m->jbd2_wait, m->jbd2_commits),
				trace_jiffies_ms(m->jbd2_running, m->jbd2_commits),
				trace_jiffies_ms(m->jbd2_locked, m->jbd2_commits),
				trace_jiffies_ms(m->jbd2_flushing, m->jbd2_commits),
				trace_jiffies_ms(m->jbd2_logging, m->jbd2_commits), m->jbd2_handles,
				m->jbd2_blocks);
		else
			fprintf(f, "  jbd2: no commits\n");
	}
	if (r->attached[PROBE_G_XFS]) {
		if (m->xfs_log_grant.count || m->xfs_inodegc_throttles) {
			fprintf(f, "  xfs: %llu log-grant waits (%s total); %llu inode-GC throttles\n",
				(unsigned long long)m->xfs_log_grant.count,
				trace_fmt_ns((double)m->xfs_log_grant.total, b1, sizeof b1),
				m->xfs_inodegc_throttles);
			if (m->xfs_log_grant.count)
				print_hist_block(f, "xfs log-grant wait (ns)", &m->xfs_log_grant);
		} else
			fprintf(f, "  xfs: no log-grant waits or inode-GC throttles\n");
	}
	if (r->attached[PROBE_G_BTRFS]) {
		if (m->btrfs_tree_lock.count || m->btrfs_reserve.count) {
			fprintf(f, "  btrfs: %llu tree-lock waits (%s total); %llu reservation tickets (%s total)\n",
				(unsigned long long)m->btrfs_tree_lock.count,
				trace_fmt_ns((double)m->btrfs_tree_lock.total, b1, sizeof b1),
				(unsigned long long)m->btrfs_reserve.count,
				trace_fmt_ns((double)m->btrfs_reserve.total, b2, sizeof b2));
			if (m->btrfs_tree_lock.count)
				print_hist_block(f, "btrfs tree-lock wait (ns)", &m->btrfs_tree_lock);
		} else
			fprintf(f, "  btrfs: no tree-lock waits or reservation tickets\n");
	}
	if (r->attached[PROBE_G_BLOCK]) {
		if (m->bio_lat.count || m->bio_discards) {
			fprintf(f, "  block (all devices): %llu requests, %.1f MiB, p50 %s, p99 %s; %llu discards (%.1f MiB)\n",
				(unsigned long long)m->bio_lat.count, m->bio_bytes / 1048576.0,
				trace_fmt_ns(hist_quantile(&m->bio_lat, 0.5), b1, sizeof b1),
				trace_fmt_ns(hist_quantile(&m->bio_lat, 0.99), b2, sizeof b2),
				m->bio_discards, m->bio_discard_bytes / 1048576.0);
			if (m->bio_lat.count)
				print_hist_block(f, "block I/O latency (ns)", &m->bio_lat);
		} else
			fprintf(f, "  block: no I/O\n");
	}
}

static void json_fs(struct json_writer *w, const struct trace_result *r)
{
	const struct probe_misc *m = &r->total->misc;

	jw_object(w, "fs");
	jw_object(w, "ext4");
	json_hist(w, "unlink_ns", &m->ext4_unlink);
	json_hist(w, "inode_jump", &m->ext4_ino_jump);
	jw_uint(w, "free_calls", m->ext4_free_calls);
	jw_uint(w, "freed_blocks", m->ext4_freed_blocks);
	jw_uint(w, "discards", m->ext4_discards);
	jw_uint(w, "discard_blocks", m->ext4_discard_blocks);
	jw_end(w);
	jw_object(w, "jbd2");
	jw_uint(w, "commits", m->jbd2_commits);
	jw_uint(w, "hz", (uint64_t)kernel_hz());
	jw_uint(w, "wait_jiffies", m->jbd2_wait);
	jw_uint(w, "request_delay_jiffies", m->jbd2_request_delay);
	jw_uint(w, "running_jiffies", m->jbd2_running);
	jw_uint(w, "locked_jiffies", m->jbd2_locked);
	jw_uint(w, "flushing_jiffies", m->jbd2_flushing);
	jw_uint(w, "logging_jiffies", m->jbd2_logging);
	jw_uint(w, "handles", m->jbd2_handles);
	jw_uint(w, "blocks", m->jbd2_blocks);
	jw_end(w);
	jw_object(w, "xfs");
	json_hist(w, "log_grant_wait_ns", &m->xfs_log_grant);
	jw_uint(w, "inodegc_throttles", m->xfs_inodegc_throttles);
	jw_end(w);
	jw_object(w, "btrfs");
	json_hist(w, "tree_lock_wait_ns", &m->btrfs_tree_lock);
	json_hist(w, "reserve_ticket_wait_ns", &m->btrfs_reserve);
	jw_end(w);
	jw_object(w, "block");
	json_hist(w, "latency_ns", &m->bio_lat);
	jw_uint(w, "bytes", m->bio_bytes);
	jw_uint(w, "discards", m->bio_discards);
	jw_uint(w, "discard_bytes", m->bio_discard_bytes);
	jw_end(w);
	jw_end(w);
}

static void text_intervals(FILE *f, const struct trace_result *r)
{
	if (!r->niv)
		return;
	fprintf(f, "\nIntervals\n  %8s %7s %10s %10s %10s %10s %10s %10s\n", "t s", "threads",
		"unlinkat", "p99 us", "getdents", "lock ms", "D ms", "S ms");
	for (int i = 0; i < r->niv; i++) {
		const struct trace_interval *v = &r->iv[i];
		fprintf(f, "  %8.2f %7u %10llu %10.1f %10llu %10.2f %10.2f %10.2f\n", v->t_ns / 1e9,
			v->nthreads, (unsigned long long)v->unlinkat_calls, v->unlinkat_p99_ns / 1e3,
			(unsigned long long)v->getdents_calls, v->lock_wait_ns / 1e6,
			v->blocked_ns / 1e6, v->sleeping_ns / 1e6);
	}
}

static void json_intervals(struct json_writer *w, const struct trace_result *r)
{
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
		jw_end(w);
	}
	jw_end(w);
}

/* The controller's decisions and the findings are one section: the text
 * has always shown the decisions first, the JSON the findings. */
static void text_verdict(FILE *f, const struct trace_result *r)
{
	struct trace_finding fs[TRACE_MAX_FINDINGS];
	int nf = trace_findings(r, fs, TRACE_MAX_FINDINGS);
	char b1[32];

	print_controller(f, r);
	fprintf(f, "\nVerdict (ranked by share of the busy syscall time, %s)\n",
		trace_fmt_ns((double)trace_busy_ns(r->total), b1, sizeof b1));
	for (int i = 0; i < nf; i++)
		fprintf(f, "  %d. [%3.0f%%] %s\n", i + 1, 100 * fs[i].share, fs[i].text);
	if (!nf)
		fprintf(f, "  nothing traced\n");
}

static void json_verdict(struct json_writer *w, const struct trace_result *r)
{
	struct trace_finding fs[TRACE_MAX_FINDINGS];
	int nf = trace_findings(r, fs, TRACE_MAX_FINDINGS);

	jw_array(w, "findings");
	for (int i = 0; i < nf; i++) {
		jw_object(w, NULL);
		jw_string(w, "id", fs[i].id);
		jw_double(w, "share", fs[i].share);
		jw_string(w, "text", fs[i].text);
		jw_end(w);
	}
	jw_end(w);
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

/* Both reports walk this list: a section is in both or in neither. */
static const struct report_section {
	const char *name;
	void (*text)(FILE *, const struct trace_result *);
	void (*json)(struct json_writer *, const struct trace_result *);
} sections[] = {
	{ "header", text_header, json_header },
	{ "syscalls", text_syscalls, json_syscalls },
	{ "locks", text_locks, json_locks },
	{ "offcpu", text_offcpu, json_offcpu },
	{ "fs", text_fs, json_fs },
	{ "intervals", text_intervals, json_intervals },
	{ "verdict", text_verdict, json_verdict },
};
#define NSECTIONS (sizeof sections / sizeof *sections)

void trace_report_text(FILE *f, const struct trace_result *r)
{
	for (size_t i = 0; i < NSECTIONS; i++)
		sections[i].text(f, r);
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
