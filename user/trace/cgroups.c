// SPDX-License-Identifier: GPL-3.0-or-later
/* The traced processes' cgroups (cgroups.h): where the hierarchies are
 * mounted, which cgroups the processes are in, their limits and counters,
 * and the pressure stall totals, read twice. */
#include "trace/cgroups.h"
#include "lib/json.h"
#include "lib/units.h"
#include "trace/measure.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TRACE_CG_KINDS] = { "cpu", "memory", "io", "pressure" };
/* the v1 controller and the v2 one of each kind */
static const char *const v1_controllers[TRACE_CG_KINDS] = { "cpu", "memory", "blkio", NULL };
static const char *const v2_controllers[TRACE_CG_KINDS] = { "cpu", "memory", "io", NULL };
static const char *const psi_names[TRACE_PSI_COUNT] = { "cpu", "memory", "io" };

/* ---- reading files ---- */

/* The whole of ROOT/DIR/NAME (DIR may be NULL), malloc'd, or NULL. */
static char *slurp(const char *root, const char *dir, const char *name)
{
	char path[PATH_MAX];
	char *buf = NULL;
	size_t cap = 0;

	snprintf(path, sizeof path, "%s%s%s%s", root, dir ? dir : "", dir ? "/" : "", name);
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	if (getdelim(&buf, &cap, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* A number as the cgroup files write it: "max" and negative values (v1's
 * cfs_quota_us of -1) are no limit, and so is v1's page-counter maximum
 * (PAGE_COUNTER_MAX pages, just under 2^63 bytes with 4 KiB pages). */
static uint64_t parse_limit(const char *s)
{
	char *end;

	while (*s == ' ')
		s++;
	if (!strncmp(s, "max", 3) || *s == '-')
		return TRACE_CG_NO_LIMIT;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return TRACE_CG_UNKNOWN;
	return v >= (1ull << 62) ? TRACE_CG_NO_LIMIT : (uint64_t)v;
}

static uint64_t read_limit(const char *root, const char *dir, const char *name)
{
	char *buf = slurp(root, dir, name);
	uint64_t v = buf ? parse_limit(buf) : TRACE_CG_UNKNOWN;
	free(buf);
	return v;
}

/* The value of KEY in a "key value" file (cpu.stat, memory.stat,
 * memory.events), or TRACE_CG_UNKNOWN. */
static uint64_t keyed(const char *buf, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			char *end;
			unsigned long long v = strtoull(p + kl + 1, &end, 10);
			return end == p + kl + 1 ? TRACE_CG_UNKNOWN : (uint64_t)v;
		}
	return TRACE_CG_UNKNOWN;
}

/* KEY's value in BUF, read at most once: the first key that is there. */
static uint64_t keyed2(const char *buf, const char *key, const char *alt)
{
	uint64_t v = buf ? keyed(buf, key) : TRACE_CG_UNKNOWN;
	return v == TRACE_CG_UNKNOWN && buf && alt ? keyed(buf, alt) : v;
}

/* A pressure file: "some avg10=0.00 avg60=0.00 avg300=0.00 total=123",
 * then "full ..." (the system's cpu line has had no "full" before 5.13). */
static struct trace_psi_total parse_psi(const char *buf)
{
	struct trace_psi_total t = { TRACE_CG_UNKNOWN, TRACE_CG_UNKNOWN };

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *tot = strstr(p, "total=");
		const char *eol = strchrnul(p, '\n');
		if (!tot || tot > eol)
			continue;
		uint64_t v = strtoull(tot + 6, NULL, 10);
		if (!strncmp(p, "some ", 5))
			t.some_us = v;
		else if (!strncmp(p, "full ", 5))
			t.full_us = v;
	}
	return t;
}

static struct trace_psi_total read_psi(const char *root, const char *dir, const char *name)
{
	char *buf = slurp(root, dir, name);
	struct trace_psi_total t = parse_psi(buf);
	free(buf);
	return t;
}

/* ---- block devices ---- */

static struct trace_cg_dev *dev_of(struct trace_cgroup *g, unsigned maj, unsigned min)
{
	for (int i = 0; i < g->ndevs; i++)
		if (g->devs[i].major == maj && g->devs[i].minor == min)
			return &g->devs[i];
	if (g->ndevs == TRACE_CG_MAX_DEVS)
		return NULL;
	struct trace_cg_dev *d = &g->devs[g->ndevs++];
	*d = (struct trace_cg_dev){ maj,
				    min,
				    TRACE_CG_NO_LIMIT,
				    TRACE_CG_NO_LIMIT,
				    TRACE_CG_NO_LIMIT,
				    TRACE_CG_NO_LIMIT,
				    TRACE_CG_UNKNOWN,
				    TRACE_CG_UNKNOWN,
				    TRACE_CG_UNKNOWN,
				    TRACE_CG_UNKNOWN };
	return d;
}

/* v1 blkio.throttle.*_device: "MAJ:MIN N" per line; FIELD is the limit. */
static void v1_dev_limits(struct trace_cgroup *g, const char *buf, size_t field)
{
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned maj, min;
		unsigned long long v;
		struct trace_cg_dev *d;
		if (sscanf(p, "%u:%u %llu", &maj, &min, &v) == 3 && (d = dev_of(g, maj, min)))
			*(uint64_t *)((char *)d + field) = v;
	}
}

/* v1 blkio.throttle.io_serviced and io_service_bytes: "MAJ:MIN Read N",
 * "MAJ:MIN Write N", ... and a last "Total N". */
static void v1_dev_stats(struct trace_cgroup *g, const char *buf, size_t rfield, size_t wfield)
{
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned maj, min;
		unsigned long long v;
		char op[16];
		struct trace_cg_dev *d;
		if (sscanf(p, "%u:%u %15s %llu", &maj, &min, op, &v) != 4)
			continue;
		size_t field = !strcmp(op, "Read") ? rfield : !strcmp(op, "Write") ? wfield : 0;
		if (field && (d = dev_of(g, maj, min)))
			*(uint64_t *)((char *)d + field) = v;
	}
}

/* v2 io.max ("MAJ:MIN rbps=max wbps=1048576 riops=max wiops=max") and
 * io.stat ("MAJ:MIN rbytes=.. wbytes=.. rios=.. wios=.. dbytes=.. dios=.."):
 * each KEY= of a line into its field. */
static void v2_dev_keys(struct trace_cgroup *g, const char *buf, const char *const *keys,
			const size_t *fields, int nkeys)
{
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned maj, min;
		int off;
		struct trace_cg_dev *d;
		if (sscanf(p, "%u:%u%n", &maj, &min, &off) != 2 || !(d = dev_of(g, maj, min)))
			continue;
		const char *eol = strchrnul(p, '\n');
		for (const char *t = p + off; t < eol;) {
			t += strspn(t, " ");
			size_t tl = strcspn(t, " \n");
			for (int k = 0; k < nkeys; k++) {
				size_t kl = strlen(keys[k]);
				if (tl > kl && !strncmp(t, keys[k], kl) && t[kl] == '=')
					*(uint64_t *)((char *)d + fields[k]) =
						parse_limit(t + kl + 1);
			}
			t += tl;
		}
	}
}

#define DEV_FIELD(f) offsetof(struct trace_cg_dev, f)

static void read_io(const char *root, struct trace_cgroup *g)
{
	static const char *const v1_limits[] = { "blkio.throttle.read_bps_device",
						 "blkio.throttle.write_bps_device",
						 "blkio.throttle.read_iops_device",
						 "blkio.throttle.write_iops_device" };
	static const size_t v1_fields[] = { DEV_FIELD(rbps), DEV_FIELD(wbps), DEV_FIELD(riops),
					    DEV_FIELD(wiops) };
	static const char *const max_keys[] = { "rbps", "wbps", "riops", "wiops" };
	static const char *const stat_keys[] = { "rbytes", "wbytes", "rios", "wios" };
	static const size_t stat_fields[] = { DEV_FIELD(rbytes), DEV_FIELD(wbytes), DEV_FIELD(rios),
					      DEV_FIELD(wios) };
	char *buf;

	g->ndevs = 0;
	if (g->version == 1) {
		for (int i = 0; i < 4; i++) {
			buf = slurp(root, g->dir, v1_limits[i]);
			v1_dev_limits(g, buf, v1_fields[i]);
			free(buf);
		}
		buf = slurp(root, g->dir, "blkio.throttle.io_serviced");
		v1_dev_stats(g, buf, DEV_FIELD(rios), DEV_FIELD(wios));
		free(buf);
		buf = slurp(root, g->dir, "blkio.throttle.io_service_bytes");
		v1_dev_stats(g, buf, DEV_FIELD(rbytes), DEV_FIELD(wbytes));
		free(buf);
		return;
	}
	buf = slurp(root, g->dir, "io.max");
	v2_dev_keys(g, buf, max_keys, v1_fields, 4);
	free(buf);
	buf = slurp(root, g->dir, "io.stat");
	v2_dev_keys(g, buf, stat_keys, stat_fields, 4);
	free(buf);
}

/* ---- one cgroup ---- */

static void read_cpu(const char *root, struct trace_cgroup *g)
{
	char *buf;

	if (g->version == 1) {
		g->quota_us = read_limit(root, g->dir, "cpu.cfs_quota_us");
		g->period_us = read_limit(root, g->dir, "cpu.cfs_period_us");
	} else if ((buf = slurp(root, g->dir, "cpu.max"))) {
		/* "max 100000" or "20000 100000" */
		g->quota_us = parse_limit(buf);
		const char *sp = strchr(buf, ' ');
		g->period_us = sp ? parse_limit(sp + 1) : TRACE_CG_UNKNOWN;
		free(buf);
	}
	buf = slurp(root, g->dir, "cpu.stat");
	g->nr_periods = keyed2(buf, "nr_periods", NULL);
	g->nr_throttled = keyed2(buf, "nr_throttled", NULL);
	if (g->version == 1)
		g->throttled_ns = keyed2(buf, "throttled_time", NULL);
	else if ((g->throttled_ns = keyed2(buf, "throttled_usec", NULL)) != TRACE_CG_UNKNOWN)
		g->throttled_ns *= 1000;
	free(buf);
	buf = slurp(root, g->dir, "cpu.stat.local");
	if (g->version == 1)
		g->throttled_local_ns = keyed2(buf, "throttled_time", NULL);
	else if ((g->throttled_local_ns = keyed2(buf, "throttled_usec", NULL)) != TRACE_CG_UNKNOWN)
		g->throttled_local_ns *= 1000;
	free(buf);
}

static void read_memory(const char *root, struct trace_cgroup *g)
{
	char *buf;

	if (g->version == 1) {
		g->limit_bytes = read_limit(root, g->dir, "memory.limit_in_bytes");
		g->usage_bytes = read_limit(root, g->dir, "memory.usage_in_bytes");
		g->max_usage_bytes = read_limit(root, g->dir, "memory.max_usage_in_bytes");
		g->failcnt = read_limit(root, g->dir, "memory.failcnt");
		buf = slurp(root, g->dir, "memory.oom_control");
		g->oom_kill = keyed2(buf, "oom_kill", NULL);
		free(buf);
		/* v1 memory.stat counts no scans or steals; the total_ counters
		 * include the descendants, as v2's do */
		buf = slurp(root, g->dir, "memory.stat");
		g->pgmajfault = keyed2(buf, "total_pgmajfault", "pgmajfault");
		free(buf);
		return;
	}
	g->limit_bytes = read_limit(root, g->dir, "memory.max");
	g->high_bytes = read_limit(root, g->dir, "memory.high");
	g->usage_bytes = read_limit(root, g->dir, "memory.current");
	g->max_usage_bytes = read_limit(root, g->dir, "memory.peak");
	buf = slurp(root, g->dir, "memory.events");
	g->events_high = keyed2(buf, "high", NULL);
	g->events_max = keyed2(buf, "max", NULL);
	g->events_oom = keyed2(buf, "oom", NULL);
	g->oom_kill = keyed2(buf, "oom_kill", NULL);
	free(buf);
	buf = slurp(root, g->dir, "memory.stat");
	g->pgscan = keyed2(buf, "pgscan", NULL);
	g->pgsteal = keyed2(buf, "pgsteal", NULL);
	g->pgmajfault = keyed2(buf, "pgmajfault", NULL);
	free(buf);
}

/* Every field of G from its files; what is not there stays unknown. */
static void read_cgroup(const char *root, struct trace_cgroup *g)
{
	const uint64_t u = TRACE_CG_UNKNOWN;

	g->quota_us = g->period_us = g->nr_periods = g->nr_throttled = u;
	g->throttled_ns = g->throttled_local_ns = u;
	g->limit_bytes = g->high_bytes = g->usage_bytes = g->max_usage_bytes = g->failcnt = u;
	g->events_high = g->events_max = g->events_oom = g->oom_kill = u;
	g->pgscan = g->pgsteal = g->pgmajfault = u;
	for (int i = 0; i < TRACE_PSI_COUNT; i++)
		g->psi[i] = (struct trace_psi_total){ TRACE_CG_UNKNOWN, TRACE_CG_UNKNOWN };
	switch (g->kind) {
	case TRACE_CG_CPU: read_cpu(root, g); break;
	case TRACE_CG_MEMORY: read_memory(root, g); break;
	case TRACE_CG_IO: read_io(root, g); break;
	default:
		for (int i = 0; i < TRACE_PSI_COUNT; i++) {
			char name[32];
			snprintf(name, sizeof name, "%s.pressure", psi_names[i]);
			g->psi[i] = read_psi(root, g->dir, name);
		}
	}
}

static bool limit_set(uint64_t v)
{
	return v != TRACE_CG_UNKNOWN && v != TRACE_CG_NO_LIMIT;
}

static bool counted(uint64_t v)
{
	return v != TRACE_CG_UNKNOWN && v > 0;
}

bool trace_cgroup_limited(const struct trace_cgroup *g)
{
	for (int i = 0; i < g->ndevs; i++)
		if (limit_set(g->devs[i].rbps) || limit_set(g->devs[i].wbps) ||
		    limit_set(g->devs[i].riops) || limit_set(g->devs[i].wiops))
			return true;
	return limit_set(g->quota_us) || limit_set(g->limit_bytes) || limit_set(g->high_bytes);
}

bool trace_cgroup_acted(const struct trace_cgroup *g)
{
	return counted(g->nr_throttled) || counted(g->throttled_local_ns) || counted(g->failcnt) ||
	       counted(g->events_high) || counted(g->events_max) || counted(g->events_oom) ||
	       counted(g->oom_kill);
}

/* ---- the hierarchies and the processes' places in them ---- */

/* TOKEN among the comma-separated LIST. */
static bool has_token(const char *list, const char *token)
{
	size_t tl = strlen(token);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == tl && !strncmp(p, token, tl))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/* The cgroup mounts of mountinfo: "id parent maj:min root target options
 * [optional...] - fstype source superoptions". v1 controllers may share a
 * hierarchy (cpu,cpuacct), so the super options say which are where. */
static void read_mounts(struct trace_cgroups *c)
{
	char *buf = slurp(c->root, NULL, "/proc/self/mountinfo");

	c->nmounts = 0;
	for (char *p = buf, *eol; p && *p && c->nmounts < TRACE_CG_MAX_MOUNTS; p = eol + 1) {
		char mroot[128], target[128], fstype[16], sopts[64];
		eol = strchrnul(p, '\n');
		char *dash = strstr(p, " - ");
		bool last = !*eol;
		*eol = '\0';
		if (dash && sscanf(p, "%*u %*u %*u:%*u %127s %127s", mroot, target) == 2 &&
		    sscanf(dash + 3, "%15s %*s %63s", fstype, sopts) == 2 &&
		    (!strcmp(fstype, "cgroup") || !strcmp(fstype, "cgroup2"))) {
			struct trace_cg_mount *m = &c->mounts[c->nmounts++];
			m->version = fstype[6] == '2' ? 2 : 1;
			snprintf(m->controllers, sizeof m->controllers, "%s", sopts);
			snprintf(m->root, sizeof m->root, "%s", mroot);
			snprintf(m->target, sizeof m->target, "%s", target);
		}
		if (last)
			break;
	}
	free(buf);
	/* the controllers v2 has: those enabled at its root, not held by v1 */
	for (int m = 0; m < c->nmounts; m++) {
		if (c->mounts[m].version != 2)
			continue;
		char *ctl = slurp(c->root, c->mounts[m].target, "cgroup.controllers");
		for (int k = 0; ctl && k < TRACE_CG_KINDS; k++) {
			const char *w = v2_controllers[k];
			for (char *t = strstr(ctl, w ? w : ""); w && t; t = strstr(t + 1, w)) {
				size_t l = strlen(w);
				if ((t == ctl || t[-1] == ' ') && strchr(" \n", t[l]))
					c->v2_has[k] = true;
			}
		}
		free(ctl);
		break;
	}
}

/* The mount showing cgroup PATH of a version-V hierarchy holding
 * CONTROLLER (v1; NULL for v2), and PATH's directory there. */
static bool dir_of(const struct trace_cgroups *c, int v, const char *controller, const char *path,
		   char *dir, size_t len)
{
	for (int i = 0; i < c->nmounts; i++) {
		const struct trace_cg_mount *m = &c->mounts[i];
		if (m->version != v || (controller && !has_token(m->controllers, controller)))
			continue;
		/* a mount of a cgroup below the root (a namespace's) shows
		 * only what is below it */
		size_t rl = strcmp(m->root, "/") ? strlen(m->root) : 0;
		if (rl && (strncmp(path, m->root, rl) || (path[rl] && path[rl] != '/')))
			continue;
		const char *rest = path + rl;
		int n = snprintf(dir, len, "%s%s", m->target, strcmp(rest, "/") ? rest : "");
		return n > 0 && (size_t)n < len;
	}
	return false;
}

static struct trace_cgroup *find(struct trace_cgroups *c, int kind, const char *dir)
{
	for (int i = 0; i < c->ncg; i++)
		if (c->cg[i].kind == kind && !strcmp(c->cg[i].dir, dir))
			return &c->cg[i];
	return NULL;
}

static int count_kind(const struct trace_cgroups *c, int kind)
{
	int n = 0;
	for (int i = 0; i < c->ncg; i++)
		n += c->cg[i].kind == kind;
	return n;
}

/* Add cgroup PATH of KIND (a traced process's, or one of its ancestors
 * that then only counts with a limit), read now. */
static void add_cgroup(struct trace_cgroups *c, int kind, int v, const char *path, bool traced)
{
	char dir[sizeof c->cg[0].dir];
	struct trace_cgroup *g;

	if (!dir_of(c, v, v == 1 ? v1_controllers[kind] : NULL, path, dir, sizeof dir))
		return;
	if ((g = find(c, kind, dir))) {
		g->traced |= traced;
		return;
	}
	if (count_kind(c, kind) >= TRACE_CG_MAX)
		return;
	g = &c->cg[c->ncg];
	memset(g, 0, sizeof *g);
	g->kind = kind;
	g->version = v;
	g->traced = traced;
	snprintf(g->path, sizeof g->path, "%s", path);
	snprintf(g->dir, sizeof g->dir, "%s", dir);
	read_cgroup(c->root, g);
	if (traced || trace_cgroup_limited(g))
		c->ncg++;
}

/* PATH and its ancestors up to the hierarchy's root: a limit anywhere above
 * holds the processes too. */
static void add_with_ancestors(struct trace_cgroups *c, int kind, int v, const char *path)
{
	char up[sizeof c->cg[0].path];

	add_cgroup(c, kind, v, path, true);
	snprintf(up, sizeof up, "%s", path);
	for (char *slash; strcmp(up, "/") && (slash = strrchr(up, '/'));) {
		slash[slash == up] = '\0'; /* "/a/b" -> "/a" -> "/" */
		add_cgroup(c, kind, v, up, false);
	}
}

/* /proc/PID/cgroup: "ID:CONTROLLERS:PATH" per v1 hierarchy, "0::PATH" for v2. */
static void add_process(struct trace_cgroups *c, pid_t pid)
{
	char name[64];
	snprintf(name, sizeof name, "/proc/%d/cgroup", (int)pid);
	char *buf = slurp(c->root, NULL, name);
	char v2path[sizeof c->cg[0].path] = "";
	bool v1[TRACE_CG_KINDS] = { false };

	for (char *p = buf, *eol; p && *p; p = eol + 1) {
		eol = strchrnul(p, '\n');
		bool last = !*eol;
		*eol = '\0';
		char *c1 = strchr(p, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2 && c2[1] == '/') {
			*c2 = '\0';
			if (c2 == c1 + 1) {
				snprintf(v2path, sizeof v2path, "%s", c2 + 1);
			} else {
				for (int k = 0; k < TRACE_CG_KINDS; k++)
					if (v1_controllers[k] &&
					    has_token(c1 + 1, v1_controllers[k])) {
						add_with_ancestors(c, k, 1, c2 + 1);
						v1[k] = true;
					}
			}
		}
		if (last)
			break;
	}
	free(buf);
	if (!v2path[0])
		return;
	for (int k = 0; k < TRACE_CG_PRESSURE; k++)
		if (!v1[k] && c->v2_has[k])
			add_with_ancestors(c, k, 2, v2path);
	/* the root's pressure is the system's, already there */
	if (strcmp(v2path, "/"))
		add_cgroup(c, TRACE_CG_PRESSURE, 2, v2path, true);
}

static void read_system(struct trace_cgroups *c, struct trace_psi_total *t)
{
	for (int i = 0; i < TRACE_PSI_COUNT; i++) {
		char name[32];
		snprintf(name, sizeof name, "/proc/pressure/%s", psi_names[i]);
		t[i] = read_psi(c->root, NULL, name);
	}
}

void trace_cgroups_begin(struct trace_cgroups *c, const char *root, const pid_t *pids, int n)
{
	memset(c, 0, sizeof *c);
	snprintf(c->root, sizeof c->root, "%s", root ? root : "");
	read_mounts(c);
	for (int i = 0; i < n; i++)
		add_process(c, pids[i]);
	read_system(c, c->system);
}

void trace_cgroups_add_pid(struct trace_cgroups *c, pid_t pid)
{
	if (!c->ended)
		add_process(c, pid);
}

/* END less START, unknown if either is or the counter went back (the
 * cgroup was removed and made again). */
static uint64_t delta(uint64_t start, uint64_t end)
{
	if (start == TRACE_CG_UNKNOWN || end == TRACE_CG_UNKNOWN || end < start)
		return TRACE_CG_UNKNOWN;
	return end - start;
}

static void psi_delta(struct trace_psi_total *s, const struct trace_psi_total *e)
{
	s->some_us = delta(s->some_us, e->some_us);
	s->full_us = delta(s->full_us, e->full_us);
}

/* A device's counters: one that had no I/O at the start had no line, its
 * counters were zero then. */
static void dev_delta(struct trace_cg_dev *d, const struct trace_cg_dev *s)
{
	const struct trace_cg_dev zero = { .rios = 0, .wios = 0, .rbytes = 0, .wbytes = 0 };

	if (!s)
		s = &zero;
	d->rios = delta(s->rios, d->rios);
	d->wios = delta(s->wios, d->wios);
	d->rbytes = delta(s->rbytes, d->rbytes);
	d->wbytes = delta(s->wbytes, d->wbytes);
}

static void end_one(const char *root, struct trace_cgroup *g)
{
	struct trace_cgroup s = *g;

	read_cgroup(root, g);
	/* a cgroup removed by now: its limits were the start's */
	if (g->quota_us == TRACE_CG_UNKNOWN && g->limit_bytes == TRACE_CG_UNKNOWN && !g->ndevs &&
	    g->psi[0].some_us == TRACE_CG_UNKNOWN) {
		g->quota_us = s.quota_us;
		g->period_us = s.period_us;
		g->limit_bytes = s.limit_bytes;
		g->high_bytes = s.high_bytes;
		g->usage_bytes = s.usage_bytes;
		g->max_usage_bytes = s.max_usage_bytes;
		g->ndevs = s.ndevs;
		memcpy(g->devs, s.devs, sizeof g->devs);
		for (int i = 0; i < g->ndevs; i++)
			g->devs[i].rios = g->devs[i].wios = g->devs[i].rbytes = g->devs[i].wbytes =
				TRACE_CG_UNKNOWN;
	}
	g->nr_periods = delta(s.nr_periods, g->nr_periods);
	g->nr_throttled = delta(s.nr_throttled, g->nr_throttled);
	g->throttled_ns = delta(s.throttled_ns, g->throttled_ns);
	g->throttled_local_ns = delta(s.throttled_local_ns, g->throttled_local_ns);
	g->failcnt = delta(s.failcnt, g->failcnt);
	g->events_high = delta(s.events_high, g->events_high);
	g->events_max = delta(s.events_max, g->events_max);
	g->events_oom = delta(s.events_oom, g->events_oom);
	g->oom_kill = delta(s.oom_kill, g->oom_kill);
	g->pgscan = delta(s.pgscan, g->pgscan);
	g->pgsteal = delta(s.pgsteal, g->pgsteal);
	g->pgmajfault = delta(s.pgmajfault, g->pgmajfault);
	for (int i = 0; i < g->ndevs; i++) {
		const struct trace_cg_dev *sd = NULL;
		for (int j = 0; j < s.ndevs && !sd; j++)
			if (s.devs[j].major == g->devs[i].major && s.devs[j].minor == g->devs[i].minor)
				sd = &s.devs[j];
		dev_delta(&g->devs[i], sd);
	}
	for (int i = 0; i < TRACE_PSI_COUNT; i++) {
		struct trace_psi_total e = g->psi[i];
		g->psi[i] = s.psi[i];
		psi_delta(&g->psi[i], &e);
	}
}

void trace_cgroups_end(struct trace_cgroups *c)
{
	struct trace_psi_total now[TRACE_PSI_COUNT];

	if (c->ended)
		return;
	c->ended = true;
	for (int i = 0; i < c->ncg; i++)
		end_one(c->root, &c->cg[i]);
	read_system(c, now);
	for (int i = 0; i < TRACE_PSI_COUNT; i++)
		psi_delta(&c->system[i], &now[i]);
}

/* ---- JSON ---- */

/* null when unknown, "max" when no limit is set */
static void jw_limit(struct json_writer *w, const char *key, uint64_t v)
{
	if (v == TRACE_CG_UNKNOWN)
		jw_null(w, key);
	else if (v == TRACE_CG_NO_LIMIT)
		jw_string(w, key, "max");
	else
		jw_uint(w, key, v);
}

static void jw_count(struct json_writer *w, const char *key, uint64_t v)
{
	if (v == TRACE_CG_UNKNOWN)
		jw_null(w, key);
	else
		jw_uint(w, key, v);
}

static void json_psi(struct json_writer *w, const struct trace_psi_total *t)
{
	for (int i = 0; i < TRACE_PSI_COUNT; i++) {
		jw_object(w, psi_names[i]);
		jw_count(w, "some_us", t[i].some_us);
		jw_count(w, "full_us", t[i].full_us);
		jw_end(w);
	}
}

static void json_cgroup(struct json_writer *w, const struct trace_cgroup *g)
{
	jw_object(w, NULL);
	jw_string(w, "path", g->path);
	jw_string(w, "dir", g->dir);
	jw_int(w, "version", g->version);
	jw_bool(w, "traced", g->traced);
	switch (g->kind) {
	case TRACE_CG_CPU:
		jw_limit(w, "quota_us", g->quota_us);
		jw_limit(w, "period_us", g->period_us);
		jw_count(w, "nr_periods", g->nr_periods);
		jw_count(w, "nr_throttled", g->nr_throttled);
		jw_count(w, "throttled_ns", g->throttled_ns);
		jw_count(w, "throttled_local_ns", g->throttled_local_ns);
		break;
	case TRACE_CG_MEMORY:
		jw_limit(w, "limit_bytes", g->limit_bytes);
		jw_limit(w, "high_bytes", g->high_bytes);
		jw_count(w, "usage_bytes", g->usage_bytes);
		jw_count(w, "max_usage_bytes", g->max_usage_bytes);
		jw_count(w, "failcnt", g->failcnt);
		jw_count(w, "events_high", g->events_high);
		jw_count(w, "events_max", g->events_max);
		jw_count(w, "events_oom", g->events_oom);
		jw_count(w, "oom_kill", g->oom_kill);
		jw_count(w, "pgscan", g->pgscan);
		jw_count(w, "pgsteal", g->pgsteal);
		jw_count(w, "pgmajfault", g->pgmajfault);
		break;
	case TRACE_CG_IO:
		jw_array(w, "devices");
		for (int i = 0; i < g->ndevs; i++) {
			const struct trace_cg_dev *d = &g->devs[i];
			char dev[32];
			snprintf(dev, sizeof dev, "%u:%u", d->major, d->minor);
			jw_object(w, NULL);
			jw_string(w, "dev", dev);
			jw_limit(w, "rbps", d->rbps);
			jw_limit(w, "wbps", d->wbps);
			jw_limit(w, "riops", d->riops);
			jw_limit(w, "wiops", d->wiops);
			jw_count(w, "rios", d->rios);
			jw_count(w, "wios", d->wios);
			jw_count(w, "rbytes", d->rbytes);
			jw_count(w, "wbytes", d->wbytes);
			jw_end(w);
		}
		jw_end(w);
		break;
	default: json_psi(w, g->psi);
	}
	jw_end(w);
}

void trace_cgroups_json(struct json_writer *w, const struct trace_cgroups *c)
{
	jw_object(w, "cgroups");
	jw_object(w, "system_pressure");
	json_psi(w, c->system);
	jw_end(w);
	for (int k = 0; k < TRACE_CG_KINDS; k++) {
		jw_array(w, kind_names[k]);
		for (int i = 0; i < c->ncg; i++)
			if (c->cg[i].kind == k)
				json_cgroup(w, &c->cg[i]);
		jw_end(w);
	}
	jw_end(w);
}

/* ---- text ---- */

static void text_cpu(FILE *f, const struct trace_cgroup *g)
{
	char b[32];

	fprintf(f, "  cpu %s: ", g->dir);
	if (limit_set(g->quota_us) && limit_set(g->period_us) && g->period_us)
		fprintf(f, "quota %.0f%% of a CPU (cfs_quota_us %" PRIu64 " / period %" PRIu64 ")",
			100.0 * (double)g->quota_us / (double)g->period_us, g->quota_us,
			g->period_us);
	else
		fprintf(f, "no quota");
	if (counted(g->nr_throttled))
		fprintf(f, ", throttled %" PRIu64 " of %" PRIu64 " periods, %s", g->nr_throttled,
			g->nr_periods == TRACE_CG_UNKNOWN ? 0 : g->nr_periods,
			trace_fmt_ns(
				(double)(g->throttled_ns == TRACE_CG_UNKNOWN ? 0 : g->throttled_ns),
				b, sizeof b));
	else if (counted(g->throttled_local_ns))
		fprintf(f, ", its tasks throttled %s (by an ancestor)",
			trace_fmt_ns((double)g->throttled_local_ns, b, sizeof b));
	else if (limit_set(g->quota_us))
		fprintf(f, ", not throttled");
	fputc('\n', f);
}

static void text_memory(FILE *f, const struct trace_cgroup *g)
{
	char b1[32], b2[32];

	fprintf(f, "  memory %s: ", g->dir);
	if (limit_set(g->limit_bytes))
		fprintf(f, "limit %s", units_format_bytes(g->limit_bytes, b1, sizeof b1));
	else
		fprintf(f, "no limit");
	if (limit_set(g->high_bytes))
		fprintf(f, ", high %s", units_format_bytes(g->high_bytes, b1, sizeof b1));
	if (g->usage_bytes != TRACE_CG_UNKNOWN)
		fprintf(f, ", usage %s", units_format_bytes(g->usage_bytes, b1, sizeof b1));
	if (g->max_usage_bytes != TRACE_CG_UNKNOWN)
		fprintf(f, " (max %s)", units_format_bytes(g->max_usage_bytes, b2, sizeof b2));
	if (counted(g->failcnt))
		fprintf(f, ", %" PRIu64 " failed charges", g->failcnt);
	if (counted(g->events_high) || counted(g->events_max))
		fprintf(f, ", %" PRIu64 " high and %" PRIu64 " max events",
			counted(g->events_high) ? g->events_high : 0,
			counted(g->events_max) ? g->events_max : 0);
	if (counted(g->pgscan))
		fprintf(f, ", %" PRIu64 " pages scanned, %" PRIu64 " reclaimed", g->pgscan,
			counted(g->pgsteal) ? g->pgsteal : 0);
	if (counted(g->pgmajfault))
		fprintf(f, ", %" PRIu64 " major faults", g->pgmajfault);
	if (counted(g->oom_kill))
		fprintf(f, ", %" PRIu64 " OOM kills", g->oom_kill);
	fputc('\n', f);
}

static void text_limit(FILE *f, const char *what, uint64_t v, bool bytes)
{
	char b[32];

	if (!limit_set(v))
		return;
	if (bytes)
		fprintf(f, " %s %s/s", what, units_format_bytes(v, b, sizeof b));
	else
		fprintf(f, " %s %" PRIu64 " IOPS", what, v);
}

static void text_io(FILE *f, const struct trace_cgroup *g)
{
	fprintf(f, "  io %s:", g->dir);
	for (int i = 0; i < g->ndevs; i++) {
		const struct trace_cg_dev *d = &g->devs[i];
		if (!limit_set(d->rbps) && !limit_set(d->wbps) && !limit_set(d->riops) &&
		    !limit_set(d->wiops))
			continue;
		fprintf(f, " %u:%u", d->major, d->minor);
		text_limit(f, "read", d->riops, false);
		text_limit(f, "write", d->wiops, false);
		text_limit(f, "read", d->rbps, true);
		text_limit(f, "write", d->wbps, true);
		if (d->rios != TRACE_CG_UNKNOWN && d->wios != TRACE_CG_UNKNOWN)
			fprintf(f, " (%" PRIu64 " reads, %" PRIu64 " writes while tracing)",
				d->rios, d->wios);
		fputc(i + 1 < g->ndevs ? ';' : ' ', f);
	}
	fputc('\n', f);
}

static void text_psi(FILE *f, const struct trace_psi_total *t)
{
	char b1[32], b2[32];

	for (int i = 0; i < TRACE_PSI_COUNT; i++) {
		fprintf(f, "%s %s", i ? "," : "", psi_names[i]);
		if (t[i].some_us == TRACE_CG_UNKNOWN) {
			fprintf(f, " unknown");
			continue;
		}
		fprintf(f, " some %s", trace_fmt_ns(1e3 * (double)t[i].some_us, b1, sizeof b1));
		if (t[i].full_us != TRACE_CG_UNKNOWN)
			fprintf(f, " full %s",
				trace_fmt_ns(1e3 * (double)t[i].full_us, b2, sizeof b2));
	}
	fputc('\n', f);
}

void trace_cgroups_text(FILE *f, const struct trace_cgroups *c)
{
	int shown = 0;

	fprintf(f, "\nCgroups (limits, and what they did while tracing)\n");
	for (int k = 0; k < TRACE_CG_PRESSURE; k++)
		for (int i = 0; i < c->ncg; i++) {
			const struct trace_cgroup *g = &c->cg[i];
			if (g->kind != k || (!trace_cgroup_limited(g) && !trace_cgroup_acted(g)))
				continue;
			shown++;
			if (k == TRACE_CG_CPU)
				text_cpu(f, g);
			else if (k == TRACE_CG_MEMORY)
				text_memory(f, g);
			else
				text_io(f, g);
		}
	if (!shown)
		fprintf(f, "  no limits on the traced processes' cgroups\n");
	for (int i = 0; i < c->ncg; i++)
		if (c->cg[i].kind == TRACE_CG_PRESSURE) {
			fprintf(f, "  pressure stalls in %s:", c->cg[i].path);
			text_psi(f, c->cg[i].psi);
		}
	fprintf(f, "  pressure stalls, system-wide:");
	text_psi(f, c->system);
}
