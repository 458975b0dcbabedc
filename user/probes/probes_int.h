// SPDX-License-Identifier: GPL-3.0-or-later
/* The probe library's handle, shared by its three parts: probes.c loads
 * and attaches the programs, snapshot.c reads the counters, stacks.c walks
 * the stack-keyed hashes (callers, wait sites, on-CPU samples). */
#ifndef ADAPTRM_PROBES_INT_H
#define ADAPTRM_PROBES_INT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "probes/probes.h"

struct probes_bpf;
struct bpf_link;
struct ksyms;

struct probes {
	struct probes_bpf *skel;
	struct bpf_link *links[64];
	int nlinks;
	bool attached[PROBE_G_COUNT];
	struct bpf_link **cpu_links; /* the sampler's perf events, one per online CPU */
	int ncpu_links;
	int ncpus;
	uint32_t base_threads, base_tgids;
	void *buf; /* batch lookup values */
	size_t bufsize;
	uint32_t *keys;
	struct ksyms *ksyms;
	bool ksyms_tried;
	/* probes_wait_causes: per stack id, its cause + 1 (0: not yet), with
	 * CAUSE_THROTTLED set when it went through block throttling; the full
	 * symbol table it names new stacks with */
	unsigned char *cause_of;
	struct ksyms *live_ksyms;
	bool live_ksyms_tried;
	char notes[1024];
	uint64_t load_ns, attach_ns; /* what starting cost: BPF load, then attach */
};

/* CLOCK_MONOTONIC in ns: bpf_ktime_get_ns's clock. */
static inline uint64_t probes_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
