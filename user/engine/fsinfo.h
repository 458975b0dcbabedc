// SPDX-License-Identifier: GPL-3.0-or-later
/* What kind of filesystem a directory is on, and the static policy that
 * follows from it before anything has been measured. */
#ifndef ADAPTRM_FSINFO_H
#define ADAPTRM_FSINFO_H
#include <stdbool.h>
#include <stdint.h>

/* f_type of the filesystem holding FD (0 if fstatfs fails). */
uint64_t fsinfo_type(int fd);
/* Short name: "ext4", "xfs", "btrfs", "tmpfs", "fuse", ... or "0x1234abcd". */
const char *fsinfo_name(uint64_t f_type, char buf[24]);
/* Deleting a big directory in inode order pays here (ext2/3/4, btrfs,
 * reiserfs: inode tables laid out by number); never on tmpfs, network or
 * FUSE filesystems, and not measurably on xfs. */
bool fsinfo_type_sort_pays(uint64_t f_type);
/* Whether inode order was measured on this type at all: the above, plus the
 * types where it is known not to pay (tmpfs, ramfs, FUSE, NFS, CIFS: inode
 * numbers say nothing of placement; xfs: measured no gain). Elsewhere
 * (overlayfs, whose cost is its upper filesystem's, f2fs, zfs, ...) the
 * controller tries it. ADAPTRM_SORT_TRIAL=1 pretends no type was measured. */
bool fsinfo_type_sort_known(uint64_t f_type);
/* Several workers unlinking in one directory pay here: tmpfs and ext4 do
 * part of each unlink outside the parent's i_rwsem, and on FUSE and network
 * filesystems the latency of each call is what parallelism hides; xfs and
 * btrfs get slower (docs/design.md#shared-directories). */
bool fsinfo_type_share_pays(uint64_t f_type);
/* Whether sharing was measured on this type at all (the above, plus xfs and
 * btrfs, where it loses). Elsewhere (overlayfs, whose cost is its upper
 * filesystem's, f2fs, zfs, cluster filesystems) the controller tries it. */
bool fsinfo_type_share_known(uint64_t f_type);
/* Unlinking what one getdents64 call returned last-first pays here (tmpfs,
 * xfs, btrfs); not on ext4, whose readdir order is hash order
 * (docs/design.md#reverse-order). */
bool fsinfo_type_reverse_pays(uint64_t f_type);
/* Whether the order depends on the cache: last-first pays here warm and the
 * filesystem has a disk to be cold on (not tmpfs, not ramfs), where cold
 * it walks the disk backwards (docs/design.md#reverse-order). */
bool fsinfo_type_order_by_cache(uint64_t f_type);
/* Whether the filesystem keeps its files in memory (tmpfs, ramfs): no
 * device is behind it that others could wait on. */
bool fsinfo_type_in_memory(uint64_t f_type);
/* Whether a directory's st_size bounds its entry count: on ext2/3/4 an
 * entry takes at least FSINFO_MIN_DIRENT bytes (an 8-byte header and a name
 * padded to 4). Lets a directory too small to be sorted skip being read
 * whole first. */
#define FSINFO_MIN_DIRENT 12
bool fsinfo_type_dirsize_bounds(uint64_t f_type);
/* The fewest bytes of a directory's st_size that one entry accounts for,
 * so that st_size / this bounds the entries a directory holds: ext2/3/4 12
 * (FSINFO_MIN_DIRENT), tmpfs 20 (BOGO_DIRENT_SIZE per entry), xfs 8 (a
 * short-form entry: length, offset, a 1-byte name and a 4-byte inode),
 * btrfs 2 (i_size counts each name twice). 0 where st_size says nothing
 * (FUSE, NFS, overlayfs and the rest). */
unsigned fsinfo_type_min_dirent(uint64_t f_type);
/* On xfs, how far an inode number is shifted right to give its allocation
 * group (agblklog + inopblog, from XFS_IOC_FSGEOMETRY_V1); 0 elsewhere, or
 * with a single allocation group. FD may be an O_PATH descriptor or AT_FDCWD. */
unsigned fsinfo_xfs_ag_shift(int fd);
/* The same geometry for --explain: the allocation groups' count (0: not
 * xfs, or the geometry unreadable), and the shift into *SHIFT. */
unsigned fsinfo_xfs_ags(int fd, unsigned *shift);

#endif
