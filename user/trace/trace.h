// SPDX-License-Identifier: GPL-3.0-or-later
/* adaptrm --trace: run, attach to, or be the deleter and explain where its
 * time goes. ARGV[1] is "--trace". Returns the exit status. */
#ifndef ADAPTRM_TRACE_H
#define ADAPTRM_TRACE_H
int trace_main(int argc, char **argv);
#endif
