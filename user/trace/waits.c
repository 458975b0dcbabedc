// SPDX-License-Identifier: GPL-3.0-or-later
/* Wait sites, their causes, and the devices of the delete (waits.h). */
#include "trace/waits.h"
#include "lib/xalloc.h"
#include "probes/ksyms.h"
#include "probes/probes.h"
#include "probes/subsys.h"
#include "trace/result.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *trace_cause_id(int c)
{
	return wait_cause_id(c);
}

const char *trace_cause_name(int c)
{
	return wait_cause_name(c);
}

int trace_classify(const char *const *frames, int n, int *site, const char **lock, bool *space)
{
	return wait_classify(frames, n, site, lock, space);
}

int trace_caller_cause(const char *caller, unsigned flags)
{
	return wait_caller_cause(caller, flags);
}

/* ---- the device scope ---- */

struct mount_ent {
	unsigned maj, min; /* st_dev of the mount */
	uint32_t bdev;	   /* kernel dev_t of its block device, or 0 */
	bool discard;
	bool dirsync; /* mounted sync or dirsync: each directory change commits */
	char fstype[24], target[160];
};

/* "discard" or "discard=..." among comma-separated OPTS. */
static bool has_discard(const char *opts)
{
	for (const char *p = opts; p && *p;) {
		size_t l = strcspn(p, ",");
		if ((l == 7 && !strncmp(p, "discard", 7)) || !strncmp(p, "discard=", 8))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/* "sync", "dirsync" or xfs's "wsync" (synchronous namespace operations)
 * among comma-separated OPTS. */
static bool has_dirsync(const char *opts)
{
	for (const char *p = opts; p && *p;) {
		size_t l = strcspn(p, ",");
		if ((l == 4 && !strncmp(p, "sync", 4)) || (l == 7 && !strncmp(p, "dirsync", 7)) ||
		    (l == 5 && !strncmp(p, "wsync", 5)))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/* mountinfo writes a space, tab, newline or backslash in a path as \ooo. */
static bool is_odigit(char c)
{
	return c >= '0' && c <= '7';
}

static void unescape_octal(char *s)
{
	char *w = s;
	for (const char *r = s; *r; w++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && is_odigit(r[2]) && is_odigit(r[3])) {
			*w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w = *r++;
		}
	}
	*w = '\0';
}

static int read_mounts(struct mount_ent **out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	size_t ncap = 0;
	struct mount_ent *v = NULL;

	*out = NULL;
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		unsigned maj, min;
		char target[PATH_MAX], mopts[1024];
		char *dash = strstr(line, " - ");
		if (!dash ||
		    sscanf(line, "%*u %*u %u:%u %*s %4095s %1023s", &maj, &min, target, mopts) != 4)
			continue;
		char fstype[64], source[PATH_MAX], sopts[1024] = "";
		if (sscanf(dash + 3, "%63s %4095s %1023s", fstype, source, sopts) < 2)
			continue;
		if (!try_grow(&v, &ncap, (size_t)n + 1, 32))
			break;
		struct mount_ent *e = &v[n++];
		memset(e, 0, sizeof *e);
		e->maj = maj;
		e->min = min;
		struct stat st;
		if (source[0] == '/' && stat(source, &st) == 0 && S_ISBLK(st.st_mode))
			e->bdev = PROBE_MKDEV(major(st.st_rdev), minor(st.st_rdev));
		else if (maj)
			e->bdev = PROBE_MKDEV(maj, min);
		e->discard = has_discard(mopts) || has_discard(sopts);
		e->dirsync = has_dirsync(mopts) || has_dirsync(sopts);
		snprintf(e->fstype, sizeof e->fstype, "%.23s", fstype);
		unescape_octal(target);
		snprintf(e->target, sizeof e->target, "%.159s", target);
	}
	free(line);
	fclose(f);
	*out = v;
	return n;
}

static void add_traced(uint32_t *v, int *n, int max, uint32_t dev)
{
	for (int i = 0; i < *n; i++)
		if (v[i] == dev)
			return;
	if (*n < max)
		v[(*n)++] = dev;
}

/* The mount whose st_dev is DEV (kernel encoding) or whose block device is. */
static const struct mount_ent *mount_of(const struct mount_ent *m, int nm, uint32_t dev)
{
	for (int i = 0; i < nm; i++)
		if (PROBE_MKDEV(m[i].maj, m[i].min) == dev)
			return &m[i];
	for (int i = 0; i < nm; i++)
		if (m[i].bdev && m[i].bdev == dev)
			return &m[i];
	return NULL;
}

/* The mount whose mount point is the longest prefix of the absolute PATH.
 * A btrfs subvolume's files report an anonymous st_dev of their own, not
 * the mount's, so only the path finds their mount. */
static const struct mount_ent *mount_at(const struct mount_ent *m, int nm, const char *path)
{
	const struct mount_ent *best = NULL;
	size_t bl = 0;

	for (int i = 0; i < nm; i++) {
		size_t l = strlen(m[i].target);
		if (l == 1)
			l = 0; /* "/" is a prefix of every path */
		if (strncmp(path, m[i].target, l) || (path[l] != '/' && path[l] != '\0'))
			continue;
		if (!best || l >= bl) {
			best = &m[i];
			bl = l;
		}
	}
	return best;
}

/* Every device of the multi-device btrfs one of whose devices is BDEV: its
 * metadata reads go to any of them. */
static void add_btrfs_devs(uint32_t bdev, uint32_t *v, int *n, int max)
{
	DIR *fsd = opendir("/sys/fs/btrfs");
	struct dirent *f;
	uint32_t devs[64];

	if (!fsd)
		return;
	while ((f = readdir(fsd))) {
		char path[PATH_MAX];
		int nd = 0;
		bool ours = false;
		snprintf(path, sizeof path, "/sys/fs/btrfs/%s/devices", f->d_name);
		DIR *dd = f->d_name[0] == '.' ? NULL : opendir(path);
		for (struct dirent *e; dd && (e = readdir(dd)) && nd < 64;) {
			char dpath[PATH_MAX + 300], buf[32];
			unsigned maj, min;
			snprintf(dpath, sizeof dpath, "%s/%s/dev", path, e->d_name);
			FILE *df = e->d_name[0] == '.' ? NULL : fopen(dpath, "re");
			if (df && fgets(buf, sizeof buf, df) &&
			    sscanf(buf, "%u:%u", &maj, &min) == 2) {
				devs[nd] = PROBE_MKDEV(maj, min);
				ours |= devs[nd++] == bdev;
			}
			if (df)
				fclose(df);
		}
		if (dd)
			closedir(dd);
		for (int i = 0; ours && i < nd; i++)
			add_traced(v, n, max, devs[i]);
	}
	closedir(fsd);
}

/* A mount's own device and the block devices under it. */
static void add_mount_devs(const struct mount_ent *e, uint32_t *v, int *n, int max)
{
	add_traced(v, n, max, PROBE_MKDEV(e->maj, e->min));
	if (e->bdev)
		add_traced(v, n, max, e->bdev);
	if (e->bdev && !strcmp(e->fstype, "btrfs"))
		add_btrfs_devs(e->bdev, v, n, max);
}

/* The operands' filesystems (their parent directories: the operands
 * themselves are gone after the delete). */
static void operand_devs(const struct trace_result *r, const struct mount_ent *m, int nm,
			 uint32_t *v, int *n, int max)
{
	/* -p PID names a process, not a path: its devices are those it unlinks
	 * on (collect_scope), never the tracer's working directory */
	if (r->mode && !strcmp(r->mode, "pid"))
		return;
	/* argv[0] is the command, or adaptrm itself: the disk it was started
	 * from is not the delete's */
	for (char **a = r->argv ? r->argv + 1 : NULL; a && *a; a++) {
		if ((*a)[0] == '-' || !(*a)[0])
			continue;
		char buf[PATH_MAX];
		struct stat st;
		const char *at = buf;
		snprintf(buf, sizeof buf, "%s", *a);
		/* gone: its parent (for a bare name, the working directory) */
		if (lstat(buf, &st) && stat(at = dirname(buf), &st))
			continue;
		uint32_t d = PROBE_MKDEV(major(st.st_dev), minor(st.st_dev));
		add_traced(v, n, max, d);
		const struct mount_ent *e = mount_of(m, nm, d);
		char real[PATH_MAX];
		if (!e && realpath(at, real))
			e = mount_at(m, nm, real);
		if (e)
			add_mount_devs(e, v, n, max);
	}
}

static void name_dev(struct trace_dev *d, const struct mount_ent *e)
{
	char link[PATH_MAX], path[64];
	ssize_t l;

	snprintf(path, sizeof path, "/sys/dev/block/%u:%u", PROBE_DEV_MAJOR(d->dev),
		 PROBE_DEV_MINOR(d->dev));
	l = readlink(path, link, sizeof link - 1);
	const char *base = NULL;
	if (l > 0) {
		link[l] = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
	}
	char devname[64];
	if (!d->dev)
		snprintf(devname, sizeof devname, "no device (flushes)");
	else if (base)
		snprintf(devname, sizeof devname, "%.63s", base);
	else
		snprintf(devname, sizeof devname, "%u:%u", PROBE_DEV_MAJOR(d->dev),
			 PROBE_DEV_MINOR(d->dev));
	if (e)
		snprintf(d->name, sizeof d->name, "%.24s (%.12s on %.40s%s)", devname, e->fstype,
			 e->target,
			 e->discard ? ", discard" :
			 e->dirsync ? ", dirsync" :
				      "");
	else
		snprintf(d->name, sizeof d->name, "%s", devname);
}

static void collect_scope(struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	struct mount_ent *m;
	int nm = read_mounts(&m), nt = 0;
	uint32_t traced[2 * PROBE_MAX_DEVS + 16];
	int max = (int)(sizeof traced / sizeof *traced);

	/* devices of the unlinked inodes (ext4, xfs), and their block devices */
	for (uint32_t i = 0; i < s->ndevs && i < PROBE_MAX_DEVS; i++)
		if (s->devs[i].st.unlinks) {
			add_traced(traced, &nt, max, s->devs[i].dev);
			const struct mount_ent *e = mount_of(m, nm, s->devs[i].dev);
			if (e)
				add_mount_devs(e, traced, &nt, max);
		}
	operand_devs(r, m, nm, traced, &nt, max);
	r->ndevs = 0;
	for (uint32_t i = 0; i < s->ndevs && i < PROBE_MAX_DEVS; i++) {
		struct trace_dev *d = &r->devs[r->ndevs++];
		memset(d, 0, sizeof *d);
		d->dev = s->devs[i].dev;
		for (int t = 0; t < nt; t++)
			if (traced[t] == d->dev)
				d->traced = true;
		const struct mount_ent *e = mount_of(m, nm, d->dev);
		d->discard = e && e->discard;
		d->dirsync = e && e->dirsync;
		name_dev(d, e);
	}
	free(m);
}

/* ---- wait sites ---- */

/* The filesystem a stack's frames name, innermost first ("__ext4_find_entry",
 * "xfs_buf_iowait", "jbd2_log_wait_commit" for ext4), or NULL. */
static const char *frames_fs(const char *const *frames, int n)
{
	static const struct {
		const char *prefix, *fs;
	} fss[] = { { "ext4_", "ext4" }, { "jbd2_", "ext4" }, { "xfs_", "xfs" }, { "btrfs_", "btrfs" } };
	for (int i = 0; i < n; i++) {
		const char *f = frames[i] + strspn(frames[i], "_");
		for (size_t k = 0; k < sizeof fss / sizeof *fss; k++)
			if (!strncmp(f, fss[k].prefix, strlen(fss[k].prefix)))
				return fss[k].fs;
	}
	return NULL;
}

bool trace_delete_on(const struct trace_result *r, const char *fs)
{
	char key[32];
	bool any = false;
	snprintf(key, sizeof key, "(%s on ", fs);
	for (int i = 0; i < r->ndevs; i++) {
		if (!r->devs[i].traced)
			continue;
		any = true;
		if (strstr(r->devs[i].name, key))
			return true;
	}
	return !any;
}

/* FS is on none of the delete's devices, of which there is one at least: a
 * wait on another disk (the deleter's start-up reads of its binary, its
 * libraries and its profile store on the root filesystem). */
static bool other_fs(const struct trace_result *r, const char *fs)
{
	return fs && !trace_delete_on(r, fs);
}

/* The site of a wait whose stack was not kept: bpf_get_stackid's error
 * says why (both stack maps' buckets taken, or the maps full). */
static const char *no_stack_name(int stackid)
{
	return stackid == -EEXIST ? "(no stack: its stack-map buckets taken)" :
	       stackid == -ENOMEM ? "(no stack: the stack maps full)" :
				    "(no stack)";
}

static int cmp_site(const void *a, const void *b)
{
	const struct trace_wait_site *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

void trace_collect_waits(struct probes *p, struct trace_result *r)
{
	struct probe_wait_site *raw = NULL;
	int n = p ? probes_wait_sites(p, &raw) : 0;
	const struct ksyms *k = p ? probes_ksyms(p) : NULL;

	if (r->total)
		collect_scope(r);
	memset(r->wait_ns, 0, sizeof r->wait_ns);
	r->sites = n ? calloc(n, sizeof *r->sites) : NULL;
	r->nsites = 0;
	r->have_sites = n > 0;
	for (int i = 0; i < n && r->sites; i++) {
		static char names[PROBE_STACK_DEPTH][128];
		const char *frames[PROBE_STACK_DEPTH];
		int nf = 0, site;
		const char *lock;
		bool space;

		for (; nf < PROBE_STACK_DEPTH && raw[i].ips[nf]; nf++) {
			ksyms_name(k, raw[i].ips[nf], names[nf], sizeof names[nf]);
			frames[nf] = names[nf];
		}
		int cause = trace_classify(frames, nf, &site, &lock, &space);
		const char *detail = wait_detail(frames, nf, cause);
		bool in_syscall = (raw[i].ctx & (PROBE_WAIT_IN_SYSCALL | PROBE_WAIT_IN_LOCK)) ==
				  PROBE_WAIT_IN_SYSCALL;
		if (in_syscall)
			r->wait_ns[cause] += raw[i].blocked_ns;
		char sname[96];
		if (nf)
			snprintf(sname, sizeof sname, "%s", frames[site]);
		else
			snprintf(sname, sizeof sname, "%s", no_stack_name(raw[i].stackid));
		if (cause == TC_JOURNAL && space)
			strncat(sname, " (space)", sizeof sname - strlen(sname) - 1);
		int j;
		for (j = 0; j < r->nsites; j++)
			if (!strcmp(r->sites[j].site, sname) && r->sites[j].state == raw[i].state &&
			    r->sites[j].cause == cause && r->sites[j].detail == detail &&
			    r->sites[j].helper == !!(raw[i].ctx & PROBE_WAIT_HELPER))
				break;
		struct trace_wait_site *w = &r->sites[j];
		if (j == r->nsites) {
			r->nsites++;
			snprintf(w->site, sizeof w->site, "%s", sname);
			w->cause = cause;
			w->detail = detail;
			w->state = raw[i].state;
			w->helper = raw[i].ctx & PROBE_WAIT_HELPER;
			w->fs = frames_fs(frames, nf);
			w->other_fs = other_fs(r, w->fs);
			w->subsys = nf ? subsys_of_stack(frames, nf, NULL, NULL) : -1;
		}
		if (raw[i].total_ns >= w->heaviest_ns) {
			/* the frames shown are the heaviest stack's */
			w->heaviest_ns = raw[i].total_ns;
			w->lock = lock;
			w->ctx = raw[i].ctx;
			w->nstack = 0;
			for (int f = site + 1; f < nf && w->nstack < 6; f++)
				snprintf(w->stack[w->nstack++], sizeof w->stack[0], "%s", frames[f]);
		}
		w->count += raw[i].count;
		w->total_ns += raw[i].total_ns;
		w->blocked_ns += raw[i].blocked_ns;
		/* the verdict takes every wait inside a busy syscall, lock
		 * waits too, out of the syscall time it counts as on CPU */
		if (raw[i].ctx & PROBE_WAIT_IN_SYSCALL)
			w->in_syscall_ns += raw[i].blocked_ns;
	}
	if (r->nsites)
		qsort(r->sites, r->nsites, sizeof *r->sites, cmp_site);
	free(raw);
}

void trace_free_waits(struct trace_result *r)
{
	free(r->sites);
	r->sites = NULL;
	r->nsites = 0;
}
