// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace verdict (findings.h): the engine. The cause catalogue,
 * finding_rules[], is the one table from the parts of the traced threads'
 * whole time (findings_ctx.c) and the counters to a cause, its evidence and
 * its remedy: each entry claims its parts, so every part belongs to one
 * finding and the shares sum to 1. The explaining rules (inode order,
 * getdents batches, allocator) say why part of a finding's time was spent,
 * and never claim more than it. The engine runs the rules once on one
 * partition, ranks their findings and merges the minor ones. */
#include "trace/findings.h"
#include "trace/findings_int.h"
#include "trace/result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The catalogue. In this order: equal shares keep it in the ranking. */
static const struct finding_rule {
	const char *id;
	void (*fn)(const struct finding_ctx *, struct finding_sink *);
	bool explains; /* an explaining rule (after the partition's) */
} finding_rules[] = {
	{ "cpu_quota", rule_cpu_quota, false },
	{ "cpu_oversubscription", rule_cpu_oversubscription, false },
	{ "cpu_contention", rule_cpu_contention, false },
	{ "fs_worker_cpu", rule_fs_worker_cpu, false },
	{ "memcg_reclaim", rule_memcg_reclaim, false },
	{ "memory_reclaim", rule_memory_reclaim, false },
	{ "directory_lock_contention", rule_directory_lock, false },
	{ "lock_contention", rule_other_locks, false },
	{ "device_throttled", rule_device_reads, false },
	{ "metadata_reads", rule_metadata_reads, false },
	{ "journal_commit_waits", rule_journal, false },
	{ "writeback_throttle", rule_writeback_throttle, false },
	{ "discard_io", rule_discard, false },
	{ "xfs_inodegc", rule_xfs_inodegc, false },
	{ "xfs_log_waits", rule_xfs_log, false },
	{ "btrfs_waits", rule_btrfs, false },
	{ "fuse_daemon", rule_fuse_daemon, false },
	{ "overlayfs_copy_up", rule_overlayfs, false },
	{ "extent_freeing", rule_extent_freeing, false },
	{ "page_faults", rule_page_faults, false },
	{ "ptrace_stops", rule_ptrace_stops, false },
	{ "kernel_cpu", rule_kernel_cpu, false },
	{ "user_cpu", rule_user_cpu, false },
	{ "other_waits", rule_plain_causes, false },
	{ "subsystems", rule_subsystems, false },
	{ "states", rule_states, false },
	{ "idle_waits", rule_idle_waits, false },
	{ "scattered_inode_order", rule_scattered_inodes, true },
	{ "small_getdents_batches", rule_small_getdents, true },
	{ "allocator_churn", rule_allocator_churn, true },
};

/* causes by share, largest first; what is not a cause last */
static int cmp_share(const void *a, const void *b)
{
	const struct trace_finding *x = a, *y = b;
	if (x->cause != y->cause)
		return x->cause ? -1 : 1;
	return x->share < y->share ? 1 : x->share > y->share ? -1 : 0;
}

double trace_findings_total(const struct trace_finding *f, int n)
{
	double t = 0;
	for (int i = 0; i < n; i++)
		if (!f[i].explains)
			t += f[i].share;
	return t;
}

/* Other load on the CPUs is context, not the delete's cause: it ranks
 * first only when it is most of the time the threads were not idle and no
 * cause of the delete's own (its CPU aside, which any delete spends) holds
 * half of the rest; otherwise it goes after every other cause. Idle time
 * (a pool's workers without work) is no time the load took from it. */
#define CONTEXT_FIRST_SHARE 0.5
static bool baseline(const struct trace_finding *f)
{
	return !strcmp(f->id, "kernel_cpu") || !strcmp(f->id, "user_cpu") ||
	       !strcmp(f->id, "minor_parts");
}

static void demote_context(struct trace_finding *f, int n)
{
	int i = 0;

	while (i < n &&
	       (strcmp(f[i].id, "cpu_contention") || !strstr(f[i].text, "while other tasks held")))
		i++;
	if (i >= n)
		return;
	double active = 1;
	for (int j = 0; j < n; j++)
		if (!f[j].cause && !f[j].explains)
			active -= f[j].share;
	bool explained = false;
	for (int j = 0; j < n; j++)
		if (j != i && f[j].cause && !baseline(&f[j]) &&
		    f[j].share >= 0.5 * (active - f[i].share))
			explained = true;
	if (active > 0 && f[i].share > CONTEXT_FIRST_SHARE * active && !explained)
		return;
	struct trace_finding ctx = f[i];
	for (; i + 1 < n && f[i + 1].cause; i++)
		f[i] = f[i + 1];
	f[i] = ctx;
}

/* Ranked by what removing the cause would save: the deleter's own kernel
 * CPU (the unlinks' work, which any delete spends) saves nothing, so a
 * removable cause of at least this share of the whole ranks before it. */
#define REMOVABLE_FIRST_SHARE 0.1
static void demote_baseline(struct trace_finding *f, int n)
{
	int b = 0;

	while (b < n && strcmp(f[b].id, "kernel_cpu"))
		b++;
	if (b >= n)
		return;
	int last = b;
	for (int j = b + 1; j < n && f[j].cause; j++)
		if (!baseline(&f[j]) && strcmp(f[j].id, "cpu_contention") &&
		    f[j].share >= REMOVABLE_FIRST_SHARE)
			last = j;
	if (last == b)
		return;
	struct trace_finding k = f[b];
	memmove(&f[b], &f[b + 1], (size_t)(last - b) * sizeof *f);
	f[last] = k;
}

/* Parts under this share of the time that is not idle are merged into one
 * "minor_parts" finding. */
#define MINOR_SHARE 0.01
#define MINOR_LOCK_SHARE 0.05

/* The catalogue's findings on the partition C, ranked and merged: at most
 * MAX (findings.h's trace_findings). */
static int rank_findings(const struct finding_ctx *c, struct trace_finding *out, int max)
{
	struct trace_finding top[3 * TRACE_MAX_FINDINGS + PROBE_LOCK_TYPES], sub[8];
	struct finding_sink kt = { .out = top, .max = (int)(sizeof top / sizeof *top) };
	struct finding_sink ks = { .out = sub, .max = (int)(sizeof sub / sizeof *sub) };

	if (max <= 0 || c->base <= 1)
		return 0;
	for (size_t i = 0; i < sizeof finding_rules / sizeof *finding_rules; i++) {
		struct finding_sink *k = finding_rules[i].explains ? &ks : &kt;
		k->id = finding_rules[i].id;
		k->explains = NULL;
		finding_rules[i].fn(c, k);
	}
	qsort(top, kt.n, sizeof *top, cmp_share);
	/* the parts under 1% of the time that is not idle (a pool of idle
	 * workers must not hide a cause): one finding, named by the largest */
	double busy = 1 - sh(c, c->idle);
	int n = 0, minor = 0;
	double mshare = 0;
	char names[400] = "";
	for (int i = 0; i < kt.n; i++) {
		/* lock types and btrfs tree locks under 5%: contention with kernel
		 * workers that any delete meets (btrfs delayed nodes and tree
		 * locks), not a cause */
		double floor = !strcmp(top[i].id, "lock_contention") ||
					       !strcmp(top[i].id, "btrfs_tree_locks") ?
				       MINOR_LOCK_SHARE :
				       MINOR_SHARE;
		if (top[i].share >= floor * busy || kt.n == 1 || !top[i].cause) {
			top[n++] = top[i];
			continue;
		}
		if (top[i].share <= 0)
			continue;
		size_t l = strlen(names);
		if (minor < 4 && l + 40 < sizeof names)
			snprintf(names + l, sizeof names - l, "%s%s %.1f%%", minor ? ", " : "",
				 top[i].id, 100 * top[i].share);
		mshare += top[i].share;
		minor++;
	}
	if (minor) {
		/* ranked by its share among the causes, before what is not a
		 * cause: the merged parts can outweigh a cause of their own */
		int at = n;
		while (at > 0 && (!top[at - 1].cause || top[at - 1].share < mshare))
			at--;
		memmove(&top[at + 1], &top[at], (size_t)(n - at) * sizeof *top);
		struct trace_finding *f = &top[at];
		n++;
		f->id = "minor_parts";
		f->explains = NULL;
		f->share = mshare;
		f->cause = true;
		snprintf(f->text, sizeof f->text,
			 "Smaller parts: %d under 1%% each, lock types under 5%% (%s%s).", minor,
			 names, minor > 4 ? ", ..." : "");
	}
	demote_baseline(top, n);
	demote_context(top, n);
	/* each top-level finding, then what explains it (never more than it);
	 * cut at MAX */
	int m = 0;
	for (int i = 0; i < n && m < max; i++) {
		out[m++] = top[i];
		for (int j = 0; j < ks.n && m < max; j++)
			if (!strcmp(sub[j].explains, top[i].id)) {
				out[m] = sub[j];
				if (out[m].share > top[i].share)
					out[m].share = top[i].share;
				m++;
			}
	}
	return m;
}

int trace_findings(const struct trace_result *r, struct trace_finding *out, int max)
{
	struct finding_ctx c;

	if (!r->total || max <= 0)
		return 0;
	finding_ctx_init(&c, r);
	return rank_findings(&c, out, max);
}

void trace_verdict_compute(const struct trace_result *r, struct trace_verdict *v)
{
	struct finding_ctx c;

	memset(v, 0, sizeof *v);
	if (!r->total)
		return;
	finding_ctx_init(&c, r);
	v->whole_ns = c.base > 1 ? c.base : 0;
	v->helper_ns = c.helpers;
	v->unaccounted_ns = c.unaccounted;
	v->n = rank_findings(&c, v->findings, TRACE_MAX_FINDINGS);
	v->total_share = trace_findings_total(v->findings, v->n);
}
