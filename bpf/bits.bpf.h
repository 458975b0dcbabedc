// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the BPF programs. */
#ifndef ADAPTRM_BITS_BPF_H
#define ADAPTRM_BITS_BPF_H
#include "probes/probes_shared.h"

/* DTrace quantize bucket of V: 0 for 0, else 1 + floor(log2(V)), clamped.
 * Shift-based on purpose: clang 14 crashes on __builtin_clzll for BPF. */
static __always_inline int hist_slot(__u64 v)
{
	int r = 0;

	if (v == 0)
		return 0;
	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1) {
		r += 1;
	}
	r += 1;
	return r < PROBE_HIST_BUCKETS ? r : PROBE_HIST_BUCKETS - 1;
}

/* Per-CPU values, but syscall tracepoints may be preempted on this kernel:
 * atomic adds keep count == sum of buckets exactly, at the price of an
 * uncontended locked add. */
/* A global function: the verifier checks it once, not at each of its
 * callers (several per program). */
__noinline int hist_add(struct probe_hist *h, __u64 v)
{
	int s = hist_slot(v);

	if (!h)
		return 0;
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->total, v);
	if (s >= 0 && s < PROBE_HIST_BUCKETS)
		__sync_fetch_and_add(&h->b[s], 1);
	return 0;
}

#endif
