// SPDX-License-Identifier: GPL-3.0-or-later
/* The prior: the worker count a delete starts at where no profile of this
 * filesystem and tree shape was stored, by filesystem type and shape class
 * (docs/design.md#start-point). */
#ifndef ADAPTRM_CTL_PRIOR_H
#define ADAPTRM_CTL_PRIOR_H

/* The CPUs online (at least 1). */
int ctl_ncpus(void);
/* The start for filesystem type FS ("ext4", "fuse", ...) and shape class
 * SHAPE ("tree-wide", "chain", ...). */
int ctl_prior_threads(const char *fs, const char *shape);

#endif
