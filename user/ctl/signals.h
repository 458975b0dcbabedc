// SPDX-License-Identifier: GPL-3.0-or-later
/* The controller's senses: one struct ctl_signals per tick, from user space
 * always (engine counters, per-worker schedstats, getrusage) and from the
 * eBPF probes when they load (latency percentiles, lock contention, time
 * blocked in D state). */
#ifndef ADAPTRM_CTL_SIGNALS_H
#define ADAPTRM_CTL_SIGNALS_H
#include <stdbool.h>
#include <stdint.h>
#include "ctl/policy.h"
#include "engine/engine.h"

struct ctl_signals {
	double t;		       /* seconds since the source started */
	double dt;		       /* seconds covered by this sample */
	uint64_t ops;		       /* entries removed in it */
	uint64_t work;		       /* syscalls the workers issued in it: the policy's
				 * measure of progress (a chain removes nothing
				 * while it descends, but it works) */
	double rate;		       /* ops / dt */
	int active;		       /* workers allowed to run during it */
	double lat_mean_us;	       /* unlinkat: engine timing, or BPF when loaded */
	double lat_p50_us, lat_p99_us; /* BPF only, else -1 */
	double contention;	       /* lock wait / busy time: BPF only, else -1 */
	double blocked;	    /* BPF: D-state time / busy; else off-CPU while busy (schedstat) */
	double busy;	    /* busy worker time / (active * dt) */
	double cpu;	    /* on-CPU worker time / busy time (schedstat), or -1 */
	double vcsw_per_op; /* voluntary context switches per entry (getrusage) */
	double spare;	    /* share of dt some task waited for a worker; 1 when a
				 * directory read was big enough to share (engine); -1: unknown */
	/* BPF with stacks: the share of the workers' blocked time whose cause
	 * more workers cannot overlap (journal, log space, inode GC,
	 * writeback, block throttling or tag waits, and metadata reads held
	 * above the device: see ctl_capped_share); -1 unknown. The largest
	 * cause (wait_cause_id) and its share of the classified time. */
	double capped;
	const char *top_cause;
	double top_share;
	bool bpf;	  /* the BPF fields are measured */
	bool big_shared;  /* a read big enough to share was shared (engine) */
	bool big_unasked; /* one was read where sharing is untried (engine) */
	/* The sort trial's (engine): big directories where inode order is
	 * untried were read or unlinked from in readdir order (sort_asked), or
	 * in sorted batches (sort_active); unlinks per second of the timed
	 * unlinkat calls of whole batches in readdir order (batch_*) and of
	 * sorted ones (sorted_*), over *_secs seconds of such calls (0: none). */
	bool sort_asked, sort_active;
	double batch_rate, batch_secs, sorted_rate, sorted_secs;
	/* Nothing was removed in the interval and every busy worker waits in
	 * this one kernel function (/proc's wchan: a frozen filesystem's
	 * percpu_rwsem_wait, a lock someone else holds); "" otherwise. */
	char stall_wait[48];
};

struct json_writer;
/* S's measured fields as members of the JSON object W is writing (the
 * controller's time series: docs/json.md). */
void ctl_signals_json(struct json_writer *w, const struct ctl_signals *s);

struct ctl_source;

/* BPF: try the probes (false: user space only). */
struct ctl_source *ctl_source_new(struct engine *e);
/* Load the eBPF probes now (from the tick thread). Returns false, with what
 * could not be measured in ctl_source_missing(), if they cannot load. */
bool ctl_source_start_bpf(struct ctl_source *s);
bool ctl_source_has_bpf(const struct ctl_source *s);
/* Restart the interval (a new tree begins): the next sample covers from now. */
void ctl_source_reset(struct ctl_source *s);
/* Fill SIG with what happened since the previous call (or reset). */
void ctl_source_sample(struct ctl_source *s, struct ctl_signals *sig);
/* The block device (major, minor) of the filesystem deleted on (its st_dev;
 * for btrfs and others with an anonymous st_dev, the device mountinfo
 * names): its service time tells reads held above it (a cap) from slow ones. */
void ctl_source_set_dev(struct ctl_source *s, unsigned major, unsigned minor);
/* "" when everything is measured, else a short sentence. */
const char *ctl_source_missing(const struct ctl_source *s);
void ctl_source_set_missing(struct ctl_source *s, const char *what);
void ctl_source_free(struct ctl_source *s);

/* The causes more workers cannot overlap, from one interval's classified
 * blocked time NS and wait counts COUNT by cause (enum wait_cause), the part
 * THROTTLED in block-layer throttling or tag waits, and the device's mean
 * service time DEV_US (median) over DEV_REQS requests (0: not measured):
 * metadata reads whose wait is 8 times the device's service time were held
 * above the device (blk-throttle queues the bio before it is issued) and
 * count as capped. Returns the share of the classified time, or -1 when too
 * little was classified (under MIN_NS). */
double ctl_capped_share(const uint64_t *ns, const uint64_t *count, uint64_t throttled,
			double dev_us, uint64_t dev_reqs, uint64_t min_ns);

/* The policy's view of a sample. */
void ctl_signals_to_sample(const struct ctl_signals *sig, struct ctl_sample *out);

#endif
