// SPDX-License-Identifier: GPL-3.0-or-later
/* The cgroups of the traced processes, v1 and v2, and what their limits did
 * while tracing: the context the kernel already keeps. A CPU quota throttles
 * (cpu.stat), a memory limit fails charges and reclaims (memory.failcnt,
 * memory.events, memory.stat), a block-I/O limit holds requests back
 * (blkio.throttle.*, io.max), and the pressure stall totals say how long
 * tasks waited for CPU, memory and I/O (/proc/pressure, *.pressure). The
 * files are read when the trace starts and when it ends; counters are the
 * differences, limits and usage are the end's. */
#ifndef ADAPTRM_TRACE_CGROUPS_H
#define ADAPTRM_TRACE_CGROUPS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct json_writer;

#define TRACE_CG_MAX 8	       /* cgroups of each kind */
#define TRACE_CG_MAX_DEVS 8    /* devices of one io cgroup */
#define TRACE_CG_MAX_MOUNTS 16 /* cgroup hierarchies */

/* A field that could not be read: no such file or line (the controller is
 * not mounted, an older kernel), or a counter that went back. */
#define TRACE_CG_UNKNOWN UINT64_MAX
/* A limit that is not set: "max", -1, or v1's page-counter maximum. */
#define TRACE_CG_NO_LIMIT (UINT64_MAX - 1)

/* What an entry reports: one controller's files, or a v2 cgroup's pressure
 * stall totals. */
enum trace_cg_kind {
	TRACE_CG_CPU,
	TRACE_CG_MEMORY,
	TRACE_CG_IO,
	TRACE_CG_PRESSURE,
	TRACE_CG_KINDS
};
enum trace_psi { TRACE_PSI_CPU, TRACE_PSI_MEMORY, TRACE_PSI_IO, TRACE_PSI_COUNT };

/* The "total=" of a pressure file's "some" and "full" lines, us. */
struct trace_psi_total {
	uint64_t some_us, full_us;
};

/* One device of an io cgroup: its limits and what was serviced. */
struct trace_cg_dev {
	unsigned major, minor;
	uint64_t rbps, wbps, riops, wiops;   /* limits */
	uint64_t rios, wios, rbytes, wbytes; /* counters */
};

struct trace_cgroup {
	int kind;	/* enum trace_cg_kind */
	int version;	/* 1 or 2 */
	bool traced;	/* a traced process is in it; else an ancestor with a limit */
	char path[192]; /* in its hierarchy, as /proc/PID/cgroup shows it: "/x" */
	char dir[256];	/* where its files are: "/sys/fs/cgroup/cpu/x" */
	/* TRACE_CG_CPU: cpu.cfs_quota_us and cpu.cfs_period_us, or cpu.max;
	 * cpu.stat (v1 throttled_time is ns, v2 throttled_usec us); and
	 * cpu.stat.local, the time its tasks were throttled by it or by an
	 * ancestor */
	uint64_t quota_us, period_us;
	uint64_t nr_periods, nr_throttled, throttled_ns, throttled_local_ns;
	/* TRACE_CG_MEMORY: v1 memory.limit_in_bytes, usage_in_bytes,
	 * max_usage_in_bytes; v2 memory.max, memory.high, memory.current,
	 * memory.peak */
	uint64_t limit_bytes, high_bytes, usage_bytes, max_usage_bytes;
	uint64_t failcnt;			      /* v1 memory.failcnt */
	uint64_t events_high, events_max, events_oom; /* v2 memory.events */
	uint64_t oom_kill;			      /* v2 memory.events, v1 memory.oom_control */
	uint64_t pgscan, pgsteal, pgmajfault;	      /* memory.stat (v1: total_pgmajfault) */
	/* TRACE_CG_IO: blkio.throttle.{read,write}_{bps,iops}_device and
	 * blkio.throttle.io_serviced, io_service_bytes; io.max and io.stat */
	struct trace_cg_dev devs[TRACE_CG_MAX_DEVS];
	int ndevs;
	/* TRACE_CG_PRESSURE: cpu.pressure, memory.pressure, io.pressure */
	struct trace_psi_total psi[TRACE_PSI_COUNT];
};

/* A mounted hierarchy, from mountinfo. */
struct trace_cg_mount {
	int version;
	char controllers[64]; /* v1 super options: "rw,cpu,cpuacct" */
	char root[128];	      /* the cgroup mounted there, "/" but in a namespace */
	char target[128];
};

struct trace_cgroups {
	char root[128]; /* prefix of /proc and the cgroup mounts ("" but in tests) */
	struct trace_cg_mount mounts[TRACE_CG_MAX_MOUNTS];
	int nmounts;
	bool v2_has[TRACE_CG_KINDS]; /* the controller is enabled on the v2 root */
	struct trace_cgroup cg[TRACE_CG_KINDS * TRACE_CG_MAX];
	int ncg;
	struct trace_psi_total system[TRACE_PSI_COUNT]; /* /proc/pressure */
	bool ended;
};

/* Snapshot the cgroups of processes PIDS (their /proc/PID/cgroup), the
 * ancestors of those that have a limit, and the system's pressure totals.
 * ROOT prefixes every path read, NULL or "" for the live system. A process
 * that moves to another cgroup later is reported in the one it was in. */
void trace_cgroups_begin(struct trace_cgroups *c, const char *root, const pid_t *pids, int n);
/* A process found after the start: its cgroups not yet known are read now,
 * their counters from now on. */
void trace_cgroups_add_pid(struct trace_cgroups *c, pid_t pid);
/* Read everything again: counters become the differences since the start. */
void trace_cgroups_end(struct trace_cgroups *c);

/* A limit is set on it (a quota, a memory limit or high mark, a device limit). */
bool trace_cgroup_limited(const struct trace_cgroup *g);
/* Its limit acted while tracing: throttled periods or I/O, failed charges,
 * high or max events, OOM. */
bool trace_cgroup_acted(const struct trace_cgroup *g);

/* The "cgroups" object of the trace JSON (docs/json.md). */
void trace_cgroups_json(struct json_writer *w, const struct trace_cgroups *c);
/* A few lines: the cgroups with a limit or that throttled, else "no
 * limits" in one; the pressure stalls. */
void trace_cgroups_text(FILE *f, const struct trace_cgroups *c);

#endif
