// SPDX-License-Identifier: GPL-3.0-or-later
/* The free space of each operand's filesystem: statfs before its first
 * operand and after the run (or now, for the progress line). It is the
 * filesystem's change, not the delete's: other writers' blocks count in it,
 * so it is shown as "free space grew by", never as what the delete freed,
 * and never below zero. Summing the blocks of what is unlinked would cost a
 * stat per file that the engine does not make. xfs and btrfs free part of it
 * in the background, so a figure taken at the end can lag behind. */
#ifndef ADAPTRM_FREED_H
#define ADAPTRM_FREED_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct freed;

struct freed *freed_new(void);
void freed_free(struct freed *f);
/* Operand PATH is about to be removed: remember its filesystem's free space
 * if it is the first operand there (a few filesystems at most; more are
 * not counted). */
void freed_note(struct freed *f, const char *path);
/* Bytes by which the free space of those whose free space is their own grew
 * so far, summed (statfs now; a filesystem whose free space shrank adds 0). */
uint64_t freed_now(struct freed *f);
/* False when no noted filesystem counts its own free space (FUSE, network
 * filesystems, overlay): the space freed is then not shown. */
bool freed_known(struct freed *f);
/* The --stats line: "free space: grew by 3.2 GiB on /mnt (ext4)", one clause
 * per filesystem ("did not grow" where it did not, "not known on /mnt
 * (fuse)" where statfs is not its own). Nothing if no operand was noted. */
void freed_print(struct freed *f, FILE *out);

#endif
