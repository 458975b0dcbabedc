// SPDX-License-Identifier: GPL-3.0-or-later
/* The order in which workers take directories on xfs (engine_ag_pick in
 * user/engine/tasks.c) and the geometry it is computed from
 * (fsinfo_xfs_ag_shift in user/engine/fsinfo.c). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "engine/engine_int.h"
#include "engine/fsinfo.h"

/* A shift of 22 (agblklog 19 + inopblog 3, a 2 GiB AG of 4 KiB blocks and
 * 512-byte inodes): the inode numbers below name AGs 0 to 3. */
#define SHIFT 22
#define INO(ag, n) (((uint64_t)(ag) << SHIFT) | (n))

static struct dnode nodes[ENGINE_AG_LOOK + 8];
static uintptr_t stack[ENGINE_AG_LOOK + 8];

static uintptr_t dir_task(size_t i, uint64_t ino)
{
	nodes[i].ino = ino;
	return (uintptr_t)&nodes[i];
}

Test(agorder, each_worker_takes_its_own_groups_first)
{
	/* bottom to top: AG 0, 1, 2, 3 */
	for (size_t i = 0; i < 4; i++)
		stack[i] = dir_task(i, INO(i, 100 + i));
	/* worker 1 of 2 owns AGs 1 and 3: AG 3 is on top */
	cr_assert_eq(engine_ag_pick(stack, 4, SHIFT, 2, 1), 3);
	/* worker 0 owns AGs 0 and 2: the nearest of them to the top */
	cr_assert_eq(engine_ag_pick(stack, 4, SHIFT, 2, 0), 2);
	/* with four workers, worker 0 owns AG 0 only */
	cr_assert_eq(engine_ag_pick(stack, 4, SHIFT, 4, 0), 0);
	cr_assert_eq(engine_ag_pick(stack, 4, SHIFT, 4, 1), 1);
}

Test(agorder, the_top_without_xfs_or_a_second_worker)
{
	for (size_t i = 0; i < 4; i++)
		stack[i] = dir_task(i, INO(i, 7));
	cr_assert_eq(engine_ag_pick(stack, 4, 0, 2, 0), 3, "no shift: not xfs");
	cr_assert_eq(engine_ag_pick(stack, 4, SHIFT, 1, 0), 3, "one worker");
}

Test(agorder, chunks_and_releases_are_not_held_back)
{
	stack[0] = dir_task(0, INO(0, 1));
	stack[1] = dir_task(1, INO(1, 1));
	stack[2] = (uintptr_t)&nodes[2] | TASK_CHUNK;
	/* a chunk on top goes first: it is part of a directory under way */
	cr_assert_eq(engine_ag_pick(stack, 3, SHIFT, 2, 0), 2);
	/* below a directory on top, chunks and releases are passed over */
	stack[2] = (uintptr_t)&nodes[2] | TASK_RELEASE;
	stack[3] = dir_task(3, INO(1, 2));
	cr_assert_eq(engine_ag_pick(stack, 4, SHIFT, 2, 0), 0);
}

Test(agorder, none_of_its_own_in_reach_takes_the_top)
{
	/* the worker's only directory lies deeper than it looks */
	size_t n = ENGINE_AG_LOOK + 1;
	stack[0] = dir_task(0, INO(0, 5));
	for (size_t i = 1; i < n; i++)
		stack[i] = dir_task(i, INO(1, i));
	cr_assert_eq(engine_ag_pick(stack, n, SHIFT, 2, 0), n - 1);
	/* an unknown inode number (0) is nobody's */
	stack[0] = dir_task(0, 0);
	stack[1] = dir_task(1, INO(1, 1));
	cr_assert_eq(engine_ag_pick(stack, 2, SHIFT, 2, 0), 1);
}

Test(agorder, no_shift_off_xfs)
{
	struct statfs sfs;
	cr_assert_eq(statfs("/tmp", &sfs), 0);
	if (sfs.f_type == 0x58465342)
		cr_skip_test("/tmp is on xfs");
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fsinfo_xfs_ag_shift(fd), 0);
	close(fd);
	fd = open("/tmp", O_PATH | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fsinfo_xfs_ag_shift(fd), 0);
	close(fd);
}
