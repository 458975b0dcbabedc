// SPDX-License-Identifier: GPL-3.0-or-later
/* System call names of the architecture adaptrm is built for (the numbers
 * the probes record), through libseccomp. */
#ifndef ADAPTRM_SYSCALL_NAMES_H
#define ADAPTRM_SYSCALL_NAMES_H
/* NULL for an unknown number or one past the probes' table. */
const char *syscall_name(unsigned nr);
#endif
