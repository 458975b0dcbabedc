// SPDX-License-Identifier: GPL-3.0-or-later
/* The MPI transport (ranks/transport.h): only non-blocking calls, made by
 * the rank's communication thread (MPI_THREAD_SERIALIZED). Sends copy their
 * bytes and are completed as later calls come; messages are found with
 * MPI_Iprobe; sums are MPI_Iallreduce. */
#include "mpi/transport_mpi.h"
#include "lib/clock.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define SUM_MAX 256

struct pending {
	MPI_Request req;
	char *buf;
};

struct mpi_end {
	struct transport t;
	MPI_Comm comm;
	struct pending *sends;
	size_t nsends, cap;
	MPI_Request sum_req;
	uint64_t sum_in[SUM_MAX], sum_out[SUM_MAX];
	size_t sum_n;
};

/* Free the sends that have completed. */
static void reap(struct mpi_end *m)
{
	size_t keep = 0;
	for (size_t i = 0; i < m->nsends; i++) {
		int done = 0;
		MPI_Test(&m->sends[i].req, &done, MPI_STATUS_IGNORE);
		if (done)
			free(m->sends[i].buf);
		else
			m->sends[keep++] = m->sends[i];
	}
	m->nsends = keep;
}

static bool mpi_send(struct transport *t, int dest, int tag, const void *buf, size_t len)
{
	struct mpi_end *m = (struct mpi_end *)t;
	if (len > (size_t)INT32_MAX)
		return false;
	reap(m);
	if (!try_grow(&m->sends, &m->cap, m->nsends + 1, 16))
		xalloc_die();
	struct pending *p = &m->sends[m->nsends];
	p->buf = malloc(len ? len : 1);
	if (!p->buf)
		return false;
	if (len)
		memcpy(p->buf, buf, len);
	if (MPI_Isend(p->buf, (int)len, MPI_BYTE, dest, tag, m->comm, &p->req) != MPI_SUCCESS) {
		free(p->buf);
		return false;
	}
	m->nsends++;
	return true;
}

static bool mpi_recv(struct transport *t, int *src, int *tag, struct strbuf *buf)
{
	struct mpi_end *m = (struct mpi_end *)t;
	int flag = 0;
	MPI_Status st;
	reap(m);
	if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m->comm, &flag, &st) != MPI_SUCCESS || !flag)
		return false;
	int n = 0;
	MPI_Get_count(&st, MPI_BYTE, &n);
	sb_reset(buf);
	for (int i = 0; i < n; i++) /* room for N bytes, then receive over them */
		sb_addc(buf, 0);
	MPI_Recv(buf->buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, m->comm, MPI_STATUS_IGNORE);
	buf->len = (size_t)n;
	*src = st.MPI_SOURCE;
	*tag = st.MPI_TAG;
	return true;
}

static bool mpi_sum_start(struct transport *t, const uint64_t *in, size_t n)
{
	struct mpi_end *m = (struct mpi_end *)t;
	if (n > SUM_MAX)
		return false;
	memcpy(m->sum_in, in, n * sizeof(*in));
	m->sum_n = n;
	return MPI_Iallreduce(m->sum_in, m->sum_out, (int)n, MPI_UINT64_T, MPI_SUM, m->comm,
			      &m->sum_req) == MPI_SUCCESS;
}

static bool mpi_sum_test(struct transport *t, uint64_t *out)
{
	struct mpi_end *m = (struct mpi_end *)t;
	int done = 0;
	MPI_Test(&m->sum_req, &done, MPI_STATUS_IGNORE);
	if (done)
		memcpy(out, m->sum_out, m->sum_n * sizeof(*out));
	return done;
}

/* Sends still out after a second are cancelled: their receivers left. */
static void mpi_close(struct transport *t)
{
	struct mpi_end *m = (struct mpi_end *)t;
	uint64_t deadline = now_ns() + 1000 * 1000 * 1000ull;
	while (m->nsends && now_ns() < deadline)
		reap(m);
	for (size_t i = 0; i < m->nsends; i++) {
		MPI_Cancel(&m->sends[i].req);
		MPI_Request_free(&m->sends[i].req);
		free(m->sends[i].buf);
	}
	free(m->sends);
	free(m);
}

static void mpi_abort(struct transport *t)
{
	MPI_Abort(((struct mpi_end *)t)->comm, 1);
}

static const struct transport_ops mpi_ops = {
	.send = mpi_send,
	.recv = mpi_recv,
	.sum_start = mpi_sum_start,
	.sum_test = mpi_sum_test,
	.close = mpi_close,
	.abort = mpi_abort,
};

struct transport *mpi_transport(void)
{
	struct mpi_end *m = xcalloc(1, sizeof(*m));
	m->comm = MPI_COMM_WORLD;
	m->t.ops = &mpi_ops;
	MPI_Comm_rank(m->comm, &m->t.rank);
	MPI_Comm_size(m->comm, &m->t.size);
	return &m->t;
}
