// SPDX-License-Identifier: GPL-3.0-or-later
/* How ranks talk (docs/design.md#scale-out): a small interface with two
 * back-ends, MPI for real clusters (user/mpi/transport_mpi.c, only in
 * adaptrm-mpi) and in-process for tests (transport_local.c: each "rank" a
 * group of threads with its own engine). Only the rank's communication
 * thread calls it, and no call blocks: a rank whose workers all sit in a
 * slow unlink still answers its peers. */
#ifndef ADAPTRM_TRANSPORT_H
#define ADAPTRM_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;
struct transport;

struct transport_ops {
	/* Send LEN bytes of BUF (copied) to rank DEST with TAG; never waits
	 * for the receiver. False if it cannot be queued. */
	bool (*send)(struct transport *t, int dest, int tag, const void *buf, size_t len);
	/* The next message for this rank, if one has arrived: its bytes in
	 * BUF (reset first), its sender and tag. False if none. */
	bool (*recv)(struct transport *t, int *src, int *tag, struct strbuf *buf);
	/* Start summing N counters (IN, copied) over every rank; every rank
	 * starts the same sums in the same order, one at a time. */
	bool (*sum_start)(struct transport *t, const uint64_t *in, size_t n);
	/* True once the sum started is complete, the result in OUT. */
	bool (*sum_test)(struct transport *t, uint64_t *out);
	/* Wait (briefly) for sends still in flight and free T. */
	void (*close)(struct transport *t);
	/* End every rank's process with an error, this one too: a peer is
	 * lost. NULL where nothing can be lost (the in-process back-ends). */
	void (*abort)(struct transport *t);
	/* Append this end's undelivered messages to OUT, for a watchdog's
	 * report (NULL: nothing to say). */
	void (*describe)(struct transport *t, struct strbuf *out);
};

struct transport {
	const struct transport_ops *ops;
	int rank, size;
	/* How often the counts are summed (0: the rank's own default): the
	 * simulation sums often, so that its thousands of runs end quickly. */
	uint64_t sum_period_ns;
	/* The seeded simulation's pauses of the ranks' engine threads
	 * (engine_set_jitter; NULL elsewhere): JITTER_ARG outlives every
	 * engine of the world, so a worker ending late may still call it. */
	void (*jitter)(void *arg);
	void *jitter_arg;
};

static inline bool transport_send(struct transport *t, int dest, int tag, const void *buf, size_t len)
{
	return t->ops->send(t, dest, tag, buf, len);
}
static inline bool transport_recv(struct transport *t, int *src, int *tag, struct strbuf *buf)
{
	return t->ops->recv(t, src, tag, buf);
}
static inline bool transport_sum_start(struct transport *t, const uint64_t *in, size_t n)
{
	return t->ops->sum_start(t, in, n);
}
static inline bool transport_sum_test(struct transport *t, uint64_t *out)
{
	return t->ops->sum_test(t, out);
}
static inline void transport_close(struct transport *t)
{
	if (t)
		t->ops->close(t);
}

/* The in-process back-end: a world of SIZE ranks, then each rank's end. */
struct local_world;
struct local_world *local_world_new(int size);
struct transport *local_transport(struct local_world *w, int rank);
/* After every rank's transport is closed. */
void local_world_free(struct local_world *w);

/* The seeded simulation's back-end (transport_sim.c): in-process, but each
 * message waits a random time and messages are taken in a random order
 * (only as MPI allows: in order per sender, receiver and tag), sums
 * complete late, and the ranks' threads pause at random, every choice drawn
 * from SEED. The same seed draws the same choices; which thread runs
 * first is still the scheduler's, so a seed replays a hang often, not
 * always. */
struct sim_world;
struct sim_params {
	unsigned max_delay_us;	  /* a message waits up to this long */
	unsigned pause_per_mille; /* a transport call or worker pauses this often */
	unsigned max_pause_us;	  /* for up to this long */
	unsigned max_sum_lag;	  /* a sum completes after up to this many tests */
};
struct sim_world *sim_world_new(int size, uint64_t seed, const struct sim_params *p);
struct transport *sim_transport(struct sim_world *w, int rank);
/* Every message not yet taken, by receiver, sender and tag. */
void sim_world_describe(struct sim_world *w, struct strbuf *out);
void sim_world_free(struct sim_world *w);

#endif
