// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef ADAPTRM_VERSION_H
#define ADAPTRM_VERSION_H
#define ADAPTRM_VERSION "0.1.0"
/* "PROG (adaptrm) 0.1.0" + licence lines; scripts take the last word of line 1. */
void version_print(void);
#endif
