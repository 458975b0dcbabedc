// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/fsinfo.h"
#include "lib/env.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#define EXT4_MAGIC 0xEF53
#define XFS_MAGIC 0x58465342
#define BTRFS_MAGIC 0x9123683E
#define TMPFS_MAGIC 0x01021994
#define FUSE_MAGIC 0x65735546
#define NFS_MAGIC 0x6969
#define REISERFS_MAGIC 0x52654973
#define OVERLAY_MAGIC 0x794c7630
#define ZFS_MAGIC 0x2fc12fc1
#define CIFS_MAGIC 0xFF534D42
#define SMB2_MAGIC 0xFE534D42
#define F2FS_MAGIC 0xF2F52010
#define RAMFS_MAGIC 0x858458f6

uint64_t fsinfo_type(int fd)
{
	struct statfs sfs;
	if (fstatfs(fd, &sfs) < 0)
		return 0;
	return (uint64_t)(uint32_t)sfs.f_type;
}

const char *fsinfo_name(uint64_t t, char buf[24])
{
	switch (t) {
	case EXT4_MAGIC: return "ext4";
	case XFS_MAGIC: return "xfs";
	case BTRFS_MAGIC: return "btrfs";
	case TMPFS_MAGIC: return "tmpfs";
	case FUSE_MAGIC: return "fuse";
	case NFS_MAGIC: return "nfs";
	case REISERFS_MAGIC: return "reiserfs";
	case OVERLAY_MAGIC: return "overlay";
	case ZFS_MAGIC: return "zfs";
	case CIFS_MAGIC:
	case SMB2_MAGIC: return "cifs";
	case F2FS_MAGIC: return "f2fs";
	case RAMFS_MAGIC: return "ramfs";
	}
	snprintf(buf, 24, "0x%llx", (unsigned long long)t);
	return buf;
}

/* ADAPTRM_SHARE_TRIAL=1, ADAPTRM_SORT_TRIAL=1: pretend no type was
 * measured, so that the controller's trial runs everywhere (tests,
 * experiments). */
static bool trial_forced(_Atomic int *cached, enum env_var var)
{
	/* workers ask concurrently: atomic, and every one computes the same */
	int f = atomic_load_explicit(cached, memory_order_relaxed);
	if (f < 0) {
		f = env_flag(var, 0);
		atomic_store_explicit(cached, f, memory_order_relaxed);
	}
	return f;
}

static bool share_trial_forced(void)
{
	static _Atomic int forced = -1;
	return trial_forced(&forced, ENV_SHARE_TRIAL);
}

static bool sort_trial_forced(void)
{
	static _Atomic int forced = -1;
	return trial_forced(&forced, ENV_SORT_TRIAL);
}

bool fsinfo_type_sort_pays(uint64_t t)
{
	if (sort_trial_forced())
		return false;
	return t == EXT4_MAGIC || t == BTRFS_MAGIC || t == REISERFS_MAGIC;
}

bool fsinfo_type_sort_known(uint64_t t)
{
	if (sort_trial_forced())
		return false;
	return fsinfo_type_sort_pays(t) || t == TMPFS_MAGIC || t == RAMFS_MAGIC || t == FUSE_MAGIC ||
	       t == NFS_MAGIC || t == CIFS_MAGIC || t == SMB2_MAGIC || t == XFS_MAGIC;
}

bool fsinfo_type_share_pays(uint64_t t)
{
	if (share_trial_forced())
		return false;
	return t == TMPFS_MAGIC || t == EXT4_MAGIC || t == FUSE_MAGIC || t == NFS_MAGIC ||
	       t == CIFS_MAGIC || t == SMB2_MAGIC || t == RAMFS_MAGIC;
}

bool fsinfo_type_share_known(uint64_t t)
{
	if (share_trial_forced())
		return false;
	return fsinfo_type_share_pays(t) || t == XFS_MAGIC || t == BTRFS_MAGIC;
}

bool fsinfo_type_reverse_pays(uint64_t t)
{
	return t == TMPFS_MAGIC || t == XFS_MAGIC || t == BTRFS_MAGIC;
}

bool fsinfo_type_in_memory(uint64_t t)
{
	return t == TMPFS_MAGIC || t == RAMFS_MAGIC;
}

bool fsinfo_type_order_by_cache(uint64_t t)
{
	return fsinfo_type_reverse_pays(t) && !fsinfo_type_in_memory(t);
}

bool fsinfo_type_dirsize_bounds(uint64_t t)
{
	return t == EXT4_MAGIC;
}

unsigned fsinfo_type_min_dirent(uint64_t t)
{
	switch (t) {
	case EXT4_MAGIC: return FSINFO_MIN_DIRENT;
	case TMPFS_MAGIC: return 20;
	case XFS_MAGIC: return 8;
	case BTRFS_MAGIC: return 2;
	}
	return 0;
}

/* The version 1 geometry every xfs since Linux 2.6 answers (xfs_fs.h's
 * struct xfs_fsop_geom_v1); xfslibs-dev is not needed for ten fields. */
struct xfs_geom_v1 {
	uint32_t blocksize, rtextsize, agblocks, agcount, logblocks, sectsize, inodesize, imaxpct;
	uint64_t datablocks, rtblocks, rtextents, logstart;
	unsigned char uuid[16];
	uint32_t sunit, swidth;
	int32_t version;
	uint32_t flags, logsectsize, rtsectsize, dirblocksize;
};
#define XFS_IOC_FSGEOMETRY_V1 _IOR('X', 100, struct xfs_geom_v1)

static unsigned log2_ceil(uint32_t v)
{
	return v > 1 ? 32 - (unsigned)__builtin_clz(v - 1) : 0;
}

unsigned fsinfo_xfs_ags(int fd, unsigned *shift)
{
	struct statfs sfs;
	*shift = 0;
	if ((fd == AT_FDCWD ? statfs(".", &sfs) : fstatfs(fd, &sfs)) != 0 || sfs.f_type != XFS_MAGIC)
		return 0;
	/* FD may be an O_PATH descriptor (the operand's parent), which takes
	 * no ioctl: the same directory opened for reading does. */
	int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return 0;
	struct xfs_geom_v1 g;
	int r = ioctl(rfd, XFS_IOC_FSGEOMETRY_V1, &g);
	close(rfd);
	if (r != 0 || !g.inodesize || g.blocksize < g.inodesize)
		return 0;
	/* xfs_mount's sb_agblklog is the ceiling log of agblocks, sb_inopblog
	 * the log of inodes per block: an inode number is AG, block, slot. */
	if (g.agcount >= 2)
		*shift = log2_ceil(g.agblocks) + log2_ceil(g.blocksize / g.inodesize);
	return g.agcount;
}

unsigned fsinfo_xfs_ag_shift(int fd)
{
	unsigned shift;
	fsinfo_xfs_ags(fd, &shift);
	return shift;
}
