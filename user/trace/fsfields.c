// SPDX-License-Identifier: GPL-3.0-or-later
/* The filesystem and block figures of a trace in one table (fsfields.h). */
#include "trace/fsfields.h"
#include "lib/json.h"
#include "probes/hist.h"
#include "trace/measure.h"

#include <stdlib.h>
#include <string.h>

#define MISC(field) false, offsetof(struct probe_misc, field)
#define DEV(field) true, offsetof(struct probe_dev_stat, field)
#define ROW(label, scale, fmt) label, scale, fmt
#define NOROW NULL, 1, NULL

const struct trace_fs_field trace_fs_fields[] = {
	{ "ext4", "unlink_ns", TRACE_FS_HCOUNT, TRACE_FS_COUNT, MISC(ext4_unlink),
	  ROW("ext4 unlinks", 1, "%.0f") },
	{ "ext4", "unlink_ns", TRACE_FS_HMEAN, TRACE_FS_NS, MISC(ext4_unlink), NOROW },
	{ "ext4", "unlink_ns", TRACE_FS_HP99, TRACE_FS_NS, MISC(ext4_unlink),
	  ROW("ext4 unlink p99 us", 1e3, "%.1f") },
	{ "ext4", "inode_jump", TRACE_FS_HCOUNT, TRACE_FS_COUNT, MISC(ext4_ino_jump), NOROW },
	{ "ext4", "free_calls", TRACE_FS_VALUE, TRACE_FS_COUNT, MISC(ext4_free_calls), NOROW },
	{ "ext4", "freed_blocks", TRACE_FS_VALUE, TRACE_FS_COUNT, MISC(ext4_freed_blocks),
	  ROW("ext4 freed blocks", 1, "%.0f") },
	{ "ext4", "discards", TRACE_FS_VALUE, TRACE_FS_COUNT, DEV(ext4_discards),
	  ROW("ext4 discards", 1, "%.0f") },
	{ "ext4", "discard_blocks", TRACE_FS_VALUE, TRACE_FS_COUNT, DEV(ext4_discard_blocks), NOROW },

	{ "jbd2", "commits", TRACE_FS_VALUE, TRACE_FS_COUNT, DEV(jbd2_commits),
	  ROW("jbd2 commits", 1, "%.0f") },
	{ "jbd2", "hz", TRACE_FS_VALUE, TRACE_FS_HZ, DEV(jbd2_commits), NOROW },
	{ "jbd2", "wait_jiffies", TRACE_FS_VALUE, TRACE_FS_JIFFIES, DEV(jbd2_wait),
	  ROW("jbd2 ms waiting/commit", 1, "%.1f") },
	{ "jbd2", "request_delay_jiffies", TRACE_FS_VALUE, TRACE_FS_JIFFIES,
	  DEV(jbd2_request_delay), NOROW },
	{ "jbd2", "running_jiffies", TRACE_FS_VALUE, TRACE_FS_JIFFIES, DEV(jbd2_running),
	  ROW("jbd2 ms running/commit", 1, "%.1f") },
	{ "jbd2", "locked_jiffies", TRACE_FS_VALUE, TRACE_FS_JIFFIES, DEV(jbd2_locked),
	  ROW("jbd2 ms locked/commit", 1, "%.1f") },
	{ "jbd2", "flushing_jiffies", TRACE_FS_VALUE, TRACE_FS_JIFFIES, DEV(jbd2_flushing),
	  ROW("jbd2 ms flushing/commit", 1, "%.1f") },
	{ "jbd2", "logging_jiffies", TRACE_FS_VALUE, TRACE_FS_JIFFIES, DEV(jbd2_logging),
	  ROW("jbd2 ms logging/commit", 1, "%.1f") },
	{ "jbd2", "handles", TRACE_FS_VALUE, TRACE_FS_COUNT, DEV(jbd2_handles),
	  ROW("jbd2 handles", 1, "%.0f") },
	{ "jbd2", "blocks", TRACE_FS_VALUE, TRACE_FS_COUNT, DEV(jbd2_blocks),
	  ROW("jbd2 journal blocks", 1, "%.0f") },

	{ "xfs", "log_grant_wait_ns", TRACE_FS_HCOUNT, TRACE_FS_COUNT, MISC(xfs_log_grant),
	  ROW("xfs log-grant waits", 1, "%.0f") },
	{ "xfs", "log_grant_wait_ns", TRACE_FS_HTOTAL, TRACE_FS_NS, MISC(xfs_log_grant),
	  ROW("xfs log-grant wait s", 1e9, "%.6f") },
	{ "xfs", "inodegc_throttles", TRACE_FS_VALUE, TRACE_FS_COUNT, MISC(xfs_inodegc_throttles),
	  ROW("xfs inode-GC throttles", 1, "%.0f") },
	{ "xfs", "inactive_queued", TRACE_FS_VALUE, TRACE_FS_COUNT, MISC(xfs_inactive_queued), NOROW },
	{ "xfs", "inodegc_runq_ns", TRACE_FS_VALUE, TRACE_FS_NS,
	  MISC(runq_behind_fsw_ns[PROBE_FSW_XFS_INODEGC]), NOROW },

	{ "btrfs", "tree_lock_wait_ns", TRACE_FS_HCOUNT, TRACE_FS_COUNT, MISC(btrfs_tree_lock),
	  ROW("btrfs tree-lock waits", 1, "%.0f") },
	{ "btrfs", "tree_lock_wait_ns", TRACE_FS_HTOTAL, TRACE_FS_NS, MISC(btrfs_tree_lock),
	  ROW("btrfs tree-lock wait s", 1e9, "%.6f") },
	{ "btrfs", "reserve_ticket_wait_ns", TRACE_FS_HCOUNT, TRACE_FS_COUNT, MISC(btrfs_reserve),
	  ROW("btrfs reservation tickets", 1, "%.0f") },
	{ "btrfs", "reserve_ticket_wait_ns", TRACE_FS_HTOTAL, TRACE_FS_NS, MISC(btrfs_reserve),
	  NOROW },

	{ "block", "latency_ns", TRACE_FS_HCOUNT, TRACE_FS_COUNT, DEV(bio_lat),
	  ROW("block requests", 1, "%.0f") },
	{ "block", "bytes", TRACE_FS_VALUE, TRACE_FS_BYTES, DEV(bio_bytes),
	  ROW("block MiB", 1048576.0, "%.1f") },
	{ "block", "latency_ns", TRACE_FS_HP50, TRACE_FS_NS, DEV(bio_lat),
	  ROW("block p50 us", 1e3, "%.1f") },
	{ "block", "latency_ns", TRACE_FS_HP99, TRACE_FS_NS, DEV(bio_lat),
	  ROW("block p99 us", 1e3, "%.1f") },
	{ "block", "discards", TRACE_FS_VALUE, TRACE_FS_COUNT, DEV(bio_discards),
	  ROW("block discards", 1, "%.0f") },
	{ "block", "discard_bytes", TRACE_FS_VALUE, TRACE_FS_BYTES, DEV(bio_discard_bytes), NOROW },

	{ "other_block", "latency_ns", TRACE_FS_HCOUNT, TRACE_FS_COUNT, DEV(other_lat), NOROW },
	{ "other_block", "bytes", TRACE_FS_VALUE, TRACE_FS_BYTES, DEV(other_bytes), NOROW },
	{ "other_block", "latency_ns", TRACE_FS_HP50, TRACE_FS_NS, DEV(other_lat), NOROW },
	{ "other_block", "discards", TRACE_FS_VALUE, TRACE_FS_COUNT, DEV(other_discards), NOROW },
	{ "other_block", "discard_bytes", TRACE_FS_VALUE, TRACE_FS_BYTES, DEV(other_discard_bytes),
	  NOROW },
	{ NULL },
};

/* The member of the JSON histogram object each stat reads. */
static const char *const stat_names[] = {
	[TRACE_FS_HCOUNT] = "count", [TRACE_FS_HTOTAL] = "total", [TRACE_FS_HMEAN] = "mean",
	[TRACE_FS_HP50] = "p50",     [TRACE_FS_HP99] = "p99",
};

/* A sentence of the text report: each %s takes the next figure of REFS. */
struct fs_ref {
	const char *key;
	enum trace_fs_stat stat;
};
static const struct {
	const char *group, *text;
	struct fs_ref refs[8];
} lines[] = {
	[TRACE_FS_LINE_EXT4] = { "ext4",
				 "%s unlinks (mean %s, p99 %s); %s blocks freed in %s calls",
				 { { "unlink_ns", TRACE_FS_HCOUNT },
				   { "unlink_ns", TRACE_FS_HMEAN },
				   { "unlink_ns", TRACE_FS_HP99 },
				   { "freed_blocks", TRACE_FS_VALUE },
				   { "free_calls", TRACE_FS_VALUE } } },
	[TRACE_FS_LINE_XFS] = { "xfs",
				"%s log-grant waits (%s total); %s inode-GC throttles; %s inodes "
				"queued for inode GC, %s waiting for a CPU while it ran there",
				{ { "log_grant_wait_ns", TRACE_FS_HCOUNT },
				  { "log_grant_wait_ns", TRACE_FS_HTOTAL },
				  { "inodegc_throttles", TRACE_FS_VALUE },
				  { "inactive_queued", TRACE_FS_VALUE },
				  { "inodegc_runq_ns", TRACE_FS_VALUE } } },
	[TRACE_FS_LINE_BTRFS] = { "btrfs",
				  "%s tree-lock waits (%s total); %s reservation tickets (%s total)",
				  { { "tree_lock_wait_ns", TRACE_FS_HCOUNT },
				    { "tree_lock_wait_ns", TRACE_FS_HTOTAL },
				    { "reserve_ticket_wait_ns", TRACE_FS_HCOUNT },
				    { "reserve_ticket_wait_ns", TRACE_FS_HTOTAL } } },
	[TRACE_FS_LINE_JBD2] = { "jbd2",
				 "%s commits, average %s ms waiting, %s ms running, %s ms locked, "
				 "%s ms flushing, %s ms logging; %s handles, %s blocks",
				 { { "commits", TRACE_FS_VALUE },
				   { "wait_jiffies", TRACE_FS_VALUE },
				   { "running_jiffies", TRACE_FS_VALUE },
				   { "locked_jiffies", TRACE_FS_VALUE },
				   { "flushing_jiffies", TRACE_FS_VALUE },
				   { "logging_jiffies", TRACE_FS_VALUE },
				   { "handles", TRACE_FS_VALUE },
				   { "blocks", TRACE_FS_VALUE } } },
	[TRACE_FS_LINE_BLOCK] = { "block",
				  "%s requests, %s MiB, p50 %s, p99 %s; %s discards (%s MiB)",
				  { { "latency_ns", TRACE_FS_HCOUNT },
				    { "bytes", TRACE_FS_VALUE },
				    { "latency_ns", TRACE_FS_HP50 },
				    { "latency_ns", TRACE_FS_HP99 },
				    { "discards", TRACE_FS_VALUE },
				    { "discard_bytes", TRACE_FS_VALUE } } },
	[TRACE_FS_LINE_OTHER_BLOCK] = { "other_block",
					"%s requests, %s MiB, p50 %s; %s discards (%s MiB)",
					{ { "latency_ns", TRACE_FS_HCOUNT },
					  { "bytes", TRACE_FS_VALUE },
					  { "latency_ns", TRACE_FS_HP50 },
					  { "discards", TRACE_FS_VALUE },
					  { "discard_bytes", TRACE_FS_VALUE } } },
	[TRACE_FS_LINE_EXT4_DISCARDS] = { "ext4",
					  "%s discards (%s blocks)",
					  { { "discards", TRACE_FS_VALUE },
					    { "discard_blocks", TRACE_FS_VALUE } } },
};

static const struct trace_fs_field *find(const char *group, const struct fs_ref *r)
{
	for (const struct trace_fs_field *x = trace_fs_fields; x->group; x++)
		if (!strcmp(x->group, group) && !strcmp(x->key, r->key) && x->stat == r->stat)
			return x;
	abort(); /* a sentence names a figure the table does not have */
}

/* The counter or histogram of X in M or D. */
static const void *where(const struct trace_fs_field *x, const struct probe_misc *m,
			 const struct probe_dev_stat *d)
{
	return (const char *)(x->dev ? (const void *)d : (const void *)m) + x->off;
}

/* A counter of X, exactly: a histogram's count, a counter, the HZ. */
static unsigned long long count(const struct trace_fs_field *x, const struct probe_misc *m,
				const struct probe_dev_stat *d)
{
	if (x->stat == TRACE_FS_HCOUNT)
		return ((const struct probe_hist *)where(x, m, d))->count;
	if (x->unit == TRACE_FS_HZ)
		return (unsigned long long)trace_kernel_hz();
	return *(const unsigned long long *)where(x, m, d);
}

static double value(const struct trace_fs_field *x, const struct probe_misc *m,
		    const struct probe_dev_stat *d)
{
	const struct probe_hist *h = where(x, m, d);

	switch (x->stat) {
	case TRACE_FS_HCOUNT: return (double)h->count;
	case TRACE_FS_HTOTAL: return (double)h->total;
	case TRACE_FS_HMEAN: return hist_mean(h);
	case TRACE_FS_HP50: return hist_quantile(h, 0.5);
	case TRACE_FS_HP99: return hist_quantile(h, 0.99);
	case TRACE_FS_VALUE: break;
	}
	return (double)count(x, m, d);
}

/* Figure X in the words of the text report. */
static const char *text_value(const struct trace_fs_field *x, const struct probe_misc *m,
			      const struct probe_dev_stat *d, char *buf, size_t len)
{
	switch (x->unit) {
	case TRACE_FS_NS: return trace_fmt_ns(value(x, m, d), buf, len);
	case TRACE_FS_BYTES: snprintf(buf, len, "%.1f", (double)count(x, m, d) / 1048576.0); break;
	case TRACE_FS_JIFFIES:
		snprintf(buf, len, "%.1f", trace_jiffies_ms(count(x, m, d), d->jbd2_commits));
		break;
	default: snprintf(buf, len, "%llu", count(x, m, d));
	}
	return buf;
}

void trace_fs_text(FILE *f, const char *indent, enum trace_fs_line line, const struct probe_misc *m,
		   const struct probe_dev_stat *d)
{
	const char *group = lines[line].group;
	const struct fs_ref *ref = lines[line].refs;
	char buf[32];

	/* the device's other traffic reads as what it is, not as a key */
	fprintf(f, "%s%s: ", indent, strcmp(group, "other_block") ? group : "other load");
	for (const char *p = lines[line].text; *p; p++) {
		if (p[0] == '%' && p[1] == 's') {
			fputs(text_value(find(group, ref++), m, d, buf, sizeof buf), f);
			p++;
		} else
			fputc(*p, f);
	}
	fputc('\n', f);
}

void trace_fs_json(struct json_writer *w, const char *group, const struct probe_misc *m,
		   const struct probe_dev_stat *d)
{
	jw_object(w, group);
	for (const struct trace_fs_field *x = trace_fs_fields; x->group; x++) {
		if (strcmp(x->group, group))
			continue;
		if (x->stat == TRACE_FS_VALUE) {
			jw_uint(w, x->key, count(x, m, d));
			continue;
		}
		/* a histogram is written whole, where the table first names it */
		const struct trace_fs_field *y = trace_fs_fields;
		while (strcmp(y->group, group) || strcmp(y->key, x->key))
			y++;
		if (y == x)
			trace_json_hist(w, x->key, where(x, m, d));
	}
	jw_end(w);
}

double trace_fs_from_json(const struct json_value *fs, const struct trace_fs_field *x)
{
	const struct json_value *g = json_get(fs, x->group);

	if (x->unit == TRACE_FS_JIFFIES) {
		double c = json_get_num(g, "commits", 0), hz = json_get_num(g, "hz", 250);
		return c && hz ? json_get_num(g, x->key, 0) * 1000.0 / hz / c / x->scale : 0;
	}
	if (x->stat != TRACE_FS_VALUE)
		return json_get_num(json_get(g, x->key), stat_names[x->stat], 0) / x->scale;
	return json_get_num(g, x->key, 0) / x->scale;
}
