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

#endif
