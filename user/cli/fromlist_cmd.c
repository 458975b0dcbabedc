// SPDX-License-Identifier: GPL-3.0-or-later
/* The --from-list face (fromlist_cmd.h): read the list, deal its paths to
 * the unlinkers by parent directory, wait for all of them (the phase
 * boundary), then replay the spooled parents to prune the empty ones. */
#include "cli/fromlist_cmd.h"
#include "lib/clock.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "listdel/pathlist.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The options the list mode cannot honour are usage errors. */
static void check_usage(const struct rm_options *o, int nfiles, char **files)
{
	const char *why = NULL;
	if (!o->from_list)
		why = "--prune-empty needs --from-list";
	else if (nfiles > 0)
		warn_errno(0, "extra operand %s", quote_n(0, files[0]));
	else if (o->recursive)
		why = "--from-list removes no directory tree: -r cannot be used with it";
	else if (o->interactive == INTERACTIVE_ALWAYS || o->prompt_once)
		why = "--from-list never prompts: -i and -I cannot be used with it";
	else
		return;
	if (why)
		warn_errno(0, "%s", why);
	options_usage(1);
}

struct list_run {
	const struct rm_options *o;
	unsigned threads;
	struct pathdel_opts dopts;
	struct prune_spool *spool; /* --prune-empty */
	struct pathdel_counts n;
	double t0;
	_Atomic uint64_t op_next; /* --max-ops: the next unlink's start */
};

/* Read the list to its end, dealing each path. false on a read error (said). */
static bool deal_list(struct list_run *r, struct pathlist_reader *rd)
{
	struct pathdel_pool *pool = pathdel_pool_new(r->threads, 1, &r->dopts, r->spool);
	char *path;
	size_t len;
	int got;
	bool ok = true;
	while ((got = pathlist_next(rd, &path, &len)) > 0) {
		if (r->spool) {
			int err = prune_spool_parent(r->spool, path, pathlist_parent_len(path, len));
			if (err) {
				warn_errno(err, "cannot write the prune list");
				ok = false;
				prune_spool_free(r->spool); /* no pruning on a partial list */
				r->spool = NULL;
			}
		}
		pathdel_pool_add(pool, path, len);
	}
	if (got < 0) {
		warn_errno(-got, "error reading %s", quote_n(0, r->o->from_list));
		ok = false;
	}
	pathdel_pool_finish(pool, &r->n);
	return ok;
}

/* After every unlink: the directories left empty, bottom-up. */
static bool prune(struct list_run *r)
{
	struct pathdel d;
	pathdel_init(&d, &r->dopts, NULL);
	int err = prune_spool_replay(r->spool, &d, NULL);
	if (err)
		warn_errno(err, "cannot read the prune list");
	r->n.files += d.n.files;
	r->n.dirs += d.n.dirs;
	r->n.errors += d.n.errors;
	pathdel_destroy(&d);
	return err == 0;
}

static void print_stats(const struct list_run *r)
{
	double secs = now_s() - r->t0;
	uint64_t entries = r->n.files + r->n.dirs;
	fflush(stdout);
	fprintf(stderr,
		"removed: %llu files, %llu directories in %.3f s (%.0f entries/s)\n"
		"threads: %u (--from-list, dealt by parent directory)\n"
		"errors: %llu\n",
		(unsigned long long)r->n.files, (unsigned long long)r->n.dirs, secs,
		secs > 0 ? (double)entries / secs : 0.0, r->threads, (unsigned long long)r->n.errors);
}

int fromlist_main(const struct rm_options *o, int nfiles, char **files)
{
	check_usage(o, nfiles, files);
	struct list_run r = { .o = o, .threads = pathdel_threads(o->threads), .t0 = now_s() };
	r.dopts = (struct pathdel_opts){
		.force = o->ignore_missing,
		.verbose = o->verbose,
		.prune = o->prune_empty,
		.budget = pathdel_fd_budget(r.threads + 1),
		.interval_ns = o->max_ops ? 1000000000ull / o->max_ops : 0,
		.next = &r.op_next,
	};
	struct pathlist_reader rd;
	int err = pathlist_open(&rd, o->from_list);
	if (err) {
		warn_errno(err, "cannot open %s for reading", quote_n(0, o->from_list));
		return 1;
	}
	if (o->prune_empty) {
		const char *tmp = prune_spool_dir_name();
		r.spool = prune_spool_new(tmp, &err);
		if (!r.spool) {
			warn_errno(err, "cannot create the prune list in %s", quote_n(0, tmp));
			pathlist_close(&rd);
			return 1;
		}
	}
	bool ok = deal_list(&r, &rd);
	pathlist_close(&rd);
	if (r.spool && !prune(&r))
		ok = false;
	prune_spool_free(r.spool);
	if (o->stats)
		print_stats(&r);
	return ok && r.n.errors == 0 ? 0 : 1;
}
