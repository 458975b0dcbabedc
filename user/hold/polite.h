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
/* Our unlinks this many times slower than their floor: someone waits too. */
#define POLITE_LATENCY_FACTOR 4
#define POLITE_MAX_INTERVAL_NS 200000000ull /* 5 operations a second at least */
#define POLITE_MIN_BACKOFF_NS 1000000ull

struct polite_in {
	bool have_device;	   /* the device's counters could be read */
	uint64_t others_read_bps;  /* others' reads on the device, bytes per second */
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
	int threads;	      /* active workers; 0: the controller decides */
	bool idle_io;	      /* the idle I/O class (else the normal one) */
	bool backing_off;     /* for the log */
};

/* The pure decision. */
void polite_decide(const struct polite_in *in, struct polite_out *out);

/* The read sectors of block device DEV (/sys/dev/block/MAJ:MIN/stat). */
bool polite_device_reads(dev_t dev, uint64_t *sectors);
/* Bytes this process read from storage (/proc/self/io read_bytes). */
bool polite_own_reads(uint64_t *bytes);

#endif
