// SPDX-License-Identifier: GPL-3.0-or-later
/* Whole-buffer writes: write(2) may write less than asked (a signal, a pipe,
 * a full disk), so a caller that needs all of it loops. */
#ifndef ADAPTRM_FDIO_H
#define ADAPTRM_FDIO_H
#include <stddef.h>

/* Write all N bytes of P to FD: 0, or the errno of the write that failed. */
int write_all(int fd, const void *p, size_t n);

#endif
