// SPDX-License-Identifier: GPL-3.0-or-later
/* Allocation that never returns NULL: out of memory is reported and fatal.
 * This is the one way a layer below the faces may end the process
 * (docs/design.md#how-errors-travel): only where ENOMEM leaves nothing to
 * go on with, as GNU's xalloc_die. */
#ifndef ADAPTRM_XALLOC_H
#define ADAPTRM_XALLOC_H
#include <stdbool.h>
#include <stdlib.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* "memory exhausted", exit status 1: for an allocator of its own
 * (posix_memalign, a node) that has failed in the same way. */
void xalloc_die(void) __attribute__((noreturn));

/* Room for NEED elements in the array *PP of *CAP elements, the capacity
 * doubled (from FIRST) until it fits: false if out of memory, with *PP and
 * *CAP unchanged. For callers that must survive ENOMEM, unlike xrealloc. */
#define try_grow(pp, cap, need, first) try_grow_size((pp), (cap), (need), sizeof(**(pp)), (first))
bool try_grow_size(void *pp, size_t *cap, size_t need, size_t size, size_t first);

/* Under an address-space limit (prlimit --as, ulimit -v), have every thread
 * allocate from one malloc arena. Call before the process starts threads. */
void xalloc_fit_address_limit(void);

#endif
