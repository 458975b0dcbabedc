// SPDX-License-Identifier: GPL-3.0-or-later
/* The stack-keyed hashes of the probes: contended callers, off-CPU wait
 * sites, on-CPU samples, the names of their frames, and the live wait
 * causes the controller reads (see probes.h). */
#include "lib/env.h"
#include "lib/xalloc.h"
#include "probes.skel.h"
#include "probes/ksym_bpf.h"
#include "probes/ksyms.h"
#include "probes/mapwalk.h"
#include "probes/probes.h"
#include "probes/probes_int.h"
#include "probes/waitclass.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>

static int cmp_caller(const void *a, const void *b)
{
	const struct probe_caller *x = a, *y = b;

	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The frames of stack STACKID into IPS (zeroed past the end); false if gone.
 * Ids from PROBE_STACK_SPILL on are the spill map's. */
static bool stack_of(struct probes *p, int stackid, uint64_t ips[PROBE_STACK_DEPTH])
{
	bool spill = stackid >= PROBE_STACK_SPILL;
	uint32_t key = (uint32_t)(spill ? stackid - PROBE_STACK_SPILL : stackid);

	memset(ips, 0, PROBE_STACK_DEPTH * sizeof *ips);
	return stackid >= 0 &&
	       !bpf_map__lookup_elem(spill ? p->skel->maps.spill_stacks : p->skel->maps.stacks,
				     &key, sizeof key, ips, PROBE_STACK_DEPTH * sizeof *ips, 0);
}

struct addr_set {
	uint64_t *v;
	size_t n, cap;
};

/* The frames of sampled on-CPU stack STACKID into IPS (zeroed past the
 * end); false if gone. */
static bool cpu_stack_of(struct probes *p, int stackid, uint64_t ips[PROBE_CPU_STACK_DEPTH])
{
	uint32_t key = (uint32_t)stackid;

	memset(ips, 0, PROBE_CPU_STACK_DEPTH * sizeof *ips);
	return stackid >= 0 && !bpf_map__lookup_elem(p->skel->maps.cpu_stacks, &key, sizeof key,
						     ips, PROBE_CPU_STACK_DEPTH * sizeof *ips, 0);
}

static void add_addrs(const uint64_t *ips, int depth, struct addr_set *a)
{
	for (int i = 0; i < depth && ips[i]; i++) {
		if (!try_grow(&a->v, &a->cap, a->n + 1, 256))
			return;
		a->v[a->n++] = ips[i];
	}
}

/* The keys of the callers, wait_sites and cpu_samples hashes all begin
 * with the stack id. */
union stack_key {
	int stackid;
	struct probe_caller_key caller;
	struct probe_wait_key wait;
	struct probe_cpu_key cpu;
	struct probe_waker_key waker;
};
_Static_assert(offsetof(struct probe_caller_key, stackid) == 0, "caller key");
_Static_assert(offsetof(struct probe_wait_key, stackid) == 0, "wait key");
_Static_assert(offsetof(struct probe_cpu_key, stackid) == 0, "cpu key");
_Static_assert(offsetof(struct probe_waker_key, stackid) == 0, "waker key");

/* Add to A the frames of every stack a key of hash M names; CPU: the
 * stacks are the on-CPU sampler's. */
static void add_stacks(struct probes *p, const struct bpf_map *m, bool cpu, struct addr_set *a)
{
	union stack_key k;
	uint64_t ips[PROBE_CPU_STACK_DEPTH];
	size_t ksz = bpf_map__key_size(m);
	struct map_walk w = { .m = m };

	while (ksz <= sizeof k && map_walk_next(&w, &k, ksz, NULL, 0)) {
		if (cpu ? cpu_stack_of(p, k.stackid, ips) : stack_of(p, k.stackid, ips))
			add_addrs(ips, cpu ? PROBE_CPU_STACK_DEPTH : PROBE_STACK_DEPTH, a);
	}
}

/* Names for the frames of the contended, wait-site and on-CPU stacks, once:
 * asked of the kernel for just these addresses (ksym_bpf.h), and read from
 * /proc/kallsyms, which is slow to read whole, only where that cannot run. */
static void name_stack_frames(struct probes *p)
{
	struct addr_set a = { 0 };

	if (p->ksyms_tried)
		return;
	p->ksyms_tried = true;
	add_stacks(p, p->skel->maps.callers, false, &a);
	add_stacks(p, p->skel->maps.wait_sites, false, &a);
	add_stacks(p, p->skel->maps.wakers, false, &a);
	add_stacks(p, p->skel->maps.cpu_samples, true, &a);
	size_t u = 0;
	if (a.n) {
		qsort(a.v, a.n, sizeof *a.v, cmp_u64);
		for (size_t i = 0; i < a.n; i++)
			if (u == 0 || a.v[i] != a.v[u - 1])
				a.v[u++] = a.v[i];
	}
	if (u == 0) {
		free(a.v);
		return; /* no stack kept: nothing to name */
	}
	struct ksyms *ks = env_flag(ENV_KALLSYMS, 0) ? NULL : ksym_bpf_resolve(a.v, u);
	free(a.v);
	p->ksyms = ks ? ks : ksyms_load(NULL);
}

/* The first frame of STACKID outside locking code, or 0. */
static uint64_t caller_of(struct probes *p, int stackid)
{
	uint64_t ips[PROBE_STACK_DEPTH];

	if (!stack_of(p, stackid, ips))
		return 0;
	for (int i = 0; i < PROBE_STACK_DEPTH && ips[i]; i++)
		if (!ksyms_is_lock_code(p->ksyms, ips[i]))
			return ips[i];
	return ips[0];
}

int probes_callers(struct probes *p, struct probe_caller *out, int max)
{
	struct probe_caller_key k;
	struct probe_caller_val v;
	const struct bpf_map *m = p->skel->maps.callers;
	struct map_walk w = { .m = m };
	int n = 0;
	size_t cap = 64;
	struct probe_caller *all = malloc(cap * sizeof *all);

	if (!all || max <= 0) {
		free(all);
		return 0;
	}
	if (bpf_map__get_next_key(m, NULL, &k, sizeof k) == 0)
		name_stack_frames(p);
	while (map_walk_next(&w, &k, sizeof k, &v, sizeof v)) {
		uint64_t ip = caller_of(p, k.stackid);
		int i;
		for (i = 0; i < n; i++)
			if (all[i].ip == ip && all[i].flags == k.flags)
				break;
		if (i == n) {
			if (!try_grow(&all, &cap, (size_t)n + 1, 64))
				break;
			all[n++] = (struct probe_caller){ .ip = ip, .flags = k.flags };
		}
		all[i].count += v.count;
		all[i].total_ns += v.total_ns;
	}
	qsort(all, n, sizeof *all, cmp_caller);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof *out);
	free(all);
	return n;
}

static uint64_t scaled(uint64_t v, double f)
{
	return (uint64_t)((double)v * f + 0.5);
}

/* Whether sampled site W can stand for the unsampled waits U: the same
 * state and context, or (EXACT false) the same but for being a helper's, a
 * mark set when the wait ends, after its stack was or was not taken. */
static bool stands_for(const struct probe_wait_site *w, const struct probe_wait_site *u, bool exact)
{
	uint32_t mask = exact ? ~0u : ~(uint32_t)PROBE_WAIT_HELPER;
	return w->stackid >= 0 && w->state == u->state && (w->ctx & mask) == (u->ctx & mask);
}

/* S waits inside busy syscalls have sampled stacks (PROBE_S_SAMPLE): the
 * unsampled ones' count and time go to the sampled sites of the same
 * context, in proportion. Where those are only of the other kind (a
 * helper's or not), the unsampled waits take their stacks as sites of
 * their own context. Without a sampled site they stay as they are (stack
 * id PROBE_STACK_UNSAMPLED). Returns the new count. */
static int spread_unsampled(struct probe_wait_site **allp, size_t *cap, int n)
{
	for (int i = 0; i < n; i++) {
		struct probe_wait_site *all = *allp, u = all[i];
		uint64_t c = 0, t = 0, b = 0;
		bool exact = true;
		if (u.stackid != PROBE_STACK_UNSAMPLED || u.state != PROBE_OFFCPU_SLEEPING)
			continue;
		for (int pass = 0; pass < 2 && !c; pass++) {
			exact = pass == 0;
			for (int j = 0; j < n; j++)
				if (stands_for(&all[j], &u, exact)) {
					c += all[j].count;
					t += all[j].total_ns;
					b += all[j].blocked_ns;
				}
		}
		if (!c || !t)
			continue;
		if (!exact) {
			/* new sites of U's context, one per stack that stands
			 * for it, sharing U in proportion to their time */
			int m = n;
			for (int j = 0; j < m; j++) {
				if (!stands_for(&(*allp)[j], &u, false))
					continue;
				if (!try_grow(allp, cap, (size_t)n + 1, 64))
					return n;
				struct probe_wait_site *w = &(*allp)[n++], *d = &(*allp)[j];
				double f = (double)d->total_ns / (double)t;
				*w = *d;
				w->ctx = u.ctx;
				w->count = scaled(u.count, f);
				w->total_ns = scaled(u.total_ns, f);
				w->blocked_ns = scaled(u.blocked_ns, f);
			}
			all = *allp;
			all[i--] = all[--n]; /* spread: drop it */
			continue;
		}
		double fc = (double)(c + u.count) / (double)c,
		       ft = (double)(t + u.total_ns) / (double)t;
		double fb = b ? (double)(b + u.blocked_ns) / (double)b : 1;
		for (int j = 0; j < n; j++)
			if (stands_for(&all[j], &u, true)) {
				all[j].count = scaled(all[j].count, fc);
				all[j].total_ns = scaled(all[j].total_ns, ft);
				all[j].blocked_ns = scaled(all[j].blocked_ns, fb);
			}
		all[i--] = all[--n]; /* spread: drop it */
	}
	return n;
}

int probes_wait_sites(struct probes *p, struct probe_wait_site **out)
{
	const struct bpf_map *m = p->skel->maps.wait_sites;
	struct probe_wait_key k;
	struct probe_wait_val v;
	struct probe_wait_site *all = NULL;
	int n = 0;
	size_t cap = 0;
	struct map_walk mw = { .m = m };

	*out = NULL;
	if (bpf_map__get_next_key(m, NULL, &k, sizeof k))
		return 0;
	name_stack_frames(p);
	while (map_walk_next(&mw, &k, sizeof k, &v, sizeof v)) {
		if (!try_grow(&all, &cap, (size_t)n + 1, 64))
			break;
		struct probe_wait_site *w = &all[n++];
		*w = (struct probe_wait_site){ .stackid = k.stackid,
					       .state = k.state,
					       .ctx = k.ctx,
					       .count = v.count,
					       .total_ns = v.total_ns,
					       .blocked_ns = v.blocked_ns };
		stack_of(p, k.stackid, w->ips);
	}
	n = spread_unsampled(&all, &cap, n);
	*out = all;
	return n;
}

int probes_wakers(struct probes *p, struct probe_waker **out)
{
	const struct bpf_map *m = p->skel->maps.wakers;
	struct probe_waker_key k;
	struct probe_waker_val v;
	struct probe_waker *all = NULL;
	int n = 0;
	size_t cap = 0;
	struct map_walk mw = { .m = m };

	*out = NULL;
	if (bpf_map__get_next_key(m, NULL, &k, sizeof k))
		return 0;
	name_stack_frames(p);
	while (map_walk_next(&mw, &k, sizeof k, &v, sizeof v)) {
		if (!try_grow(&all, &cap, (size_t)n + 1, 64))
			break;
		struct probe_waker *w = &all[n++];
		*w = (struct probe_waker){ .key = k, .count = v.count, .ns = v.ns };
		stack_of(p, k.stackid, w->ips);
	}
	*out = all;
	return n;
}

static int cmp_cpu_sample(const void *a, const void *b)
{
	const struct probe_cpu_sample *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->stackid < y->stackid ? -1 : x->stackid > y->stackid;
}

int probes_cpu_samples(struct probes *p, struct probe_cpu_sample **out)
{
	const struct bpf_map *m = p->skel->maps.cpu_samples;
	struct probe_cpu_key k;
	struct probe_cpu_sample *all = NULL;
	uint64_t v;
	int n = 0;
	size_t cap = 0;
	struct map_walk mw = { .m = m };

	*out = NULL;
	if (!p->attached[PROBE_G_ONCPU] || bpf_map__get_next_key(m, NULL, &k, sizeof k))
		return 0;
	name_stack_frames(p);
	while (map_walk_next(&mw, &k, sizeof k, &v, sizeof v)) {
		if (!try_grow(&all, &cap, (size_t)n + 1, 64))
			break;
		struct probe_cpu_sample *c = &all[n++];
		*c = (struct probe_cpu_sample){ .stackid = k.stackid,
						.flags = k.flags,
						.nr = k.nr,
						.count = v };
		cpu_stack_of(p, k.stackid, c->ips);
	}
	if (n)
		qsort(all, n, sizeof *all, cmp_cpu_sample);
	*out = all;
	return n;
}

/* For trace: the symbol table the callers and wait sites were named with. */
const struct ksyms *probes_ksyms(struct probes *p)
{
	return p->ksyms;
}

/* ---- live wait causes (probes_wait_causes) ---- */

/* cause_of's slots: the stacks map's ids, then the spill map's */
#define PROBE_STACK_IDS (PROBE_STACKS + PROBE_SPILL_STACKS)
#define CAUSE_THROTTLED 0x80 /* in cause_of: the stack went through throttling */

/* STACKID's slot in cause_of, or -1 for an id that names no kept stack. */
static int cause_slot(int stackid)
{
	if (stackid >= 0 && stackid < PROBE_STACKS)
		return stackid;
	if (stackid >= PROBE_STACK_SPILL && stackid < PROBE_STACK_SPILL + PROBE_SPILL_STACKS)
		return PROBE_STACKS + stackid - PROBE_STACK_SPILL;
	return -1;
}

/* Classify stack STACKID (a kept one: cause_slot) once: its cause + 1, with
 * CAUSE_THROTTLED. */
static unsigned char stack_cause(struct probes *p, int stackid)
{
	uint64_t ips[PROBE_STACK_DEPTH];
	static char names[PROBE_STACK_DEPTH][128];
	const char *frames[PROBE_STACK_DEPTH];
	int nf = 0, site;
	const char *lock;
	bool space;

	int slot = cause_slot(stackid);
	if (p->cause_of[slot])
		return p->cause_of[slot];
	if (!p->live_ksyms_tried) {
		/* the whole table, once: stacks keep appearing while the
		 * delete runs, and the BPF resolver names a fixed set */
		p->live_ksyms_tried = true;
		p->live_ksyms = ksyms_load(NULL);
	}
	if (!p->live_ksyms || !stack_of(p, stackid, ips))
		return WAIT_OTHER + 1;
	for (; nf < PROBE_STACK_DEPTH && ips[nf]; nf++) {
		ksyms_name(p->live_ksyms, ips[nf], names[nf], sizeof names[nf]);
		frames[nf] = names[nf];
	}
	unsigned char c = (unsigned char)(wait_classify(frames, nf, &site, &lock, &space) + 1);
	if (wait_stack_throttled(frames, nf))
		c |= CAUSE_THROTTLED;
	p->cause_of[slot] = c;
	return c;
}

bool probes_wait_causes(struct probes *p, bool name_new, struct probe_wait_causes *out)
{
	const struct bpf_map *m = p->skel->maps.wait_sites;
	struct probe_wait_key k;
	struct probe_wait_val v;
	struct map_walk w = { .m = m };

	memset(out, 0, sizeof *out);
	if (!p->attached[PROBE_G_OFFCPU] || !p->skel->rodata->want_callers)
		return false;
	if (!p->cause_of && !(p->cause_of = calloc(PROBE_STACK_IDS, 1)))
		return false;
	while (map_walk_next(&w, &k, sizeof k, &v, sizeof v)) {
		if (k.state != PROBE_OFFCPU_BLOCKED ||
		    (k.ctx & (PROBE_WAIT_IN_SYSCALL | PROBE_WAIT_IN_LOCK)) != PROBE_WAIT_IN_SYSCALL)
			continue;
		int slot = cause_slot(k.stackid);
		bool known = slot >= 0 && (name_new || p->cause_of[slot]);
		unsigned char c = known ? stack_cause(p, k.stackid) : WAIT_OTHER + 1;
		out->ns[(c & ~CAUSE_THROTTLED) - 1] += v.blocked_ns;
		out->count[(c & ~CAUSE_THROTTLED) - 1] += v.count;
		if (c & CAUSE_THROTTLED)
			out->throttled_ns += v.blocked_ns;
	}
	return !p->live_ksyms_tried || p->live_ksyms; /* false: no symbols to name stacks */
}
