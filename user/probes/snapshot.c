// SPDX-License-Identifier: GPL-3.0-or-later
/* Reading the probes' counters into snapshots, and the arithmetic on them
 * (see probes.h). */
#include "probes.skel.h"
#include "probes/mapwalk.h"
#include "probes/probes.h"
#include "probes/probes_int.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Read all NENT per-CPU values of an array map into p->buf (cpu-major per
 * key: value[key][cpu]). One batch syscall; per-key lookups if the kernel
 * lacks batch ops for this map. */
static int read_percpu(struct probes *p, const struct bpf_map *map, uint32_t nent, size_t vsz)
{
	int fd = bpf_map__fd(map);
	size_t stride = (vsz + 7) / 8 * 8 * p->ncpus;
	uint32_t done = 0, out = 0;
	void *in = NULL;
	int e = 0;

	while (done < nent) {
		uint32_t count = nent - done;
		e = bpf_map_lookup_batch(fd, in, &out, p->keys + done,
					 (char *)p->buf + done * stride, &count, NULL);
		if (e && errno != ENOENT)
			break;
		done += count;
		in = &out;
		if (e)
			break;
	}
	if (e && errno != ENOENT) {
		/* no batch support: one lookup per key */
		for (uint32_t k = 0; k < nent; k++) {
			p->keys[k] = k;
			if (bpf_map_lookup_elem(fd, &k, (char *)p->buf + k * stride))
				return -errno;
		}
		return 0;
	}
	return done == nent ? 0 : -EIO;
}

/* Add the NWORDS u64 of every CPU's copy of key KEY into DST. Every struct
 * in probes_shared.h is an array of 64-bit counters. */
static void sum_cpus(struct probes *p, void *dst, uint32_t key, size_t vsz, size_t words)
{
	size_t rs = (vsz + 7) / 8 * 8;
	unsigned long long *d = dst;

	memset(dst, 0, vsz);
	for (int c = 0; c < p->ncpus; c++) {
		const unsigned long long *s =
			(const void *)((char *)p->buf + ((size_t)key * p->ncpus + c) * rs);
		for (size_t w = 0; w < words; w++)
			d[w] += s[w];
	}
}

/* The state letter of thread TID of TGID from /proc (0 if gone). */
static char thread_state(pid_t tgid, uint32_t tid)
{
	char path[80], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%u/stat", (int)tgid, tid);
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* At a read at NOW, the live threads of the traced processes that are off
 * CPU and have had no switch in or out since tracing began (a pool's idle
 * workers, a process waiting when -p attached): *UNSEEN of them, off CPU
 * since the start in a state the probes did not see begin; and *OPEN, the
 * time of the waits still open (off CPU since their last switch out). From
 * /proc and the off-CPU map: every switch out and every new thread makes
 * an entry. */
static void open_waits(struct probes *p, uint64_t now, uint64_t *unseen, uint64_t *open)
{
	const struct bpf_map *m = p->skel->maps.offcpu_start;
	size_t vsz = bpf_map__value_size(m);
	unsigned char *val = vsz >= sizeof(struct probe_offcpu_head) ? malloc(vsz) : NULL;
	pid_t tgids[256];
	int n = probes_traced_tgids(p, tgids, 256);

	*unseen = *open = 0;
	for (int i = 0; val && i < n; i++) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/task", (int)tgids[i]);
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			uint32_t tid = (uint32_t)strtoul(e->d_name, NULL, 10);
			if (!tid)
				continue;
			if (bpf_map__lookup_elem(m, &tid, sizeof tid, val, vsz, 0)) {
				char st = thread_state(tgids[i], tid);
				/* a thread running since the start has its
				 * time on CPU counted from its first event */
				*unseen += st && st != 'R';
				continue;
			}
			const struct probe_offcpu_head *h = (const void *)val;
			if (h->ts && h->ts < now)
				*open += now - h->ts;
		}
		if (d)
			closedir(d);
	}
	free(val);
}

void probes_add_open_waits(struct probes *p, struct probe_snapshot *s)
{
	uint64_t unseen, open, now = probes_mono_ns(), t0 = p->skel->bss->life_t0;

	open_waits(p, now, &unseen, &open);
	s->misc.pretrace_ns += unseen * (now > t0 ? now - t0 : 0);
	s->misc.pretrace_count += unseen;
	s->misc.open_ns += open;
}

int probes_read(struct probes *p, struct probe_snapshot *out)
{
	struct timespec ts;
	int e;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	out->time_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;

	if ((e = read_percpu(p, p->skel->maps.sc_stats, PROBE_NR_SYSCALLS, sizeof out->sc[0])))
		return e;
	for (uint32_t k = 0; k < PROBE_NR_SYSCALLS; k++)
		sum_cpus(p, &out->sc[k], k, sizeof out->sc[k], sizeof out->sc[k] / 8);
	if ((e = read_percpu(p, p->skel->maps.lock_stats, PROBE_LOCK_TYPES, sizeof out->lock[0])))
		return e;
	for (uint32_t k = 0; k < PROBE_LOCK_TYPES; k++)
		sum_cpus(p, &out->lock[k], k, sizeof out->lock[k], sizeof out->lock[k] / 8);
	if ((e = read_percpu(p, p->skel->maps.misc, 1, sizeof out->misc)))
		return e;
	sum_cpus(p, &out->misc, 0, sizeof out->misc, sizeof out->misc / 8);

	/* the devices: a hash of at most PROBE_MAX_DEVS */
	struct map_walk w = { .m = p->skel->maps.devs };
	uint32_t dk;
	out->ndevs = 0;
	while (out->ndevs < PROBE_MAX_DEVS &&
	       map_walk_next(&w, &dk, sizeof dk, &out->devs[out->ndevs].st,
			     sizeof out->devs[out->ndevs].st))
		out->devs[out->ndevs++].dev = dk;

	long long th = __atomic_load_n(&p->skel->bss->live_threads, __ATOMIC_RELAXED);
	/* the lives so far: ended ones, and the live threads' up to now */
	uint64_t t0 = p->skel->bss->life_t0, nowns = probes_mono_ns();
	uint64_t births = __atomic_load_n(&p->skel->bss->life_births, __ATOMIC_SEQ_CST);
	uint64_t deaths = __atomic_load_n(&p->skel->bss->life_deaths, __ATOMIC_SEQ_CST);
	double life =
		(double)deaths - (double)births + (double)(th > 0 ? th : 0) * (double)(nowns - t0);
	out->life_ns = life > 0 ? (uint64_t)life : 0;

	long long pk = __atomic_load_n(&p->skel->bss->peak_threads, __ATOMIC_RELAXED);
	out->threads_peak = pk > 0 ? (uint32_t)pk : 0;
	long long tg = (long long)p->base_tgids + out->misc.tgids_delta;
	out->nthreads = th > 0 ? (uint32_t)th : 0;
	out->ntgids = tg > 0 ? (uint32_t)tg : 0;
	out->threads_seen = p->base_threads + (uint32_t)out->misc.forks;
	return 0;
}

struct probe_snapshot *probes_snapshot_new(void)
{
	return calloc(1, sizeof(struct probe_snapshot));
}

void probes_snapshot_free(struct probe_snapshot *s)
{
	free(s);
}

static unsigned long long sub0(unsigned long long a, unsigned long long b)
{
	return a > b ? a - b : 0;
}

void probes_snapshot_sub(struct probe_snapshot *out, const struct probe_snapshot *now,
			 const struct probe_snapshot *before)
{
	/* every counter struct is an array of u64 (see probes_shared.h);
	 * the two signed deltas are not meaningful per interval and are
	 * only carried via nthreads/ntgids */
	out->time_ns = sub0(now->time_ns, before->time_ns);
	out->life_ns = sub0(now->life_ns, before->life_ns);
	out->nthreads = now->nthreads;
	out->ntgids = now->ntgids;
	out->threads_seen = now->threads_seen;
	out->threads_peak = now->threads_peak;
	for (int k = 0; k < PROBE_NR_SYSCALLS; k++) {
		out->sc[k].errors = sub0(now->sc[k].errors, before->sc[k].errors);
		hist_sub(&out->sc[k].lat, &now->sc[k].lat, &before->sc[k].lat);
	}
	for (int k = 0; k < PROBE_LOCK_TYPES; k++)
		hist_sub(&out->lock[k].wait, &now->lock[k].wait, &before->lock[k].wait);
	const unsigned long long *a = (const void *)&now->misc, *b = (const void *)&before->misc;
	unsigned long long *d = (void *)&out->misc;
	for (size_t w = 0; w < sizeof out->misc / 8; w++)
		d[w] = sub0(a[w], b[w]);
	/* devices by dev_t; OUT may alias NOW, so through a copy */
	struct probe_dev devs[PROBE_MAX_DEVS];
	uint32_t nd = now->ndevs < PROBE_MAX_DEVS ? now->ndevs : PROBE_MAX_DEVS;
	for (uint32_t i = 0; i < nd; i++) {
		const struct probe_dev_stat *b0 = probes_dev_find(before, now->devs[i].dev);
		const unsigned long long *x = (const void *)&now->devs[i].st;
		unsigned long long *y = (void *)&devs[i].st;
		devs[i].dev = now->devs[i].dev;
		for (size_t w = 0; w < sizeof devs[i].st / 8; w++)
			y[w] = b0 ? sub0(x[w], ((const unsigned long long *)(const void *)b0)[w]) :
				    x[w];
	}
	memcpy(out->devs, devs, nd * sizeof *devs);
	out->ndevs = nd;
	out->misc.threads_delta = now->misc.threads_delta - before->misc.threads_delta;
	out->misc.tgids_delta = now->misc.tgids_delta - before->misc.tgids_delta;
}

const struct probe_dev_stat *probes_dev_find(const struct probe_snapshot *s, uint32_t dev)
{
	for (uint32_t i = 0; i < s->ndevs && i < PROBE_MAX_DEVS; i++)
		if (s->devs[i].dev == dev)
			return &s->devs[i].st;
	return NULL;
}

uint64_t probes_lock_wait_ns(const struct probe_snapshot *s, unsigned flags)
{
	uint64_t t = 0;

	for (unsigned k = 0; k < PROBE_LOCK_TYPES; k++)
		if ((k & flags) == flags)
			t += s->lock[k].wait.total;
	return t;
}

const char *probes_lock_type_name(unsigned f)
{
	f &= PROBE_LOCK_TYPES - 1;
	switch (f) {
	case 0: return "semaphore";
	case PROBE_LCB_F_SPIN: return "spinlock";
	case PROBE_LCB_F_SPIN | PROBE_LCB_F_READ: return "rwlock:R";
	case PROBE_LCB_F_SPIN | PROBE_LCB_F_WRITE: return "rwlock:W";
	case PROBE_LCB_F_READ: return "rwsem:R";
	case PROBE_LCB_F_WRITE: return "rwsem:W";
	case PROBE_LCB_F_RT: return "rt-mutex";
	case PROBE_LCB_F_RT | PROBE_LCB_F_READ: return "rwlock-rt:R";
	case PROBE_LCB_F_RT | PROBE_LCB_F_WRITE: return "rwlock-rt:W";
	case PROBE_LCB_F_PERCPU | PROBE_LCB_F_READ: return "pcpu-sem:R";
	case PROBE_LCB_F_PERCPU | PROBE_LCB_F_WRITE: return "pcpu-sem:W";
	case PROBE_LCB_F_MUTEX: return "mutex";
	case PROBE_LCB_F_MUTEX | PROBE_LCB_F_SPIN: return "mutex-spin";
	default: return "other";
	}
}

uint64_t probes_thread_ns(const struct probe_snapshot *s)
{
	uint64_t t = s->misc.oncpu_ns + s->misc.state_rq_ns + s->misc.pretrace_ns + s->misc.open_ns;

	for (int k = 0; k < PROBE_OFFCPU_KINDS; k++)
		t += s->misc.offcpu[k].total;
	for (int k = 0; k < PROBE_XSTATE_COUNT; k++)
		t += s->misc.state_ns[k];
	return t;
}
