// SPDX-License-Identifier: GPL-3.0-or-later
/* adaptrm --trace --compare A.json B.json: two saved traces side by side. */
#ifndef ADAPTRM_TRACE_COMPARE_H
#define ADAPTRM_TRACE_COMPARE_H
#include <stdbool.h>
/* Prints the comparison to stdout: the rows where A and B differ, or
 * every row (ALL); returns the exit status. */
int trace_compare(const char *a, const char *b, bool all);
#endif
