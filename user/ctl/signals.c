// SPDX-License-Identifier: GPL-3.0-or-later
/* Signals for the controller (see signals.h).
 *
 * User space: entries removed and time inside unlinkat come from the engine's
 * per-worker counters; busy time (running tasks, not parked) too. Each
 * worker's /proc/self/task/TID/schedstat gives its on-CPU and run-queue time,
 * so "busy but neither running nor runnable" is time spent blocked off-CPU:
 * I/O, FUSE round trips, or sleeping on a lock (user space cannot tell which).
 * One small read per started worker per tick (~100 ms) is cheap.
 *
 * BPF (user/probes/probes.h, own process): unlinkat latency histograms (p50/p99),
 * and lock contention wait time, which splits that off-CPU time into "waiting
 * on locks" and "blocked" (off-CPU time in D state stands in when schedstats
 * are missing). */
#include "ctl/signals.h"
#include "lib/clock.h"
#include "lib/json.h"
#include "lib/mountinfo.h"
#include "lib/procfile.h"
#include "lib/xalloc.h"
#include "probes/hist.h"
#include "probes/probes.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

struct ctl_source {
	struct engine *e;
	int nworkers;
	double t0, last;
	struct engine_totals tot;
	uint64_t waited_ns;	    /* engine_waited_ns at the last sample */
	uint64_t *run_ns, *wait_ns; /* per worker, from schedstat */
	uint64_t *calls;	    /* per worker syscalls at the last sample */
	bool *moved;		    /* worker issued syscalls in the last interval */
	long nvcsw;
	bool schedstat_ok;
	struct probes *probes;
	struct probe_snapshot *snap_prev, *snap_now, *snap_diff;
	bool bpf_tried;
	struct probe_wait_causes causes; /* at the last sample */
	bool causes_ok;			 /* stacks classified (kallsyms readable) */
	uint32_t dev;			 /* kernel dev_t of the delete's device, 0 unknown */
	char missing[400];
};

/* First two fields of schedstat: ns on CPU, ns waiting on a run queue. */
static bool read_schedstat(pid_t tid, uint64_t *run, uint64_t *wait)
{
	char path[64], buf[128];
	snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
	if (procfile_read(path, buf, sizeof buf) < 0)
		return false;
	unsigned long long r, w;
	if (sscanf(buf, "%llu %llu", &r, &w) != 2)
		return false;
	*run = r;
	*wait = w;
	return true;
}

/* The block device of the mount whose st_dev is MAJOR:MINOR (anonymous
 * st_dev: btrfs, overlayfs), from its source in /proc/self/mountinfo; 0 if
 * it has none. */
static uint32_t mount_bdev(unsigned major, unsigned minor)
{
	struct mount_entry e;
	struct stat st;
	uint32_t dev = 0;
	if (!mountinfo_find(major, minor, &e))
		return 0;
	if (e.source[0] == '/' && stat(e.source, &st) == 0 && S_ISBLK(st.st_mode))
		dev = PROBE_MKDEV(major(st.st_rdev), minor(st.st_rdev));
	mountinfo_entry_free(&e);
	return dev;
}

/* Workers that issued a syscall since the last call: the busy ones (not
 * those in the large-file lane). The
 * engine adds busy_ns only when a task ends, which says nothing while one
 * worker spends seconds in a flat directory; the per-worker syscall counters
 * move with every entry. */
static int busy_workers(struct ctl_source *s)
{
	int n = 0;
	for (int i = 0; i < s->nworkers; i++) {
		const struct worker_stats *ws = engine_worker_stats(s->e, i);
		uint64_t c = atomic_load_explicit(&ws->syscalls, memory_order_relaxed);
		/* Inside one unlinkat for the whole tick (a read behind an
		 * I/O cap or on a slow device can take most of a tick) is
		 * busy, not idle. A worker in the large-file lane (seconds in one
		 * unlinkat) is neither busy nor blocked for the policy: its
		 * wait is the file's size, not a reason to add workers. */
		bool inside = atomic_load_explicit(&ws->in_unlink, memory_order_relaxed) != 0;
		s->moved[i] = (c != s->calls[i] || inside) && !engine_worker_in_lane(s->e, i);
		n += s->moved[i];
		s->calls[i] = c;
	}
	return n;
}

/* Where thread TID waits in the kernel (its wchan) into BUF; false if it
 * runs or cannot be read. */
static bool read_wchan(pid_t tid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/wchan", (int)tid);
	ssize_t n = procfile_read(path, buf, len);
	if (n <= 0 || (size_t)n >= len)
		return false;
	buf[n] = '\0';
	return strcmp(buf, "0") != 0;
}

/* A wait that is a device's or a server's service (a read, a write, a FUSE
 * daemon's answer): more workers overlap such waits. */
static bool service_wait(const char *w)
{
	static const char *const served[] = { "io_schedule", "folio_wait", "wait_on_page",
					      "bit_wait",    "blk_",	   "rq_qos",
					      "wbt_",	     "fuse_",	   "request_wait_answer",
					      "nfs",	     "rpc_" };
	for (size_t i = 0; i < sizeof served / sizeof *served; i++)
		if (strstr(w, served[i]))
			return true;
	return false;
}

/* The one wait the blocked busy workers are all in, into SIG's stall_wait,
 * when the interval removed nothing and at least half of them are blocked
 * there: a wait that is not a device's service (a frozen filesystem, a lock
 * another process holds), which more workers cannot shorten. */
static void find_stall(struct ctl_source *s, struct ctl_signals *sig)
{
	sig->stall_wait[0] = '\0';
	if (sig->ops > 0)
		return;
	char first[sizeof sig->stall_wait] = "", w[sizeof sig->stall_wait];
	int blocked = 0, nbusy = 0;
	for (int i = 0; i < s->nworkers; i++) {
		/* the watchdog's "stuck in the lane" counts here: stuck in the
		 * same wait as the rest, it is no huge file */
		if (!s->moved[i] && !engine_worker_in_lane(s->e, i))
			continue;
		nbusy++;
		pid_t tid = engine_worker_tid(s->e, i);
		if (tid <= 0 || !read_wchan(tid, w, sizeof w))
			continue; /* running, or gone */
		if (!first[0])
			snprintf(first, sizeof first, "%s", w);
		else if (strcmp(first, w))
			return;
		blocked++;
	}
	if (blocked > 0 && 2 * blocked >= nbusy && !service_wait(first))
		snprintf(sig->stall_wait, sizeof sig->stall_wait, "%s", first);
}

static long read_nvcsw(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_nvcsw : 0;
}

/* Sum of schedstat deltas over the workers; updates the per-worker bases.
 * ONLY_MOVED: skip workers that issued no syscall in the interval (parked or
 * idle: their counters barely move, and 64 reads per tick would cost ~1% of
 * a CPU); their base stays valid since the counters only grow. */
static void schedstat_delta(struct ctl_source *s, bool only_moved, uint64_t *drun, uint64_t *dwait,
			    int *nmeasured)
{
	*drun = *dwait = 0;
	*nmeasured = 0;
	for (int i = 0; i < s->nworkers; i++) {
		if (only_moved && !s->moved[i] && s->run_ns[i])
			continue;
		pid_t tid = engine_worker_tid(s->e, i);
		uint64_t r, w;
		if (!tid || !read_schedstat(tid, &r, &w))
			continue;
		/* A worker seen for the first time (started during the
		 * interval) has no base, so its interval is not measured:
		 * counted, all of it would read as busy time spent off-CPU,
		 * and the policy would add workers on it. */
		if (r >= s->run_ns[i] && s->run_ns[i]) {
			*drun += r - s->run_ns[i];
			if (w >= s->wait_ns[i])
				*dwait += w - s->wait_ns[i];
			*nmeasured += s->moved[i];
		}
		s->run_ns[i] = r;
		s->wait_ns[i] = w;
		s->schedstat_ok = true;
	}
}

struct ctl_source *ctl_source_new(struct engine *e)
{
	struct ctl_source *s = xcalloc(1, sizeof(*s));
	s->e = e;
	s->nworkers = engine_max_threads(e);
	s->run_ns = xcalloc(s->nworkers, sizeof(*s->run_ns));
	s->wait_ns = xcalloc(s->nworkers, sizeof(*s->wait_ns));
	s->calls = xcalloc(s->nworkers, sizeof(*s->calls));
	s->moved = xcalloc(s->nworkers, sizeof(*s->moved));
	s->t0 = now_s();
	snprintf(s->missing, sizeof s->missing,
		 "no eBPF probes: lock contention and latency percentiles not measured");
	ctl_source_reset(s);
	return s;
}

bool ctl_source_start_bpf(struct ctl_source *s)
{
	if (s->probes)
		return true;
	if (s->bpf_tried)
		return false;
	s->bpf_tried = true;
	char err[256] = "";
	/* Only the groups the decisions read, because the filesystem groups
	 * cost the most. The stacks (wait causes) and the block group (the
	 * device's service time) stay: they tell blocked time that more
	 * workers overlap from blocked time on a cap (ctl_capped_share). */
	s->probes = probes_start(NULL, 0, PROBE_CORE_ONLY | PROBE_WITH_BLOCK, err, sizeof err);
	if (!s->probes) {
		snprintf(s->missing, sizeof s->missing,
			 "eBPF probes unavailable (%s): lock contention and latency percentiles not measured",
			 err);
		return false;
	}
	bool locks = probes_group_attached(s->probes, PROBE_G_LOCKS);
	bool off = probes_group_attached(s->probes, PROBE_G_OFFCPU);
	if (locks && off)
		s->missing[0] = '\0';
	else
		snprintf(s->missing, sizeof s->missing, "eBPF: %s%s%s not measured",
			 locks ? "" : "lock contention", !locks && !off ? " and " : "",
			 off ? "" : "blocked time");
	s->snap_prev = probes_snapshot_new();
	s->snap_now = probes_snapshot_new();
	s->snap_diff = probes_snapshot_new();
	probes_read(s->probes, s->snap_prev);
	s->causes_ok = probes_wait_causes(s->probes, false, &s->causes);
	return true;
}

bool ctl_source_has_bpf(const struct ctl_source *s)
{
	return s->probes != NULL;
}

void ctl_source_reset(struct ctl_source *s)
{
	s->last = now_s();
	engine_totals(s->e, &s->tot);
	s->waited_ns = engine_waited_ns(s->e);
	uint64_t r, w;
	int nm;
	schedstat_delta(s, false, &r, &w, &nm);
	busy_workers(s);
	s->nvcsw = read_nvcsw();
	if (s->probes)
		probes_read(s->probes, s->snap_prev);
}

static double share(double part, double whole)
{
	if (whole <= 0)
		return -1;
	double v = part / whole;
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* Plan ID read or unlinked (timed) since WAS. */
static bool plan_worked(const struct plan_totals *now, const struct plan_totals *was, enum plan_id id)
{
	return now[id].reads + now[id].unlinks > was[id].reads + was[id].unlinks;
}

/* CALLS timed unlinks that took NS: per second of that time, and the time. */
static void unlink_rate(uint64_t ns, uint64_t calls, double *rate, double *secs)
{
	*secs = ns / 1e9;
	*rate = ns ? calls / *secs : 0;
}

/* Causes whose waits more workers cannot shorten: commits and log or journal
 * space, inode GC, writeback, discards, reclaim. */
static bool capped_cause(int c)
{
	return c == WAIT_JOURNAL || c == WAIT_XFS_LOG || c == WAIT_XFS_INODEGC ||
	       c == WAIT_WRITEBACK || c == WAIT_DISCARD || c == WAIT_RECLAIM;
}

double ctl_capped_share(const uint64_t *ns, const uint64_t *count, uint64_t throttled,
			double dev_us, uint64_t dev_reqs, uint64_t min_ns)
{
	uint64_t total = 0, capped = throttled;
	for (int c = 0; c < WAIT_COUNT; c++) {
		total += ns[c];
		if (capped_cause(c))
			capped += ns[c];
	}
	if (!total || total < min_ns)
		return -1;
	/* Held above the device: a read waited 8 times what the device took
	 * per request (its median; 3 requests at least) and over a
	 * millisecond. A cold read on a fast device waits about the device's
	 * service time, while one queued behind blkio.throttle waits hundreds
	 * of times longer. */
	if (dev_reqs >= 3 && dev_us > 0 && count[WAIT_META_READ]) {
		double wait_us = ns[WAIT_META_READ] / 1e3 / count[WAIT_META_READ];
		if (wait_us >= 8 * dev_us && wait_us >= 1000)
			capped += ns[WAIT_META_READ];
	}
	return capped >= total ? 1 : (double)capped / total;
}

/* The delete's device in the probes' snapshot DIFF: requests and median
 * service time (us; large journal writes would weigh on a mean). */
static void dev_service(const struct ctl_source *s, const struct probe_snapshot *d, double *us,
			uint64_t *reqs)
{
	*us = 0;
	*reqs = 0;
	for (uint32_t i = 0; s->dev && i < d->ndevs && i < PROBE_MAX_DEVS; i++)
		if (d->devs[i].dev == s->dev && d->devs[i].st.bio_lat.count) {
			*reqs = d->devs[i].st.bio_lat.count;
			*us = hist_quantile(&d->devs[i].st.bio_lat, 0.5) / 1e3;
		}
}

/* The interval's wait causes: what share of the blocked time is on a cap,
 * and the largest cause. */
static void sample_causes(struct ctl_source *s, struct ctl_signals *sig, double busy_ns)
{
	struct probe_wait_causes now, d;
	/* Name new stacks only where the workers wait: the decisions read
	 * the causes at 60% blocked and more, and the symbol table costs. */
	bool waiting = sig->blocked >= 0.3;
	if (!s->causes_ok || !probes_wait_causes(s->probes, waiting, &now))
		return;
	uint64_t total = 0, top = 0;
	for (int c = 0; c < WAIT_COUNT; c++) {
		d.ns[c] = now.ns[c] >= s->causes.ns[c] ? now.ns[c] - s->causes.ns[c] : 0;
		d.count[c] =
			now.count[c] >= s->causes.count[c] ? now.count[c] - s->causes.count[c] : 0;
		total += d.ns[c];
		if (d.ns[c] > d.ns[top])
			top = c;
	}
	d.throttled_ns = now.throttled_ns >= s->causes.throttled_ns ?
				 now.throttled_ns - s->causes.throttled_ns :
				 0;
	s->causes = now;
	double dev_us;
	uint64_t reqs;
	dev_service(s, s->snap_diff, &dev_us, &reqs);
	/* classified waits under 5% of the busy time say nothing */
	sig->capped = ctl_capped_share(d.ns, d.count, d.throttled_ns, dev_us, reqs,
				       (uint64_t)(0.05 * busy_ns));
	if (total) {
		sig->top_cause = wait_cause_id((int)top);
		sig->top_share = (double)d.ns[top] / total;
	}
}

void ctl_source_set_dev(struct ctl_source *s, unsigned major, unsigned minor)
{
	s->dev = major ? PROBE_MKDEV(major, minor) : mount_bdev(major, minor);
}

/* The probes' part of the interval: unlinkat percentiles, lock contention,
 * blocked time and its causes. BUSY_NS: the busy workers' time. */
static void sample_bpf(struct ctl_source *s, struct ctl_signals *sig, double busy_ns)
{
	if (probes_read(s->probes, s->snap_now) != 0)
		return;
	probes_snapshot_sub(s->snap_diff, s->snap_now, s->snap_prev);
	struct probe_snapshot *tmp = s->snap_prev;
	s->snap_prev = s->snap_now;
	s->snap_now = tmp;
	const struct probe_hist *h = &s->snap_diff->sc[PROBE_NR_UNLINKAT].lat;
	if (h->count) {
		sig->lat_mean_us = hist_mean(h) / 1e3;
		sig->lat_p50_us = hist_quantile(h, 0.5) / 1e3;
		sig->lat_p99_us = hist_quantile(h, 0.99) / 1e3;
	}
	if (busy_ns > 0) {
		if (probes_group_attached(s->probes, PROBE_G_LOCKS))
			sig->contention = share(probes_lock_wait_ns(s->snap_diff, 0), busy_ns);
		/* Blocked: off-CPU while busy, less the lock waits. From
		 * schedstat when it works (it sees FUSE and I/O waits
		 * whatever the task state), else from D-state time. */
		double lw = sig->contention > 0 ? sig->contention * busy_ns : 0;
		if (sig->blocked >= 0)
			sig->blocked = share(sig->blocked * busy_ns - lw, busy_ns);
		else if (probes_group_attached(s->probes, PROBE_G_OFFCPU))
			sig->blocked = share(
				s->snap_diff->misc.offcpu[PROBE_OFFCPU_BLOCKED].total - lw, busy_ns);
	}
	sample_causes(s, sig, busy_ns);
	sig->bpf = true;
}

void ctl_source_sample(struct ctl_source *s, struct ctl_signals *sig)
{
	memset(sig, 0, sizeof(*sig));
	double now = now_s();
	struct engine_totals t;
	engine_totals(s->e, &t);
	int nbusy = busy_workers(s);
	uint64_t drun, dwait;
	int nmeasured;
	schedstat_delta(s, true, &drun, &dwait, &nmeasured);
	long nvcsw = read_nvcsw();

	sig->t = now - s->t0;
	sig->dt = now - s->last;
	sig->active = engine_active_threads(s->e);
	sig->ops = (t.files + t.dirs) - (s->tot.files + s->tot.dirs);
	sig->rate = sig->dt > 0 ? sig->ops / sig->dt : 0;
	sig->work = t.syscalls - s->tot.syscalls;
	find_stall(s, sig);
	uint64_t ucalls = t.unlink_calls - s->tot.unlink_calls;
	uint64_t uns = t.unlink_ns - s->tot.unlink_ns;
	/* A worker that did anything in the interval counts as busy for all of
	 * it (over-estimates at task boundaries, never misses a long task). */
	double busy_ns = nbusy * sig->dt * 1e9;
	sig->lat_mean_us = ucalls ? uns / 1e3 / ucalls : -1;
	sig->lat_p50_us = sig->lat_p99_us = -1;
	sig->contention = -1;
	sig->capped = -1;
	sig->busy = sig->active > 0 ? share(nbusy, sig->active) : -1;
	if (s->schedstat_ok && nmeasured > 0) {
		double measured_ns = nmeasured * sig->dt * 1e9;
		sig->cpu = share(drun, measured_ns);
		sig->blocked = share(measured_ns - drun - dwait, measured_ns);
	} else {
		sig->cpu = sig->blocked = -1;
	}
	sig->vcsw_per_op = sig->ops ? (double)(nvcsw - s->nvcsw) / sig->ops : -1;
	uint64_t waited = engine_waited_ns(s->e);
	const struct plan_totals *pt = t.plan, *was = s->tot.plan;
	sig->big_shared = pt[PLAN_SHARED].reads > was[PLAN_SHARED].reads;
	sig->big_unasked = pt[PLAN_UNSHARED].reads > was[PLAN_UNSHARED].reads;
	sig->sort_asked = plan_worked(pt, was, PLAN_READDIR) || plan_worked(pt, was, PLAN_BATCHED);
	sig->sort_active = plan_worked(pt, was, PLAN_SORTED);
	unlink_rate(pt[PLAN_BATCHED].unlink_ns - was[PLAN_BATCHED].unlink_ns,
		    pt[PLAN_BATCHED].unlinks - was[PLAN_BATCHED].unlinks, &sig->batch_rate,
		    &sig->batch_secs);
	unlink_rate(pt[PLAN_SORTED].unlink_ns - was[PLAN_SORTED].unlink_ns,
		    pt[PLAN_SORTED].unlinks - was[PLAN_SORTED].unlinks, &sig->sorted_rate,
		    &sig->sorted_secs);
	sig->spare = sig->big_shared ? 1 : share(waited - s->waited_ns, sig->dt * 1e9);
	s->waited_ns = waited;

	if (s->probes)
		sample_bpf(s, sig, busy_ns);
	s->tot = t;
	s->last = now;
	s->nvcsw = nvcsw;
}

const char *ctl_source_missing(const struct ctl_source *s)
{
	return s->missing;
}

void ctl_source_set_missing(struct ctl_source *s, const char *what)
{
	snprintf(s->missing, sizeof s->missing, "%s", what);
}

void ctl_source_free(struct ctl_source *s)
{
	if (!s)
		return;
	if (s->probes)
		probes_stop(s->probes);
	probes_snapshot_free(s->snap_prev);
	probes_snapshot_free(s->snap_now);
	probes_snapshot_free(s->snap_diff);
	free(s->run_ns);
	free(s->wait_ns);
	free(s->calls);
	free(s->moved);
	free(s);
}

void ctl_signals_to_sample(const struct ctl_signals *sig, struct ctl_sample *out)
{
	out->dt = sig->dt;
	out->ops = (double)sig->work;
	out->lat_mean_us = sig->lat_mean_us;
	out->lat_p99_us = sig->lat_p99_us;
	out->contention = sig->contention;
	out->blocked = sig->blocked;
	out->busy = sig->busy;
	out->cpu = sig->cpu;
	out->spare = sig->spare;
	out->capped = sig->capped;
}

static void num_or_null(struct json_writer *w, const char *key, double v)
{
	if (v < 0)
		jw_null(w, key);
	else
		jw_double(w, key, v);
}

void ctl_signals_json(struct json_writer *w, const struct ctl_signals *s)
{
	if (s->stall_wait[0])
		jw_string(w, "held_in", s->stall_wait);
	jw_uint(w, "entries", s->ops);
	jw_double(w, "throughput", s->rate);
	num_or_null(w, "lat_mean_us", s->lat_mean_us);
	num_or_null(w, "lat_p50_us", s->lat_p50_us);
	num_or_null(w, "lat_p99_us", s->lat_p99_us);
	num_or_null(w, "contention", s->contention);
	num_or_null(w, "blocked", s->blocked);
	num_or_null(w, "busy", s->busy);
	num_or_null(w, "cpu", s->cpu);
	num_or_null(w, "vcsw_per_entry", s->vcsw_per_op);
	num_or_null(w, "spare", s->spare);
	num_or_null(w, "capped", s->capped);
	if (s->top_cause) {
		jw_string(w, "wait_cause", s->top_cause);
		jw_double(w, "wait_cause_share", s->top_share);
	}
	jw_bool(w, "bpf", s->bpf);
}
