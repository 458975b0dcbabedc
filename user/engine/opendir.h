// SPDX-License-Identifier: GPL-3.0-or-later
/* Opening a task's directory: relative to its parent's cached fd, checked
 * against what was queued (the operand's and a donation's device and inode),
 * against a cycle and, with --one-file-system, the device; what cannot be
 * opened is removed another way where GNU rm would, or reported. Inside the
 * engine only. */
#ifndef ADAPTRM_ENGINE_OPENDIR_H
#define ADAPTRM_ENGINE_OPENDIR_H
#include "engine/engine_int.h"

#include <sys/stat.h>

/* Open task D in its parent, check that it is the directory that was queued
 * and cache its fd: the fd, with ST its fstat, or -1 if D is finished
 * already (removed another way, or failed and released). */
int engine_open_task_dir(struct worker *w, struct dnode *d, struct stat *st);

#endif
