/* First controller: the number of CPUs, as the engine issue asks "for now".
 * The adaptive version replaces the bodies, not the interface. */
#include "controller.h"
#include "xalloc.h"

#include <stdio.h>
#include <unistd.h>

struct controller {
	struct engine *e;
	int threads;
};

static int ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int controller_default_max_threads(int requested)
{
	return requested > 0 ? requested : ncpus();
}

struct controller *controller_new(struct engine *e, const struct rm_options *o)
{
	if (o->threads > 0)
		return NULL;
	struct controller *c = xcalloc(1, sizeof(*c));
	c->e = e;
	c->threads = engine_max_threads(e);
	return c;
}

void controller_begin_tree(struct controller *c, int dirfd, const char *name)
{
	engine_set_active(c->e, c->threads);
}

void controller_tick(struct controller *c) { }
void controller_end_tree(struct controller *c) { }
void controller_finish(struct controller *c) { }

void controller_describe(const struct controller *c, char *buf, size_t len)
{
	if (c)
		snprintf(buf, len, "%d (number of CPUs)", c->threads);
	else
		snprintf(buf, len, "fixed");
}

void controller_free(struct controller *c)
{
	free(c);
}
