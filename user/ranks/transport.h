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
	 * lost. NULL where nothing can be lost (the in-process back-end). */
	void (*abort)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
	int rank, size;
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

#endif
