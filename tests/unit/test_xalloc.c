// SPDX-License-Identifier: GPL-3.0-or-later
#include <criterion/criterion.h>
#include "lib/xalloc.h"

#include <stdint.h>

Test(xalloc, try_grow_doubles_from_first)
{
	int *a = NULL;
	size_t cap = 0;
	cr_assert(try_grow(&a, &cap, 5, 4));
	cr_assert_eq(cap, 8, "4 doubled once holds 5");
	a[7] = 1;
	cr_assert(try_grow(&a, &cap, 8, 4));
	cr_assert_eq(cap, 8, "enough room: unchanged");
	cr_assert(try_grow(&a, &cap, 9, 4));
	cr_assert_eq(cap, 16);
	cr_assert_eq(a[7], 1, "the contents move with the array");
	free(a);
}

Test(xalloc, try_grow_fails_without_dying)
{
	char *p = NULL;
	size_t cap = 0;
	cr_assert(try_grow(&p, &cap, 1, 64));
	char *before = p;
	cr_assert_not(try_grow(&p, &cap, SIZE_MAX, 64), "an impossible size fails");
	cr_assert_eq(p, before, "the array is left as it was");
	cr_assert_eq(cap, 64);
	free(p);
}
