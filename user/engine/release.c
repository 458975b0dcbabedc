// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/release.h"

#include <pthread.h>

void engine_operand_finished(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	e->op_done = true;
	pthread_cond_broadcast(&e->done_cond);
	pthread_mutex_unlock(&e->qlock);
}

__attribute__((noinline)) void engine_node_release(struct worker *w, struct dnode *d)
{
	node_release_inline(w, d);
}
