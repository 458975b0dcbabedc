// SPDX-License-Identifier: GPL-3.0-or-later
/* Which block requests are the delete's (blockio.h). */
#include "trace/blockio.h"
#include "trace/result.h"

#include <string.h>

static void add_bio(unsigned long long *bytes, unsigned long long *discards,
		    unsigned long long *discard_bytes, struct probe_hist *lat,
		    const struct probe_bio *b)
{
	*bytes += b->bytes;
	*discards += b->discards;
	*discard_bytes += b->discard_bytes;
	lat->count += b->lat.count;
	lat->total += b->lat.total;
	for (int i = 0; i < PROBE_HIST_BUCKETS; i++)
		lat->b[i] += b->lat.b[i];
}

void trace_block_split(struct probe_dev_stat *d, bool delete_dev)
{
	d->bio_bytes = d->bio_discards = d->bio_discard_bytes = 0;
	d->other_bytes = d->other_discards = d->other_discard_bytes = 0;
	memset(&d->bio_lat, 0, sizeof d->bio_lat);
	memset(&d->other_lat, 0, sizeof d->other_lat);
	for (int c = 0; c < PROBE_BIO_CLASSES; c++) {
		/* a filesystem's threads work for the delete only on its device:
		 * elsewhere (a loop device's backing disk, the root disk) they
		 * serve everyone */
		bool own = c == PROBE_BIO_TRACED || (c == PROBE_BIO_FS && delete_dev);
		if (own)
			add_bio(&d->bio_bytes, &d->bio_discards, &d->bio_discard_bytes, &d->bio_lat,
				&d->bio_by[c]);
		else
			add_bio(&d->other_bytes, &d->other_discards, &d->other_discard_bytes,
				&d->other_lat, &d->bio_by[c]);
	}
}

void trace_block_split_all(struct probe_snapshot *s, const struct trace_result *r)
{
	for (uint32_t i = 0; i < s->ndevs && i < PROBE_MAX_DEVS; i++) {
		bool delete_dev = false;
		for (int j = 0; j < r->ndevs; j++)
			if (r->devs[j].dev == s->devs[i].dev)
				delete_dev = r->devs[j].traced;
		trace_block_split(&s->devs[i].st, delete_dev);
	}
}
