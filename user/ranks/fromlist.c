// SPDX-License-Identifier: GPL-3.0-or-later
/* --from-list over the ranks (fromlist.h): rank 0 reads the list and deals
 * each path by its parent directory's hash, so that a directory stays with
 * one rank (and, inside it, one thread: pathdel_pool's HASH_DIV); each rank
 * unlinks what it is dealt, fd-relative (listdel/pathlist.h). Then, once
 * every rank is done (a sum says so), rank 0 alone prunes the directories
 * left empty: it saw every path. */
#include "ranks/fromlist.h"
#include "lib/clock.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "listdel/pathlist.h"
#include "ranks/rank.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BATCH_BYTES (64 * 1024) /* paths sent at a time */

struct dealer {
	struct rank *r;
	int size;
	struct pathdel_pool *pool; /* this rank's own share */
	struct strbuf *batch;	   /* per rank (rank 0's unused) */
	struct prune_spool *spool;
};

static void send_batch(struct dealer *d, int dest)
{
	if (d->batch[dest].len)
		rank_send_paths(d->r, dest, d->batch[dest].buf, d->batch[dest].len);
	sb_reset(&d->batch[dest]);
}

/* One path of the list, to its rank. With --prune-empty rank 0 spools its
 * parent and the path itself (a listed directory is pruned here, wherever
 * it was dealt). 0 or the errno of a spool write. */
static int deal(struct dealer *d, const char *path, size_t len)
{
	if (d->spool) {
		int err = prune_spool_parent(d->spool, path, pathlist_parent_len(path, len));
		if (!err)
			err = prune_spool_dir(d->spool, path, len);
		if (err)
			return err;
	}
	int dest = (int)(pathlist_parent_hash(path, len) % (uint64_t)d->size);
	if (dest == 0) {
		pathdel_pool_add(d->pool, path, len);
		return 0;
	}
	sb_add(&d->batch[dest], path, len);
	sb_addc(&d->batch[dest], '\0');
	if (d->batch[dest].len >= BATCH_BYTES)
		send_batch(d, dest);
	return 0;
}

/* Rank 0: the list, dealt. False on a read or spool error (said). */
static bool read_and_deal(struct dealer *d, const struct rm_options *o)
{
	struct pathlist_reader rd;
	int err = pathlist_open(&rd, o->from_list);
	if (err) {
		warn_errno(err, "cannot open %s for reading", quote_n(0, o->from_list));
		return false;
	}
	char *path;
	size_t len;
	int got;
	bool ok = true;
	while ((got = pathlist_next(&rd, &path, &len)) > 0) {
		err = deal(d, path, len);
		if (err && d->spool) {
			warn_errno(err, "cannot write the prune list");
			prune_spool_free(d->spool); /* no pruning on a partial list */
			d->spool = NULL;
			ok = false;
			deal(d, path, len);
		}
	}
	if (got < 0) {
		warn_errno(-got, "error reading %s", quote_n(0, o->from_list));
		ok = false;
	}
	pathlist_close(&rd);
	for (int i = 1; i < d->size; i++)
		send_batch(d, i);
	rank_end_paths(d->r);
	return ok;
}

/* Ranks but 0: what is dealt, until the end. */
static void take_dealt(struct dealer *d)
{
	struct strbuf in = STRBUF_INIT;
	while (rank_next_paths(d->r, &in)) {
		const char *p = in.buf, *end = in.buf + in.len;
		while (p < end) {
			size_t len = strnlen(p, (size_t)(end - p));
			if (len)
				pathdel_pool_add(d->pool, p, len);
			p += len + 1;
		}
	}
	sb_free(&in);
}

/* Rank 0, after every rank's unlinks: the directories left empty. */
static bool prune(struct prune_spool *spool, const struct pathdel_opts *o, struct pathdel_counts *n)
{
	struct pathdel d;
	pathdel_init(&d, o, NULL);
	int err = prune_spool_replay(spool, &d, NULL);
	if (err)
		warn_errno(err, "cannot read the prune list");
	n->dirs += d.n.dirs;
	n->errors += d.n.errors;
	pathdel_destroy(&d);
	return err == 0;
}

static void print_stats(const struct rank_totals *t, double secs, unsigned threads)
{
	uint64_t entries = t->files + t->dirs;
	fflush(stdout);
	fprintf(stderr,
		"removed: %llu files, %llu directories in %.3f s (%.0f entries/s)\n"
		"threads: %u a rank (--from-list, dealt by parent directory)\n"
		"errors: %llu\n"
		"ranks: %llu\n",
		(unsigned long long)t->files, (unsigned long long)t->dirs, secs,
		secs > 0 ? (double)entries / secs : 0.0, threads, (unsigned long long)t->errors,
		(unsigned long long)t->ranks);
}

int dist_fromlist_main(struct rank *r, int rank, int size, const struct rm_options *o)
{
	double t0 = now_s();
	unsigned threads = pathdel_threads(o->threads);
	struct pathdel_opts dopts = {
		.force = o->ignore_missing,
		.verbose = o->verbose,
		.prune = o->prune_empty,
		.budget = pathdel_fd_budget(threads + 1),
	};
	/* --max-ops over all ranks: each has about 1/SIZE of the paths */
	_Atomic uint64_t next = 0;
	if (o->max_ops) {
		uint64_t share = o->max_ops / (uint64_t)size;
		dopts.interval_ns = 1000000000ull / (share ? share : 1);
		dopts.next = &next;
	}
	struct dealer d = { .r = r, .size = size };
	bool ok = true;
	int err = 0;
	/* every rank spools its listed directories, so that none is an error;
	 * rank 0's spool, which has every path, is the one replayed */
	if (o->prune_empty) {
		const char *tmp = prune_spool_dir_name();
		d.spool = prune_spool_new(tmp, &err);
		if (!d.spool) {
			warn_errno(err, "cannot create the prune list in %s", quote_n(0, tmp));
			ok = false;
			dopts.prune = false;
		}
	}
	d.pool = pathdel_pool_new(threads, (uint64_t)size, &dopts, d.spool);
	if (rank == 0) {
		d.batch = xcalloc((size_t)size, sizeof(*d.batch));
		ok &= read_and_deal(&d, o);
	} else {
		take_dealt(&d);
	}
	struct pathdel_counts n = { 0 };
	pathdel_pool_finish(d.pool, &n);
	rank_paths_done(r, n.files, n.dirs, n.errors);
	if (rank == 0 && d.spool) {
		ok &= prune(d.spool, &dopts, &n);
		rank_list_counts(r, n.files, n.dirs, n.errors);
	}
	if (n.errors)
		ok = false;
	bool all_ok = rank_finish(r, ok);
	if (rank == 0 && o->stats) {
		struct rank_totals t;
		rank_totals(r, &t);
		print_stats(&t, now_s() - t0, threads);
	}
	if (d.spool)
		prune_spool_free(d.spool);
	if (d.batch) {
		for (int i = 0; i < size; i++)
			sb_free(&d.batch[i]);
		free(d.batch);
	}
	return all_ok ? 0 : 1;
}
