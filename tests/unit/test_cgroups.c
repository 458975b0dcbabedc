// SPDX-License-Identifier: GPL-3.0-or-later
/* The cgroups of --trace (trace/cgroups.c) on fixture trees: a fake /proc
 * and cgroup mounts in a temporary directory, the files changed between
 * the start and the end as the kernel would change them. */
#include <criterion/criterion.h>
#include "lib/json.h"
#include "trace/cgroups.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];
static struct trace_cgroups cg;

static void make_root(void)
{
	snprintf(root, sizeof root, "/tmp/adaptrm-cgroups.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void remove_root(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ROOT/REL holds TEXT, its directories made as needed. */
static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static const struct trace_cgroup *get(int kind, const char *path)
{
	for (int i = 0; i < cg.ncg; i++)
		if (cg.cg[i].kind == kind && !strcmp(cg.cg[i].path, path))
			return &cg.cg[i];
	return NULL;
}

static int count(int kind)
{
	int n = 0;
	for (int i = 0; i < cg.ncg; i++)
		n += cg.cg[i].kind == kind;
	return n;
}

/* v1 as Debian mounts it with cpu and cpuacct together, and an empty
 * unified hierarchy beside it. */
static void v1_fixture(void)
{
	make_root();
	put("proc/self/mountinfo",
	    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:2 - cgroup cgroup "
	    "rw,cpu,cpuacct\n"
	    "33 31 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	    "38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
	    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
	put("proc/100/cgroup", "5:cpuset:/\n4:memory:/m\n3:cpu,cpuacct:/x\n7:blkio:/\n"
			       "0::/user.slice\n");
	put("sys/fs/cgroup/unified/cgroup.controllers", "\n");
	put("sys/fs/cgroup/unified/user.slice/cpu.pressure",
	    "some avg10=0.00 avg60=0.00 avg300=0.00 total=500\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=100\n");
	put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	put("sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_quota_us", "20000\n");
	put("sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_period_us", "100000\n");
	put("sys/fs/cgroup/cpu,cpuacct/x/cpu.stat",
	    "nr_periods 10\nnr_throttled 4\nthrottled_time 1000000\nnr_bursts 0\nburst_time 0\n");
	put("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	put("sys/fs/cgroup/memory/m/memory.limit_in_bytes", "9223372036854771712\n");
	put("sys/fs/cgroup/memory/m/memory.usage_in_bytes", "1048576\n");
	put("sys/fs/cgroup/memory/m/memory.failcnt", "3\n");
	put("sys/fs/cgroup/memory/m/memory.stat",
	    "cache 0\npgmajfault 1\ntotal_pgpgin 5\ntotal_pgmajfault 7\n");
	put("sys/fs/cgroup/blkio/blkio.throttle.read_iops_device", "7:0 400\n8:0 100\n");
	put("sys/fs/cgroup/blkio/blkio.throttle.write_iops_device", "8:16 50\n");
	put("sys/fs/cgroup/blkio/blkio.throttle.read_bps_device", "");
	put("sys/fs/cgroup/blkio/blkio.throttle.write_bps_device", "7:0 1048576\n");
	put("sys/fs/cgroup/blkio/blkio.throttle.io_serviced",
	    "7:0 Read 10\n7:0 Write 5\n7:0 Sync 15\n7:0 Async 0\n7:0 Discard 0\n7:0 Total 15\n"
	    "Total 15\n");
	put("proc/pressure/cpu", "some avg10=1.00 avg60=0.50 avg300=0.10 total=1000\n"
				 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	put("proc/pressure/io", "some avg10=0.00 avg60=0.00 avg300=0.00 total=200\n"
				"full avg10=0.00 avg60=0.00 avg300=0.00 total=100\n");
	put("proc/pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
}

/* What the kernel counted meanwhile. */
static void v1_later(void)
{
	put("sys/fs/cgroup/cpu,cpuacct/x/cpu.stat",
	    "nr_periods 30\nnr_throttled 16\nthrottled_time 3101000000\nnr_bursts 0\n"
	    "burst_time 0\n");
	put("sys/fs/cgroup/memory/m/memory.failcnt", "5\n");
	put("sys/fs/cgroup/memory/m/memory.stat",
	    "cache 0\npgmajfault 1\ntotal_pgpgin 5\ntotal_pgmajfault 9\n");
	put("sys/fs/cgroup/blkio/blkio.throttle.io_serviced",
	    "7:0 Read 110\n7:0 Write 5\n7:0 Total 115\n8:32 Read 3\n8:32 Write 0\nTotal 118\n");
	put("sys/fs/cgroup/unified/user.slice/cpu.pressure",
	    "some avg10=0.00 avg60=0.00 avg300=0.00 total=800\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=150\n");
	put("proc/pressure/cpu", "some avg10=1.00 avg60=0.50 avg300=0.10 total=2500\n"
				 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	put("proc/pressure/io", "some avg10=0.00 avg60=0.00 avg300=0.00 total=250\n"
				"full avg10=0.00 avg60=0.00 avg300=0.00 total=130\n");
}

static void v1_traced(void)
{
	pid_t pid = 100;
	v1_fixture();
	trace_cgroups_begin(&cg, root, &pid, 1);
	v1_later();
	trace_cgroups_end(&cg);
}

Test(cgroups, v1_comounted_quota_and_throttling_deltas, .fini = remove_root)
{
	v1_traced();
	const struct trace_cgroup *g = get(TRACE_CG_CPU, "/x");
	cr_assert_not_null(g);
	cr_assert_str_eq(g->dir, "/sys/fs/cgroup/cpu,cpuacct/x");
	cr_assert_eq(g->version, 1);
	cr_assert(g->traced);
	cr_assert_eq(g->quota_us, 20000);
	cr_assert_eq(g->period_us, 100000);
	cr_assert_eq(g->nr_periods, 20);
	cr_assert_eq(g->nr_throttled, 12);
	cr_assert_eq(g->throttled_ns, 3100000000ull);
	/* no cpu.stat.local on older kernels */
	cr_assert_eq(g->throttled_local_ns, TRACE_CG_UNKNOWN);
	cr_assert(trace_cgroup_limited(g));
	cr_assert(trace_cgroup_acted(g));
	/* the root has no quota: not an entry */
	cr_assert_eq(count(TRACE_CG_CPU), 1);
}

Test(cgroups, v1_memory_no_limit_and_counters, .fini = remove_root)
{
	v1_traced();
	const struct trace_cgroup *g = get(TRACE_CG_MEMORY, "/m");
	cr_assert_not_null(g);
	cr_assert_eq(g->limit_bytes, TRACE_CG_NO_LIMIT);
	cr_assert_eq(g->high_bytes, TRACE_CG_UNKNOWN);
	cr_assert_eq(g->usage_bytes, 1048576);
	cr_assert_eq(g->max_usage_bytes, TRACE_CG_UNKNOWN);
	cr_assert_eq(g->failcnt, 2);
	cr_assert_eq(g->pgmajfault, 2, "total_pgmajfault, not the local pgmajfault");
	cr_assert_eq(g->pgscan, TRACE_CG_UNKNOWN, "v1 memory.stat has no pgscan");
	cr_assert_not(trace_cgroup_limited(g));
	cr_assert(trace_cgroup_acted(g), "failed charges");
}

Test(cgroups, v1_blkio_throttle_lines_of_several_devices, .fini = remove_root)
{
	v1_traced();
	const struct trace_cgroup *g = get(TRACE_CG_IO, "/");
	cr_assert_not_null(g);
	cr_assert_str_eq(g->dir, "/sys/fs/cgroup/blkio");
	cr_assert_eq(g->ndevs, 4);
	const struct trace_cg_dev *d = &g->devs[0];
	cr_assert_eq(d->major, 7);
	cr_assert_eq(d->minor, 0);
	cr_assert_eq(d->riops, 400);
	cr_assert_eq(d->wiops, TRACE_CG_NO_LIMIT);
	cr_assert_eq(d->rbps, TRACE_CG_NO_LIMIT);
	cr_assert_eq(d->wbps, 1048576);
	cr_assert_eq(d->rios, 100);
	cr_assert_eq(d->wios, 0);
	cr_assert_eq(d->rbytes, TRACE_CG_UNKNOWN, "no io_service_bytes file");
	cr_assert_eq(g->devs[1].major, 8);
	cr_assert_eq(g->devs[1].minor, 0);
	cr_assert_eq(g->devs[1].riops, 100);
	cr_assert_eq(g->devs[1].rios, TRACE_CG_UNKNOWN, "no line at either end");
	cr_assert_eq(g->devs[2].minor, 16);
	cr_assert_eq(g->devs[2].wiops, 50);
	/* a device with no I/O at the start had no line: it started at zero */
	cr_assert_eq(g->devs[3].minor, 32);
	cr_assert_eq(g->devs[3].rios, 3);
	cr_assert(trace_cgroup_limited(g));
}

Test(cgroups, psi_system_and_v2_cgroup_deltas, .fini = remove_root)
{
	v1_traced();
	cr_assert_eq(cg.system[TRACE_PSI_CPU].some_us, 1500);
	cr_assert_eq(cg.system[TRACE_PSI_CPU].full_us, 0);
	cr_assert_eq(cg.system[TRACE_PSI_IO].some_us, 50);
	cr_assert_eq(cg.system[TRACE_PSI_IO].full_us, 30);
	cr_assert_eq(cg.system[TRACE_PSI_MEMORY].some_us, 0);
	/* the controllers are all on v1: the v2 cgroup is there for its pressure */
	cr_assert_eq(count(TRACE_CG_PRESSURE), 1);
	const struct trace_cgroup *g = get(TRACE_CG_PRESSURE, "/user.slice");
	cr_assert_not_null(g);
	cr_assert_str_eq(g->dir, "/sys/fs/cgroup/unified/user.slice");
	cr_assert_eq(g->psi[TRACE_PSI_CPU].some_us, 300);
	cr_assert_eq(g->psi[TRACE_PSI_CPU].full_us, 50);
	cr_assert_eq(g->psi[TRACE_PSI_IO].some_us, TRACE_CG_UNKNOWN);
}

/* A pure v2 system: one directory for every controller. */
static void v2_fixture(void)
{
	make_root();
	put("proc/self/mountinfo",
	    "25 1 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec shared:9 - cgroup2 cgroup2 "
	    "rw,nsdelegate,memory_recursiveprot\n");
	put("proc/200/cgroup", "0::/a/b\n");
	put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
	put("sys/fs/cgroup/a/cpu.max", "50000 100000\n");
	put("sys/fs/cgroup/a/memory.max", "max\n");
	put("sys/fs/cgroup/a/b/cpu.max", "max 100000\n");
	put("sys/fs/cgroup/a/b/cpu.stat", "usage_usec 100\nuser_usec 50\nsystem_usec 50\n"
					  "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n");
	put("sys/fs/cgroup/a/b/cpu.stat.local", "throttled_usec 5\n");
	put("sys/fs/cgroup/a/b/memory.max", "max\n");
	put("sys/fs/cgroup/a/b/memory.high", "1073741824\n");
	put("sys/fs/cgroup/a/b/memory.current", "4096\n");
	put("sys/fs/cgroup/a/b/memory.events", "low 0\nhigh 1\nmax 2\noom 0\noom_kill 0\n"
					       "oom_group_kill 0\n");
	put("sys/fs/cgroup/a/b/memory.stat",
	    "anon 0\npgscan_kswapd 99\npgscan 10\npgsteal 8\npgmajfault 1\n");
	put("sys/fs/cgroup/a/b/io.max",
	    "8:0 rbps=1048576 wbps=max riops=max wiops=120\n259:0 rbps=max wbps=max riops=1000 "
	    "wiops=max\n");
	put("sys/fs/cgroup/a/b/io.stat", "8:0 rbytes=100 wbytes=200 rios=3 wios=4 dbytes=0 "
					 "dios=0\n");
	put("sys/fs/cgroup/a/b/io.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n"
					     "full avg10=0.00 avg60=0.00 avg300=0.00 total=3\n");
}

static void v2_traced(void)
{
	pid_t pid = 200;
	v2_fixture();
	trace_cgroups_begin(&cg, root, &pid, 1);
	put("sys/fs/cgroup/a/b/cpu.stat.local", "throttled_usec 9\n");
	put("sys/fs/cgroup/a/b/memory.events", "low 0\nhigh 4\nmax 2\noom 0\noom_kill 0\n");
	put("sys/fs/cgroup/a/b/memory.stat", "pgscan 110\npgsteal 58\npgmajfault 1\n");
	put("sys/fs/cgroup/a/b/io.stat", "8:0 rbytes=4196 wbytes=200 rios=4 wios=4\n");
	put("sys/fs/cgroup/a/b/io.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=17\n"
					     "full avg10=0.00 avg60=0.00 avg300=0.00 total=3\n");
	trace_cgroups_end(&cg);
}

Test(cgroups, v2_cpu_max_max_is_no_limit_and_the_ancestors_quota, .fini = remove_root)
{
	v2_traced();
	const struct trace_cgroup *g = get(TRACE_CG_CPU, "/a/b");
	cr_assert_not_null(g);
	cr_assert_str_eq(g->dir, "/sys/fs/cgroup/a/b");
	cr_assert_eq(g->version, 2);
	cr_assert_eq(g->quota_us, TRACE_CG_NO_LIMIT);
	cr_assert_eq(g->period_us, 100000);
	cr_assert_eq(g->nr_throttled, 0);
	cr_assert_eq(g->throttled_local_ns, 4000, "throttled_usec in ns");
	cr_assert_not(trace_cgroup_limited(g));
	cr_assert(trace_cgroup_acted(g));
	/* /a holds the quota that throttles /a/b; the root has no cpu.max */
	const struct trace_cgroup *a = get(TRACE_CG_CPU, "/a");
	cr_assert_not_null(a);
	cr_assert_not(a->traced);
	cr_assert_eq(a->quota_us, 50000);
	cr_assert_eq(count(TRACE_CG_CPU), 2);
	cr_assert_null(get(TRACE_CG_MEMORY, "/a"), "no memory limit above");
}

Test(cgroups, v2_memory_events_and_stat, .fini = remove_root)
{
	v2_traced();
	const struct trace_cgroup *g = get(TRACE_CG_MEMORY, "/a/b");
	cr_assert_not_null(g);
	cr_assert_eq(g->limit_bytes, TRACE_CG_NO_LIMIT);
	cr_assert_eq(g->high_bytes, 1073741824);
	cr_assert_eq(g->usage_bytes, 4096);
	cr_assert_eq(g->events_high, 3);
	cr_assert_eq(g->events_max, 0);
	cr_assert_eq(g->pgscan, 100, "pgscan, not pgscan_kswapd");
	cr_assert_eq(g->pgsteal, 50);
	cr_assert_eq(g->failcnt, TRACE_CG_UNKNOWN);
	cr_assert(trace_cgroup_limited(g), "memory.high is a limit");
}

Test(cgroups, v2_io_max_and_io_stat, .fini = remove_root)
{
	v2_traced();
	const struct trace_cgroup *g = get(TRACE_CG_IO, "/a/b");
	cr_assert_not_null(g);
	cr_assert_eq(g->ndevs, 2);
	cr_assert_eq(g->devs[0].major, 8);
	cr_assert_eq(g->devs[0].rbps, 1048576);
	cr_assert_eq(g->devs[0].wbps, TRACE_CG_NO_LIMIT);
	cr_assert_eq(g->devs[0].riops, TRACE_CG_NO_LIMIT);
	cr_assert_eq(g->devs[0].wiops, 120);
	cr_assert_eq(g->devs[0].rios, 1);
	cr_assert_eq(g->devs[0].rbytes, 4096);
	cr_assert_eq(g->devs[0].wios, 0);
	cr_assert_eq(g->devs[1].major, 259);
	cr_assert_eq(g->devs[1].riops, 1000);
	/* the pressure of the cgroup itself, next to the system's (absent here) */
	const struct trace_cgroup *p = get(TRACE_CG_PRESSURE, "/a/b");
	cr_assert_not_null(p);
	cr_assert_eq(p->psi[TRACE_PSI_IO].some_us, 10);
	cr_assert_eq(p->psi[TRACE_PSI_IO].full_us, 0);
	cr_assert_eq(cg.system[TRACE_PSI_CPU].some_us, TRACE_CG_UNKNOWN);
}

/* A controller that is not mounted, a process without a cgroup file, a
 * file missing: unknown fields, no entries, not errors. */
Test(cgroups, missing_files_are_unknown, .fini = remove_root)
{
	pid_t pids[2] = { 300, 301 };
	make_root();
	put("proc/self/mountinfo", "32 31 0:29 / /cg/cpu rw - cgroup cgroup rw,cpu,cpuacct\n");
	put("proc/300/cgroup", "4:memory:/m\n3:cpu,cpuacct:/x\n7:blkio:/\n0::/\n");
	put("cg/cpu/x/cpu.cfs_quota_us", "20000\n");
	trace_cgroups_begin(&cg, root, pids, 2);
	trace_cgroups_end(&cg);
	cr_assert_eq(cg.ncg, 1);
	const struct trace_cgroup *g = get(TRACE_CG_CPU, "/x");
	cr_assert_not_null(g);
	cr_assert_eq(g->quota_us, 20000);
	cr_assert_eq(g->period_us, TRACE_CG_UNKNOWN);
	cr_assert_eq(g->nr_throttled, TRACE_CG_UNKNOWN);
	cr_assert_not(trace_cgroup_acted(g));
	for (int i = 0; i < TRACE_PSI_COUNT; i++)
		cr_assert_eq(cg.system[i].some_us, TRACE_CG_UNKNOWN);
}

/* A cgroup namespace's mount shows its own cgroup at the mount point. */
Test(cgroups, mount_of_a_cgroup_below_the_root, .fini = remove_root)
{
	pid_t pid = 400;
	make_root();
	put("proc/self/mountinfo",
	    "32 31 0:29 /ns /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
	    "33 31 0:29 /nsx /sys/fs/cgroup/other rw - cgroup cgroup rw,cpu\n");
	put("proc/400/cgroup", "3:cpu:/ns/y\n");
	put("sys/fs/cgroup/cpu/y/cpu.cfs_quota_us", "-1\n");
	trace_cgroups_begin(&cg, root, &pid, 1);
	trace_cgroups_end(&cg);
	const struct trace_cgroup *g = get(TRACE_CG_CPU, "/ns/y");
	cr_assert_not_null(g);
	cr_assert_str_eq(g->dir, "/sys/fs/cgroup/cpu/y");
	cr_assert_eq(g->quota_us, TRACE_CG_NO_LIMIT);
}

static char *render(void (*fn)(FILE *, size_t *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(f, &len);
	fclose(f);
	return buf;
}

static void json_of_cg(FILE *f, size_t *len)
{
	struct json_writer w;
	jw_init(&w, f);
	jw_object(&w, NULL);
	trace_cgroups_json(&w, &cg);
	jw_finish(&w);
}

static void text_of_cg(FILE *f, size_t *len)
{
	trace_cgroups_text(f, &cg);
}

Test(cgroups, json_fields, .fini = remove_root)
{
	v1_traced();
	char *text = render(json_of_cg), err[128];
	struct json_value *v = json_parse(text, err, sizeof err);
	cr_assert_not_null(v, "%s: %s", err, text);
	const struct json_value *c = json_get(v, "cgroups");
	const struct json_value *cpu = json_get(c, "cpu");
	cr_assert_eq(cpu->type, JSON_ARRAY);
	cr_assert_eq(cpu->n, 1);
	cr_assert_str_eq(json_get_str(cpu->items[0], "dir", ""), "/sys/fs/cgroup/cpu,cpuacct/x");
	cr_assert_eq(json_get_uint(cpu->items[0], "quota_us", 0), 20000);
	cr_assert_eq(json_get_uint(cpu->items[0], "nr_throttled", 0), 12);
	cr_assert_eq(json_get(cpu->items[0], "throttled_local_ns")->type, JSON_NULL);
	const struct json_value *mem = json_get(c, "memory")->items[0];
	cr_assert_str_eq(json_get_str(mem, "limit_bytes", ""), "max");
	const struct json_value *dev = json_get(json_get(c, "io")->items[0], "devices")->items[0];
	cr_assert_str_eq(json_get_str(dev, "dev", ""), "7:0");
	cr_assert_eq(json_get_uint(dev, "riops", 0), 400);
	const struct json_value *psi = json_get(json_get(c, "system_pressure"), "cpu");
	cr_assert_eq(json_get_uint(psi, "some_us", 0), 1500);
	json_free(v);
	free(text);
}

Test(cgroups, text_names_the_quota_and_the_throttling, .fini = remove_root)
{
	v1_traced();
	char *text = render(text_of_cg);
	cr_assert(strstr(text, "cpu /sys/fs/cgroup/cpu,cpuacct/x: quota 20% of a CPU "
			       "(cfs_quota_us 20000 / period 100000), throttled 12 of 20 periods, "
			       "3.10 s\n"),
		  "%s", text);
	cr_assert(strstr(text, "io /sys/fs/cgroup/blkio: 7:0 read 400 IOPS"), "%s", text);
	/* the memory cgroup has no limit, but failed charges: shown */
	cr_assert(strstr(text, "memory /sys/fs/cgroup/memory/m: no limit"), "%s", text);
	cr_assert_null(strstr(text, "no limits"), "%s", text);
	free(text);
}

Test(cgroups, text_without_limits_is_one_line, .fini = remove_root)
{
	pid_t pid = 500;
	make_root();
	put("proc/self/mountinfo", "32 31 0:29 / /cg/cpu rw - cgroup cgroup rw,cpu\n");
	put("proc/500/cgroup", "3:cpu:/\n");
	put("cg/cpu/cpu.cfs_quota_us", "-1\n");
	trace_cgroups_begin(&cg, root, &pid, 1);
	trace_cgroups_end(&cg);
	char *text = render(text_of_cg);
	cr_assert(strstr(text, "\n  no limits on the traced processes' cgroups\n"), "%s", text);
	free(text);
}
