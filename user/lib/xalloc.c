// SPDX-License-Identifier: GPL-3.0-or-later
#include "lib/xalloc.h"
#include "lib/msg.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

void xalloc_die(void)
{
	die(ENOMEM, "memory exhausted");
}

static void *check(void *p)
{
	if (!p)
		xalloc_die();
	return p;
}

void *xmalloc(size_t n)
{
	return check(malloc(n ? n : 1));
}
void *xcalloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1));
}
void *xrealloc(void *p, size_t n)
{
	return check(realloc(p, n ? n : 1));
}
char *xstrdup(const char *s)
{
	return check(strdup(s));
}

bool try_grow_size(void *pp, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return true;
	size_t n = *cap ? *cap : first;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			return false;
		n *= 2;
	}
	/* PP points at a pointer of any object type: read and write it whole */
	void *old;
	memcpy(&old, pp, sizeof(old));
	void *p = realloc(old, n * size);
	if (!p)
		return false;
	memcpy(pp, &p, sizeof(p));
	*cap = n;
	return true;
}

/* glibc gives a thread that allocates while the other arenas are busy an
 * arena of its own, and each arena first reserves 64 MiB of address space
 * (twice that for a moment, to align it). Under an address-space limit the
 * reservation fails, and glibc then serves every allocation of that thread
 * with an mmap of its own: a whole page for each directory node, so the
 * nodes of a deep chain exhausted the limit long before their bytes did.
 * One shared arena has no reservation to fail; the engine allocates per
 * directory, never per file, so its lock is seldom contended. */
void xalloc_fit_address_limit(void)
{
#ifdef M_ARENA_MAX
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		mallopt(M_ARENA_MAX, 1);
#endif
}
