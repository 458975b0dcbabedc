// SPDX-License-Identifier: GPL-3.0-or-later
/* The filesystem and block field table: each text sentence names figures
 * the table has and prints them in their units, and --compare reads back
 * from the JSON what the report wrote. */
#include <criterion/criterion.h>
#include "lib/json.h"
#include "probes/hist.h"
#include "trace/fsfields.h"

#include <stdlib.h>
#include <string.h>

static char *sentence(enum trace_fs_line line, const struct probe_misc *m,
		      const struct probe_dev_stat *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	trace_fs_text(f, "  ", line, m, d);
	fclose(f);
	return buf;
}

Test(fsfields, sentences_print_their_figures)
{
	static struct probe_misc m;
	static struct probe_dev_stat d;
	hist_add_value(&m.ext4_unlink, 3000);
	m.ext4_freed_blocks = 7;
	m.ext4_free_calls = 2;
	hist_add_value(&m.xfs_log_grant, 1500000);
	m.xfs_inodegc_throttles = 4;
	m.xfs_inactive_queued = 9;
	m.runq_behind_fsw_ns[PROBE_FSW_XFS_INODEGC] = 2000000;
	d.bio_bytes = 3 * 1048576;
	hist_add_value(&d.bio_lat, 200000);
	d.bio_discards = 1;
	d.bio_discard_bytes = 1048576 / 2;
	d.ext4_discards = 5;
	d.ext4_discard_blocks = 40;

	char *s = sentence(TRACE_FS_LINE_EXT4, &m, NULL);
	cr_assert_str_eq(
		s, "  ext4: 1 unlinks (mean 3.00 us, p99 3.00 us); 7 blocks freed in 2 calls\n");
	free(s);
	s = sentence(TRACE_FS_LINE_XFS, &m, NULL);
	cr_assert_str_eq(
		s, "  xfs: 1 log-grant waits (1.50 ms total); 4 inode-GC throttles; 9 "
		   "inodes queued for inode GC, 2.00 ms waiting for a CPU while it ran there\n");
	free(s);
	s = sentence(TRACE_FS_LINE_BLOCK, NULL, &d);
	cr_assert_str_eq(
		s,
		"  block: 1 requests, 3.0 MiB, p50 200.00 us, p99 200.00 us; 1 discards (0.5 MiB)\n");
	free(s);
	s = sentence(TRACE_FS_LINE_EXT4_DISCARDS, NULL, &d);
	cr_assert_str_eq(s, "  ext4: 5 discards (40 blocks)\n");
	free(s);
	/* every sentence resolves its figures (an unknown one aborts) */
	for (int l = TRACE_FS_LINE_EXT4; l <= TRACE_FS_LINE_OTHER_BLOCK; l++)
		free(sentence(l, &m, &d));
}

/* Every --compare row reads back the value the JSON writer wrote for it. */
Test(fsfields, compare_reads_what_the_report_writes)
{
	static struct probe_misc m;
	static struct probe_dev_stat d;
	hist_add_value(&m.ext4_unlink, 5000);
	hist_add_value(&m.ext4_unlink, 9000);
	m.ext4_freed_blocks = 11;
	hist_add_value(&m.btrfs_tree_lock, 2000000);
	d.jbd2_commits = 4;
	d.jbd2_wait = 100;
	d.jbd2_blocks = 33;
	d.bio_bytes = 2 * 1048576;
	hist_add_value(&d.bio_lat, 100000);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer w;
	jw_init(&w, f);
	jw_object(&w, NULL);
	jw_object(&w, "fs");
	const char *groups[] = { "ext4", "jbd2", "xfs", "btrfs", "block" };
	for (int i = 0; i < 5; i++)
		trace_fs_json(&w, groups[i], &m, &d);
	jw_end(&w);
	jw_end(&w);
	jw_finish(&w);
	fclose(f);
	char err[128];
	struct json_value *v = json_parse(buf, err, sizeof err);
	cr_assert_not_null(v, "%s", err);
	const struct json_value *fs = json_get(v, "fs");
	double hz = json_get_num(json_get(fs, "jbd2"), "hz", 0);
	cr_assert_gt(hz, 0);

	int rows = 0;
	for (const struct trace_fs_field *x = trace_fs_fields; x->group; x++) {
		if (!x->label)
			continue;
		rows++;
		double got = trace_fs_from_json(fs, x);
		if (!strcmp(x->label, "ext4 unlinks"))
			cr_assert_float_eq(got, 2.0, 1e-9);
		if (!strcmp(x->label, "ext4 freed blocks"))
			cr_assert_float_eq(got, 11.0, 1e-9);
		if (!strcmp(x->label, "btrfs tree-lock wait s"))
			cr_assert_float_eq(got, 0.002, 1e-12);
		if (!strcmp(x->label, "jbd2 ms waiting/commit"))
			cr_assert_float_eq(got, 100 * 1000.0 / hz / 4, 1e-9);
		if (!strcmp(x->label, "jbd2 journal blocks"))
			cr_assert_float_eq(got, 33.0, 1e-9);
		if (!strcmp(x->label, "block MiB"))
			cr_assert_float_eq(got, 2.0, 1e-9);
		if (!strcmp(x->label, "block p99 us"))
			cr_assert_float_eq(got, 100.0, 1e-9);
	}
	cr_assert_eq(rows, 23, "the --compare rows");
	json_free(v);
	free(buf);
}
