// SPDX-License-Identifier: GPL-3.0-or-later
/* The deleter's politeness: how fast to go, decided every tick from what the
 * device does for others and what our own unlinks cost. While nobody else is
 * hurt it runs like the foreground (the same controller and worker cap, the
 * normal I/O class); while others are active or our unlinks wait, it backs
 * off to one paced worker in the idle I/O class. */
#ifndef ADAPTRM_HOLD_POLITE_H
#define ADAPTRM_HOLD_POLITE_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Above this many bytes per second of other processes' reads, or this share
 * of time with requests in flight that are not ours, the device is in use. */
#define POLITE_OTHERS_BYTES_PER_S (1ull << 20)
/* Our unlinks this many times slower than their floor: someone waits too,
 * if the device shows anyone else at all; alone, what slows them is our
 * own journal (commits and checkpoints when it fills). */
#define POLITE_LATENCY_FACTOR 4
#define POLITE_MAX_INTERVAL_NS 200000000ull /* 5 operations a second at least */
#define POLITE_MIN_BACKOFF_NS 1000000ull

struct polite_in {
	bool have_device;	   /* the device's counters could be read */
	bool in_memory;		   /* tmpfs, ramfs: no device at all, so nobody
				    * waits on it and the deleter never backs off */
	uint64_t others_read_bps;  /* others' reads on the device, bytes per second */
	bool others_seen;	   /* others read or flushed on it since the last tick */
	uint64_t own_latency_ns;   /* our mean unlink time over the tick divided by
				    * the workers running: the wall time one unlink
				    * takes us, which more workers alone do not
				    * raise (0: none) */
	uint64_t floor_latency_ns; /* the lowest seen so far (0: none yet) */
	uint64_t interval_ns;	   /* the current pacing between two operations */
	uint64_t min_interval_ns;  /* --max-ops's pacing (0: none) */
};

struct polite_out {
	uint64_t interval_ns; /* the engine's op_interval_ns */
	uint64_t paced_ns;    /* the back-off's own pacing, without --max-ops's:
			       * the next tick's interval_ns, so that --max-ops
			       * alone never reads as a back-off */
	int threads;	      /* active workers; 0: the controller decides */
	bool idle_io;	      /* the idle I/O class (else the normal one) */
	bool backing_off;     /* for the log */
};

/* The pure decision. */
void polite_decide(const struct polite_in *in, struct polite_out *out);

/* Others' syncs. A sync on ext4 (and a log force on xfs, a tree commit on
 * btrfs) commits everything dirtied since the last commit, whoever dirtied
 * it, so a syncing process waits for the deleter's metadata however slowly
 * the deleter goes. So while others sync on the device (its flush requests,
 * ours subtracted), the deleter yields: it holds every unlink, and only
 * every POLITE_BURST_PERIOD_NS deletes for POLITE_BURST_NS right after a
 * commit and commits that itself, so that few of the others' commits carry
 * any of it; it runs again after POLITE_QUIET_NS without their flushes. */
#define POLITE_SYNC_WINDOW_NS 1000000000ull
/* Ticks within the window that saw others' flush requests, for others'
 * syncs: a commit shows as a few flushes at once (before and after its
 * record, a checkpoint's), so ticks are counted, not flushes; the deleter's
 * own timer commits (one in five seconds) reach one tick, two at most. */
#define POLITE_SYNC_MIN_TICKS 3
/* The flushes the deleter's own dirt causes without a sync of its own (the
 * journal full, the commit timer, writeback, checkpoints) look the same on
 * the counter, and a big tree's come often enough to pass for others'. So
 * a window that looks like others' syncs first starts a probe: the deleter
 * holds; flushes that go on while it is quiet (POLITE_PROBE_TICKS ticks,
 * more than the commit carrying what it already dirtied) are others', and
 * it yields; if they stop for POLITE_PROBE_QUIET_NS, longer than the gaps
 * of a sync rate the window's threshold hears, they were its own: it runs
 * again and needs more ticks than that window's and one the next time (at most
 * POLITE_SYNC_MAX_TICKS, so that a sync every tick is always heard). */
#define POLITE_PROBE_QUIET_NS 400000000ull
#define POLITE_PROBE_TICKS 3
#define POLITE_SYNC_MAX_TICKS 8
#define POLITE_QUIET_NS 1000000000ull
/* A burst's commit makes others' next syncs wait for it (behind a device's
 * cap every journal block costs), so bursts are short and rare enough that
 * an fsync every 10 ms meets one in hundreds, out of its p99. */
#define POLITE_BURST_PERIOD_NS 5000000000ull
#define POLITE_BURST_NS 2000000ull
/* How long the deleter listens for others' syncs before its first unlink,
 * in ticks of its own: the engine's first tick comes only after a tenth of
 * a second of full speed. */
#define POLITE_LISTEN_NS 50000000ull
#define POLITE_LISTEN_TICKS 5
/* How long a burst waits at most for a commit to end first. */
#define POLITE_BURST_ALIGN_NS 20000000ull
#define POLITE_SYNC_RING 16

enum polite_state { POLITE_RUN, POLITE_PROBE, POLITE_YIELD };
enum polite_action { POLITE_GO, POLITE_HOLD, POLITE_BURST };

struct polite_sync {
	enum polite_state state;
	uint64_t at_ns[POLITE_SYNC_RING]; /* ticks' times and others' flushes */
	uint64_t flushes[POLITE_SYNC_RING];
	unsigned pos;
	unsigned own_ticks;	/* learned: a window's ticks our own flushes reach */
	unsigned trigger_ticks; /* the window's that started the current probe */
	unsigned probe_ticks;	/* ticks with flushes since it started */
	uint64_t last_flush_ns; /* the last tick with others' flushes */
	uint64_t since_ns;	/* when the current probe or yield began */
	uint64_t last_burst_ns;
	uint64_t yields;     /* for the log: yields begun */
	uint64_t yield_ns;   /* and the time of those that ended */
	uint64_t probes;     /* probes begun */
	uint64_t own_probes; /* those that found the flushes the deleter's own */
	uint64_t probe_ns;   /* the time of those that ended */
};

/* One tick at NOW with OTHERS flush requests on the device since the last
 * one (the window holds the last POLITE_SYNC_RING ticks at most): the
 * state's next step, and what the deleter does until the next. */
enum polite_action polite_sync_step(struct polite_sync *s, uint64_t now, uint64_t others);

/* The block devices under a filesystem, by their stat files: its own
 * device's, or for btrfs (whose st_dev is an anonymous one with no stat
 * file) each of its devices', summed. An xfs with an external log would
 * need its log device too (logdev= in mountinfo), which is not read. */
#define POLITE_MAX_DEVICES 8
struct polite_device {
	unsigned n;
	char stat[POLITE_MAX_DEVICES][128];
};

/* The devices under FD's filesystem, whose st_dev is DEV; false if none
 * has a stat file. */
bool polite_device_find(int fd, dev_t dev, struct polite_device *pd);
/* Their read sectors (the stat file's third field). */
bool polite_device_reads(const struct polite_device *pd, uint64_t *sectors);
/* Their completed flush requests (the sixteenth field, kernels since 5.5);
 * false where there is none. */
bool polite_device_flushes(const struct polite_device *pd, uint64_t *flushes);
/* Bytes this process read from storage (/proc/self/io read_bytes). */
bool polite_own_reads(uint64_t *bytes);

/* The time this process's threads waited for a CPU, summed over them
 * (/proc/self/task/TID/schedstat's second field): unlinks slowed by other
 * jobs' CPU use hurt nobody on the device, and at nice 19 beside busy CPUs
 * the deleter's own unlink time is mostly that wait. */
bool polite_runq_ns(uint64_t *ns);

/* Every thread of this process to the idle CPU policy (IDLE) or back to the
 * normal one, its nice value kept; false if any refused. */
bool polite_cpu_idle(bool idle);
/* Whether a thread of this process may leave the idle policy again once in
 * it (tried on a thread of its own): an unprivileged one may only where
 * RLIMIT_NICE lets it raise its priority back, which it rarely does. */
bool polite_cpu_idle_reversible(void);

#endif
