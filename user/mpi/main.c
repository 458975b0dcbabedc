// SPDX-License-Identifier: GPL-3.0-or-later
/* adaptrm-mpi: `mpirun -np N adaptrm-mpi -rf DIR...`, one rank per node.
 * Rank 0 runs the rm face on the operands; every other rank runs an engine
 * with no operand of its own and deletes the subtrees it steals
 * (ranks/rank.h). Every rank reads its operands in its own spelling of the
 * same trees (the same paths on a cluster; one mount per rank on a test
 * machine: mpirun's MPMD form gives each rank its arguments). The exit
 * status is 1 on every rank if anything failed on any. */
#include "cli/options.h"
#include "cli/progress.h"
#include "cli/rm.h"
#include "lib/env.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/xalloc.h"
#include "mpi/transport_mpi.h"
#include "ranks/fromlist.h"
#include "ranks/rank.h"

#include <fcntl.h>
#include <locale.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct rank *g_rank;

/* SIGUSR1 (mpirun and srun pass it to every rank): each rank says what it
 * waits for and holds, for a job that does not end (a test's timeout
 * sends it before the kill). */
static void report_state(int sig)
{
	if (g_rank)
		rank_report_state(g_rank);
}

static void engine_ready(struct engine *e, struct steer *steer, void *arg)
{
	rank_attach(g_rank, e, steer);
}

static bool finish(struct engine *e, bool ok, void *arg)
{
	return rank_finish(g_rank, ok);
}

/* The progress line and --stats of rank 0 count every rank, once the
 * first sum is in (before it, rank 0's own counts). */
static bool cluster_counts(void *arg, struct progress_cluster *c)
{
	struct rank_totals t;
	rank_totals(g_rank, &t);
	if (!t.sums)
		return false;
	*c = (struct progress_cluster){ .files = t.files,
					.dirs = t.dirs,
					.errors = t.errors,
					.ranks = t.ranks,
					.busy = t.ranks_busy,
					.steals = t.steals };
	return true;
}

/* The terminal the user sees rank 0's stderr on, open read-only for its
 * width, or -1 when that cannot be known. Under a launcher stderr is a pipe
 * it forwards and stdout may be a pseudo-terminal of its own, so neither
 * tells; but a rank the launcher started on its own node (Open MPI's mpirun
 * for the ranks it hosts) is its child, and what the launcher forwards to is
 * its own stderr. A job of one rank may be no launcher's (a singleton, whose
 * parent is the shell): it keeps its own stderr's answer. */
static int launcher_terminal(const struct transport *t)
{
	if (t->rank != 0 || t->size < 2 || isatty(STDERR_FILENO) || getppid() <= 1)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd/2", (int)getppid());
	int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && !isatty(fd)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Rank 0 draws the line on the launcher's terminal as on its own: by
 * default (as the rm face on a terminal) and as wide as that terminal. */
static void use_launcher_terminal(struct rm_options *o, const struct transport *t)
{
	int fd = launcher_terminal(t);
	if (fd < 0)
		return;
	progress_set_terminal(fd);
	if (o->progress == -1 && !o->verbose)
		o->progress = 1;
}

/* What the rm face allows and a spread delete does not. */
static void check_usage(const struct rm_options *o, int rank)
{
	const char *bad = NULL;
	if (o->interactive == INTERACTIVE_ALWAYS || o->prompt_once)
		bad = "-i and -I";
	else if (o->from_list && o->recursive)
		bad = "-r with --from-list";
	else if (o->prune_empty && !o->from_list)
		bad = "--prune-empty without --from-list";
	if (!bad)
		return;
	if (rank == 0)
		warn_errno(0, "%s: not supported with MPI", bad);
	MPI_Finalize();
	exit(1);
}

int main(int argc, char **argv)
{
	xalloc_fit_address_limit(); /* before MPI or we start any thread */
	progress_clock_start();
	setlocale(LC_ALL, "");
	msg_init(argv[0]);
	int provided = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
	if (provided < MPI_THREAD_SERIALIZED) {
		warn_errno(0, "the MPI library cannot be called from a communication thread");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	struct transport *t = mpi_transport();

	struct rm_options o;
	int first = options_parse(&o, argc, argv);
	int nfiles = argc - first;
	check_usage(&o, t->rank);
	use_launcher_terminal(&o, t);
	if (o.from_list && nfiles > 0) {
		if (t->rank == 0)
			warn_errno(0, "extra operand %s: --from-list takes none",
				   quote_n(0, argv[first]));
		MPI_Finalize();
		return 1;
	}
	if (nfiles == 0 && !o.ignore_missing && !o.from_list) {
		if (t->rank == 0)
			warn_errno(0, "missing operand");
		MPI_Finalize();
		return 1;
	}
	char json[4096];
	if (o.json_path && t->rank > 0) {
		/* every rank's controller series: FILE.1, FILE.2, ... beside FILE */
		snprintf(json, sizeof json, "%s.%d", o.json_path, t->rank);
		o.json_path = json;
	}
	g_rank = rank_new(t, nfiles, argv + first);
	signal(SIGUSR1, report_state);
	rank_set_eager(g_rank, env_flag(ENV_DIST_EAGER, 0) == 1);
	rank_set_budget(g_rank, env_flag(ENV_DIST_BUDGET, 1) == 1, o.max_ops, o.explain);
	struct rm_face face = { .engine_ready = engine_ready, .finish = finish, .quiet = t->rank > 0 };
	int status;
	if (o.from_list) {
		/* --max-ops is the total: dealt evenly, as the paths are */
		status = dist_fromlist_main(g_rank, t->rank, t->size, &o);
		goto done;
	}
	/* --max-ops is the total: the rank's share is set by its engine */
	o.max_ops = 0;
	if (t->rank == 0) {
		progress_set_cluster(cluster_counts, NULL);
		status = rm_run(&o, nfiles, argv + first, &face);
	} else {
		o.progress = 0;
		face.serve_until = rank_stop_flag(g_rank);
		status = rm_run(&o, nfiles, argv + first, &face);
	}
done:
	signal(SIGUSR1, SIG_IGN);
	struct rank *r = g_rank;
	g_rank = NULL;
	rank_free(r);
	transport_close(t);
	MPI_Finalize();
	return msg_close_stdout(status);
}
