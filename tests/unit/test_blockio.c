// SPDX-License-Identifier: GPL-3.0-or-later
/* Which block requests are the delete's: its threads' everywhere, its
 * filesystem's threads' only on the delete's own device, nobody else's. */
#include <criterion/criterion.h>
#include "probes/hist.h"
#include "trace/blockio.h"
#include "trace/fsfields.h"

#include <stdlib.h>
#include <string.h>

static void issue(struct probe_dev_stat *d, int cls, unsigned long long bytes, bool discard,
		  uint64_t lat_ns)
{
	d->bio_by[cls].bytes += bytes;
	if (discard) {
		d->bio_by[cls].discards++;
		d->bio_by[cls].discard_bytes += bytes;
	}
	hist_add_value(&d->bio_by[cls].lat, lat_ns);
}

static void fill(struct probe_dev_stat *d)
{
	memset(d, 0, sizeof *d);
	issue(d, PROBE_BIO_TRACED, 4096, false, 1000);
	issue(d, PROBE_BIO_FS, 8192, false, 2000);	  /* the journal */
	issue(d, PROBE_BIO_FS, 1 << 20, true, 3000);	  /* a discard */
	issue(d, PROBE_BIO_OTHER, 64 << 20, false, 4000); /* a writer beside */
	issue(d, PROBE_BIO_OTHER, 2 << 20, true, 5000);	  /* someone's fstrim */
}

Test(blockio, the_delete_device_keeps_its_filesystem_work)
{
	static struct probe_dev_stat d;
	fill(&d);
	trace_block_split(&d, true);
	cr_assert_eq(d.bio_bytes, 4096 + 8192 + (1 << 20));
	cr_assert_eq(d.bio_lat.count, 3);
	cr_assert_eq(d.bio_discards, 1);
	cr_assert_eq(d.bio_discard_bytes, 1 << 20);
	cr_assert_eq(d.other_bytes, (64 << 20) + (2 << 20));
	cr_assert_eq(d.other_lat.count, 2);
	cr_assert_eq(d.other_discards, 1);
	cr_assert_eq(hist_bucket_sum(&d.bio_lat), 3);
}

Test(blockio, another_device_keeps_only_the_traced_threads_requests)
{
	static struct probe_dev_stat d;
	fill(&d);
	trace_block_split(&d, false);
	cr_assert_eq(d.bio_bytes, 4096);
	cr_assert_eq(d.bio_lat.count, 1);
	cr_assert_eq(d.bio_discards, 0);
	cr_assert_eq(d.other_lat.count, 4);
	cr_assert_eq(d.other_discards, 2);
}

/* Splitting twice (the same snapshot read again) gives the same figures. */
Test(blockio, a_split_is_idempotent)
{
	static struct probe_dev_stat d;
	fill(&d);
	trace_block_split(&d, true);
	trace_block_split(&d, true);
	cr_assert_eq(d.bio_lat.count, 3);
	cr_assert_eq(d.other_lat.count, 2);
}

Test(blockio, other_load_reads_as_such)
{
	static struct probe_dev_stat d;
	fill(&d);
	trace_block_split(&d, true);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	trace_fs_text(f, "  ", TRACE_FS_LINE_OTHER_BLOCK, NULL, &d);
	fclose(f);
	cr_assert(!strncmp(buf, "  other load: 2 requests, 66.0 MiB, p50 ", 40), "%s", buf);
	cr_assert(strstr(buf, "; 1 discards (2.0 MiB)\n"), "%s", buf);
	free(buf);
}
