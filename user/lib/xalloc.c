#include "lib/xalloc.h"
#include "lib/msg.h"

#include <errno.h>
#include <string.h>

static void *check(void *p)
{
	if (!p)
		die(ENOMEM, "memory exhausted");
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
