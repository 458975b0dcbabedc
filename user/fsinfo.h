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
bool fsinfo_inode_sort_pays(int fd);
bool fsinfo_type_sort_pays(uint64_t f_type);
/* Several workers unlinking in one directory pay here: tmpfs and ext4 do
 * part of each unlink outside the parent's i_rwsem (measured: flat 200k,
 * 2 workers, tmpfs 1.05 -> 0.64 s, ext4 3.3 -> 2.1-2.5 s), and on FUSE and
 * network filesystems the latency of each call is what parallelism hides.
 * xfs and btrfs get slower (machine.md: xfs flat 1.59 s at 1 thread, 2.72 s
 * at 2). */
bool fsinfo_type_share_pays(uint64_t f_type);

#endif
