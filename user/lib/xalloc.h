/* Allocation that never returns NULL: out of memory is reported and fatal. */
#ifndef ADAPTRM_XALLOC_H
#define ADAPTRM_XALLOC_H
#include <stdlib.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* Under an address-space limit (prlimit --as, ulimit -v), have every thread
 * allocate from one malloc arena. Call before the process starts threads. */
void xalloc_fit_address_limit(void);

#endif
