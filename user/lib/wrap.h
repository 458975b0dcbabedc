// SPDX-License-Identifier: GPL-3.0-or-later
/* Text for a reader's screen: long lines broken at spaces, each
 * continuation under the text it continues. */
#ifndef ADAPTRM_WRAP_H
#define ADAPTRM_WRAP_H
#include <stdio.h>

#define WRAP_DEFAULT_WIDTH 100 /* when the output is not a terminal */
#define WRAP_MIN_WIDTH 40

/* The columns to wrap output to FD at: COLUMNS when it is set, else the
 * terminal's width when FD is one, else WRAP_DEFAULT_WIDTH; never fewer
 * than WRAP_MIN_WIDTH. */
int wrap_width(int fd);

/* Write TEXT to F with every line wider than WIDTH columns broken at its
 * last space that fits. A continuation is indented under the line's text:
 * past a list marker ("1. [ 74%] ", "- ", "why: "), else two columns
 * deeper than the line. A word wider than the room stays whole. */
void wrap_text(FILE *f, const char *text, int width);

#endif
