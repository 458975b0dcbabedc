// SPDX-License-Identifier: GPL-3.0-or-later
/* Where a delete starts when nothing was stored (see prior.h). */
#include "ctl/prior.h"

#include <string.h>
#include <unistd.h>

int ctl_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* Where to start when nothing was stored: xfs and btrfs lose with a second
 * unlinker in a directory, ext4 gains with 2, tmpfs scales to the CPUs, FUSE
 * and network filesystems hide their latency behind many workers. The
 * measurements behind each line: docs/lab/log.md#start-point. */
int ctl_prior_threads(const char *fs, const char *shape)
{
	int cpus = ctl_ncpus();
	/* FUSE holds a directory's lock across each request, so only
	 * directories overlap: a tree wants a worker per directory in flight,
	 * up to the service's own limit on requests in flight, and climbs
	 * there from 8, the knee of common clients (Lustre's RPCs in flight,
	 * FUSE's background requests). Starting above the knee costs more
	 * than the climb: each worker reads its directory at once, and the
	 * client keeps the entries it listed only for a while (1 s on FUSE),
	 * so a directory read long before its unlinks pays a lookup with
	 * each (docs/design.md#the-knee). Other shapes are flat above 8. */
	if (!strcmp(fs, "fuse") || !strcmp(fs, "nfs") || !strcmp(fs, "cifs"))
		return 8;
	/* A chain has one directory in flight: a second worker only adds
	 * hand-offs. */
	if (!strcmp(shape, "chain") || !strcmp(shape, "small") || !strcmp(shape, "empty"))
		return 1;
	if (!strcmp(fs, "tmpfs") || !strcmp(fs, "ramfs"))
		return cpus;
	/* btrfs: a second worker burns CPU on tree locks for the same time. */
	if (!strcmp(fs, "btrfs"))
		return 1;
	/* xfs: one unlinker per big directory; wide trees gain from 2. Many
	 * small directories share their parent, whose rmdirs serialize. */
	if (!strcmp(fs, "xfs"))
		return !strcmp(shape, "tree-wide") ? 2 : 1;
	return cpus < 2 ? cpus : 2; /* ext4 and the rest */
}
