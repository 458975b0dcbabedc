// SPDX-License-Identifier: GPL-3.0-or-later
/* The report's models, filled from the result: which rows each section
 * shows, in which order, with which figures. The selection lives here and
 * only here, so that the text and the JSON (report.c) agree on it. */
#include "trace/report_model.h"
#include "lib/xalloc.h"
#include "probes/hist.h"
#include "trace/measure.h"
#include "trace/oncpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* ---- syscalls ---- */

/* By time, the largest first; equal times by number, so that the order
 * does not depend on the sort. */
static int cmp_total(const void *a, const void *b, void *arg)
{
	const struct probe_snapshot *s = arg;
	int i = *(const int *)a, j = *(const int *)b;
	uint64_t x = s->sc[i].lat.total, y = s->sc[j].lat.total;

	if (x != y)
		return x < y ? 1 : -1;
	return i - j;
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

static void model_syscalls(struct report_syscalls *m, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	int order[PROBE_NR_SYSCALLS], row_of[PROBE_NR_SYSCALLS], n = 0;
	bool listed[PROBE_NR_SYSCALLS] = { false };

	for (int k = 0; k < PROBE_NR_SYSCALLS; k++)
		if (s->sc[k].lat.count) {
			order[n++] = k;
			m->total_ns += s->sc[k].lat.total;
			m->calls += s->sc[k].lat.count;
			m->errors += s->sc[k].errors;
		}
	qsort_r(order, n, sizeof *order, cmp_total, (void *)s);
	m->all = r->all;
	m->n = n;
	m->shown = r->all || n < TRACE_TABLE_ROWS ? n : TRACE_TABLE_ROWS;
	for (int i = 0; i < n; i++) {
		struct report_syscall *x = &m->rows[i];
		const struct probe_sc_stat *st = &s->sc[order[i]];
		x->nr = order[i];
		char nb[32];
		snprintf(x->name, sizeof x->name, "%s", trace_syscall_name(x->nr, nb, sizeof nb));
		x->st = st;
		x->pct = m->total_ns ? 100.0 * st->lat.total / m->total_ns : 0;
		x->mean_ns = hist_mean(&st->lat);
		x->p50_ns = hist_quantile(&st->lat, 0.5);
		x->p99_ns = hist_quantile(&st->lat, 0.99);
		x->hist = shows_hist(r, x->nr, &st->lat);
		if (!x->hist)
			m->hidden++;
		row_of[x->nr] = i;
	}

	/* the histograms: the detail syscalls in their order, then the rest by time */
	int h = 0;
	for (int i = 0; i < trace_detail_count; i++) {
		int nr = trace_detail_nrs[i];
		if (nr < PROBE_NR_SYSCALLS && !listed[nr] && s->sc[nr].lat.count)
			m->hist_order[h++] = row_of[nr];
		if (nr < PROBE_NR_SYSCALLS)
			listed[nr] = true;
	}
	for (int i = 0; i < n; i++)
		if (!listed[m->rows[i].nr])
			m->hist_order[h++] = i;

	m->removedir = &s->misc.unlinkat_dir;
	m->getdents_bytes = &s->misc.getdents_bytes;
	m->getdents_hist = m->getdents_bytes->count && r->all;
	if (m->getdents_bytes->count && !r->all)
		m->hidden++;
}

/* ---- locks ---- */

static void model_locks(struct report_locks *m, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;

	m->traced = r->attached[PROBE_G_LOCKS];
	m->hists = m->callers_shown = r->all;
	for (int k = 0; k < PROBE_LOCK_TYPES; k++) {
		const struct probe_hist *h = &s->lock[k].wait;
		if (!h->count)
			continue;
		m->types[m->ntypes++] = (struct report_lock_type){
			.flags = k,
			.name = probes_lock_type_name(k),
			.wait = h,
			.p99_ns = hist_quantile(h, 0.99),
		};
	}
	for (int i = 0; i < r->ncallers && i < TRACE_MAX_CALLERS; i++) {
		const struct probe_caller *c = &r->callers[i];
		m->callers[m->ncallers++] = (struct report_lock_caller){
			.caller = r->caller_names[i],
			.type = probes_lock_type_name(c->flags),
			.count = c->count,
			.total_ns = c->total_ns,
			.avg_ns = c->count ? (double)c->total_ns / c->count : 0,
		};
	}
}

/* ---- thread time by state, on CPU ---- */

static void model_offcpu(struct report_offcpu *m, const struct trace_result *r)
{
	const struct probe_misc *misc = &r->total->misc;

	m->cpu = &r->cpu;
	m->traced = r->attached[PROBE_G_OFFCPU];
	m->by_sites = r->nsites > 0;
	for (int i = 0; i < r->nsites; i++) {
		const struct trace_wait_site *w = &r->sites[i];
		double rq = (double)(w->total_ns - w->blocked_ns);
		if (w->state == PROBE_OFFCPU_BLOCKED) {
			m->blocked_ns += (double)w->blocked_ns;
			m->blocked_rq_ns += rq;
		} else {
			m->slept_ns += (double)w->blocked_ns;
			m->slept_rq_ns += rq;
		}
	}
	m->blocked = &misc->offcpu[PROBE_OFFCPU_BLOCKED];
	m->sleeping = &misc->offcpu[PROBE_OFFCPU_SLEEPING];
	m->preempted = &misc->offcpu[PROBE_OFFCPU_PREEMPTED];
	m->runq = &misc->runq;
	m->preempted_p99_ns = hist_quantile(m->preempted, 0.99);
	m->runq_p99_ns = hist_quantile(m->runq, 0.99);
	m->blocked_hist = r->all && m->blocked->count;
}

static int cmp_cat(const void *a, const void *b)
{
	const struct report_cpu_cat *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->cat - y->cat;
}

/* The traced threads' whole time, on and off CPU, and what the on-CPU
 * kernel samples were doing by category: evidence, not in the verdict. */
static void model_oncpu(struct report_oncpu *m, const struct trace_result *r)
{
	const struct probe_misc *misc = &r->total->misc;
	uint64_t in_sc = misc->oncpu_syscall_ns + misc->oncpu_wait_syscall_ns;

	m->traced = r->attached[PROBE_G_OFFCPU];
	m->sampled = r->attached[PROBE_G_ONCPU];
	m->oncpu_ns = misc->oncpu_ns;
	m->syscall_ns = misc->oncpu_syscall_ns;
	m->wait_syscall_ns = misc->oncpu_wait_syscall_ns;
	m->outside_ns = m->oncpu_ns > in_sc ? m->oncpu_ns - in_sc : 0;
	m->thread_ns = probes_thread_ns(r->total);
	m->offcpu_ns = m->thread_ns - m->oncpu_ns;
	m->sample_hz = m->sampled ? PROBE_CPU_SAMPLE_HZ : 0;
	m->samples = misc->cpu_samples;
	m->samples_user = misc->cpu_samples_user;
	m->samples_kernel = trace_cpu_kernel_samples(r);
	m->samples_nostack = misc->cpu_samples_nostack;
	m->user_share = m->samples ? (double)m->samples_user / (double)m->samples : 0;
	for (int ss = 0; ss < SS_COUNT; ss++)
		m->subsys[ss] = r->cpu.ss_sys[ss] + r->cpu.ss_other[ss];
	for (int c = 0; c < CPU_COUNT; c++) {
		if (c == CPU_USER || !r->cpu_samples[c])
			continue;
		struct report_cpu_cat *x = &m->cats[m->ncats++];
		x->cat = c;
		x->samples = r->cpu_samples[c];
		x->share = (double)x->samples / (double)m->samples_kernel;
		x->shown = x->share >= 0.01;
	}
	qsort(m->cats, m->ncats, sizeof *m->cats, cmp_cat);
}

/* ---- wait sites, waiting to run ---- */

/* Where the traced threads blocked (D) or slept inside a busy syscall (S):
 * the sites come ordered by off-CPU time (waits.c). */
static void model_sites(struct report_sites *m, const struct trace_result *r)
{
	const struct probe_misc *misc = &r->total->misc;

	m->traced = r->attached[PROBE_G_OFFCPU];
	m->n = r->nsites;
	for (int i = 0; i < r->nsites; i++)
		m->all_ns += r->sites[i].total_ns;
	m->rows = r->nsites ? xcalloc(r->nsites, sizeof *m->rows) : NULL;
	for (int i = 0; i < r->nsites; i++) {
		m->rows[i].w = &r->sites[i];
		m->rows[i].share = m->all_ns ? (double)r->sites[i].total_ns / (double)m->all_ns : 0;
	}
	int most = r->all ? TRACE_MAX_SITES : TRACE_TEXT_SITES;
	m->shown = r->nsites < most ? r->nsites : most;
	m->no_stacks = r->have_sites || misc->offcpu[PROBE_OFFCPU_BLOCKED].count;
	m->lost = misc->wait_sites_lost;
	m->lost_ns = misc->wait_sites_lost_ns;
}

static void model_runq(struct report_runq *m, const struct trace_result *r)
{
	const struct probe_misc *misc = &r->total->misc;
	double all = (double)(misc->runq.total + misc->offcpu[PROBE_OFFCPU_PREEMPTED].total);

	m->shown = r->attached[PROBE_G_RUNQ] && r->all;
	m->wakeup = &misc->runq;
	m->p50_ns = hist_quantile(m->wakeup, 0.5);
	m->p99_ns = hist_quantile(m->wakeup, 0.99);
	m->busy_runq_ns = misc->busy_runq_ns;
	m->busy_preempted_ns = misc->busy_preempt_ns;
	m->behind_traced_ns = misc->runq_traced_ns;
	m->behind_traced_share = all > 0 ? (double)misc->runq_traced_ns / all : 0;
	m->behind_fsw_ns = misc->runq_behind_fsw_ns;
}

/* ---- filesystems and devices ---- */

/* The sum of the delete's devices (waits.h: trace_dev.traced). */
static void delete_devs_total(const struct trace_result *r, struct probe_dev_stat *t)
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
 * others apart (a loop device and its backing disk are two devices). */
static void model_devs(struct report_fs *m, const struct trace_result *r)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < r->ndevs; i++) {
			const struct trace_dev *td = &r->devs[i];
			const struct probe_dev_stat *d = probes_dev_find(r->total, td->dev);
			if (!d || td->traced != (pass == 0))
				continue;
			struct report_fs_dev *x = &m->devs[m->ndevs++];
			x->td = td;
			x->d = d;
			snprintf(x->id, sizeof x->id, "%u:%u", PROBE_DEV_MAJOR(td->dev),
				 PROBE_DEV_MINOR(td->dev));
			x->jbd2 = d->jbd2_commits;
			x->block = d->bio_lat.count || d->bio_discards;
			x->ext4_discards = d->ext4_discards;
			x->other_block = d->other_lat.count || d->other_discards;
			x->shown = (x->jbd2 || x->block || x->ext4_discards || x->other_block) &&
				   (td->traced || r->all);
			x->latency_hist = x->shown && td->traced && d->bio_lat.count && r->all;
		}
}

static void model_fs(struct report_fs *m, const struct trace_result *r)
{
	const struct probe_misc *misc = &r->total->misc;

	m->m = misc;
	delete_devs_total(r, &m->delete_devs);
	m->ext4.traced = r->attached[PROBE_G_EXT4];
	m->ext4.active = misc->ext4_unlink.count || misc->ext4_free_calls;
	m->ext4.hist = misc->ext4_unlink.count && r->all;
	m->ino_order = misc->ext4_ino_jump.count;
	if (m->ino_order) {
		m->ino_near_share = trace_ino_near_share(&misc->ext4_ino_jump);
		m->ino_p50 = hist_quantile(&misc->ext4_ino_jump, 0.5);
	}
	m->ino_hist = m->ino_order && r->all;
	m->xfs.traced = r->attached[PROBE_G_XFS];
	m->xfs.active = misc->xfs_log_grant.count || misc->xfs_inodegc_throttles ||
			misc->xfs_inactive_queued;
	m->xfs.hist = misc->xfs_log_grant.count && r->all;
	m->btrfs.traced = r->attached[PROBE_G_BTRFS];
	m->btrfs.active = misc->btrfs_tree_lock.count || misc->btrfs_reserve.count;
	m->btrfs.hist = misc->btrfs_tree_lock.count && r->all;
	m->devs_traced = r->attached[PROBE_G_JBD2] || r->attached[PROBE_G_BLOCK];
	model_devs(m, r);
}

/* ---- intervals ---- */

static void model_intervals(struct report_intervals *m, const struct trace_result *r)
{
	uint64_t len = 0;

	m->rows = r->iv;
	m->n = r->niv;
	m->asked_ns = r->interval_ns;
	/* the last row ends with the trace, so it says nothing of the pace */
	for (int i = 0; i < r->niv - 1; i++)
		len += r->iv[i].len_ns;
	if (r->niv > 1) {
		m->spacing_ns = len / (r->niv - 1);
		m->late = r->interval_ns && len / (r->niv - 1) > r->interval_ns * 3 / 2;
	}
}

struct report_model *trace_report_model(const struct trace_result *r)
{
	struct report_model *m = xcalloc(1, sizeof *m);

	m->r = r;
	model_syscalls(&m->syscalls, r);
	model_locks(&m->locks, r);
	model_offcpu(&m->offcpu, r);
	model_oncpu(&m->oncpu, r);
	model_sites(&m->sites, r);
	model_runq(&m->runq, r);
	model_fs(&m->fs, r);
	model_intervals(&m->intervals, r);
	return m;
}

void trace_report_model_free(struct report_model *m)
{
	if (!m)
		return;
	free(m->sites.rows);
	free(m);
}
