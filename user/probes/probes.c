// SPDX-License-Identifier: GPL-3.0-or-later
/* Loading and attaching the probes of bpf/probes.bpf.c (see probes.h);
 * snapshot.c reads their counters, stacks.c their stacks. One skeleton;
 * each tracepoint has a tp_btf and a raw_tp program, and each group of
 * tracepoints attaches on its own. */
#include "probes/probes.h"
#include "lib/clock.h"
#include "lib/env.h"
#include "probes.skel.h"
#include "probes/ksyms.h"
#include "probes/mapwalk.h"
#include "probes/probes_int.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The BPF side cannot include <sys/syscall.h>: its numbers are checked here. */
_Static_assert(PROBE_NR_UNLINKAT == SYS_unlinkat, "PROBE_NR_UNLINKAT");
_Static_assert(PROBE_NR_GETDENTS64 == SYS_getdents64, "PROBE_NR_GETDENTS64");

struct tp_group {
	const char *tp;
	enum probe_group g;
};

/* Which group each tracepoint belongs to. */
static const struct tp_group tp_groups[] = {
	{ "sched_process_fork", PROBE_G_PROC },
	{ "sched_process_exit", PROBE_G_PROC },
	{ "sys_enter", PROBE_G_SYSCALLS },
	{ "sys_exit", PROBE_G_SYSCALLS },
	{ "contention_begin", PROBE_G_LOCKS },
	{ "contention_end", PROBE_G_LOCKS },
	{ "sched_switch", PROBE_G_OFFCPU },
	{ "sched_wakeup", PROBE_G_RUNQ },
	{ "sched_wakeup_new", PROBE_G_RUNQ },
	{ "sched_waking", PROBE_G_WAKERS },
	{ "irq_handler_entry", PROBE_G_WAKERS },
	{ "irq_handler_exit", PROBE_G_WAKERS },
	{ "softirq_entry", PROBE_G_WAKERS },
	{ "softirq_exit", PROBE_G_WAKERS },
	{ "hrtimer_expire_entry", PROBE_G_WAKERS },
	{ "hrtimer_expire_exit", PROBE_G_WAKERS },
	{ "ext4_unlink_enter", PROBE_G_EXT4 },
	{ "ext4_unlink_exit", PROBE_G_EXT4 },
	{ "ext4_free_blocks", PROBE_G_EXT4 },
	{ "ext4_discard_blocks", PROBE_G_EXT4 },
	{ "jbd2_run_stats", PROBE_G_JBD2 },
	{ "xfs_log_grant_sleep", PROBE_G_XFS },
	{ "xfs_log_grant_wake", PROBE_G_XFS },
	{ "xfs_inodegc_throttle", PROBE_G_XFS },
	{ "xfs_buf_submit", PROBE_G_XFS },
	{ "xfs_buf_iodone", PROBE_G_XFS },
	{ "xfs_buf_lock", PROBE_G_XFS },
	{ "xfs_buf_lock_done", PROBE_G_XFS },
	{ "xfs_inodegc_worker", PROBE_G_XFS },
	{ "workqueue_execute_end", PROBE_G_RUNQ },
	{ "workqueue_execute_start", PROBE_G_RUNQ },
	{ "btrfs_tree_lock", PROBE_G_BTRFS },
	{ "btrfs_reserve_ticket", PROBE_G_BTRFS },
	{ "block_rq_issue", PROBE_G_BLOCK },
	{ "block_rq_complete", PROBE_G_BLOCK },
	{ "xfs_inode_set_need_inactive", PROBE_G_XFS },
	{ "block_io_start", PROBE_G_BLOCK }, /* optional: tp_optional() */
};

/* Tracepoints whose group a kernel without them keeps, less their
 * programs (block_io_start came in Linux 6.5; block_rq_issue stands in). */
static bool tp_optional(const char *tp)
{
	return !strcmp(tp, "block_io_start");
}

static const char *const group_names[PROBE_G_COUNT] = {
	"proc", "syscalls", "locks", "offcpu", "runq",	"ext4",
	"jbd2", "xfs",	    "btrfs", "block",  "oncpu", "wakers",
};

const char *probes_group_name(enum probe_group g)
{
	return (unsigned)g < PROBE_G_COUNT ? group_names[g] : "?";
}


static void note(struct probes *p, const char *fmt, ...)
{
	size_t n = strlen(p->notes);
	va_list ap;

	if (n + 2 >= sizeof p->notes)
		return;
	va_start(ap, fmt);
	vsnprintf(p->notes + n, sizeof p->notes - n, fmt, ap);
	va_end(ap);
	n = strlen(p->notes);
	if (n + 1 < sizeof p->notes) {
		p->notes[n] = '\n';
		p->notes[n + 1] = '\0';
	}
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (env_str(ENV_BPF_DEBUG))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static bool cap_effective(int cap)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && (eff >> cap) & 1;
}

int probes_check(char *why, size_t len)
{
	bool bpf = geteuid() == 0 || cap_effective(39) ||
		   cap_effective(21); /* CAP_BPF, CAP_SYS_ADMIN */
	bool perfmon = geteuid() == 0 || cap_effective(38) || cap_effective(21); /* CAP_PERFMON */
	bool btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;

	if (bpf && perfmon && btf)
		return 0;
	snprintf(why, len, "%s%s%s%s%s", !bpf || !perfmon ? "needs root, or the capabilities " : "",
		 !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" :
		 !bpf		  ? "CAP_BPF" :
		 !perfmon	  ? "CAP_PERFMON" :
				    "",
		 (!bpf || !perfmon) && !btf ? "; " : "",
		 !btf ? "kernel BTF is missing (/sys/kernel/btf/vmlinux;"
			" a kernel built with CONFIG_DEBUG_INFO_BTF=y)" :
			"",
		 "");
	return -1;
}

static int group_of(const char *tp)
{
	for (size_t i = 0; i < sizeof tp_groups / sizeof *tp_groups; i++)
		if (!strcmp(tp_groups[i].tp, tp))
			return tp_groups[i].g;
	return -1;
}

/* "tp_btf/NAME" or "raw_tp/NAME" -> NAME, and which flavour. */
static const char *prog_tp(const struct bpf_program *prog, bool *is_btf)
{
	const char *sec = bpf_program__section_name(prog);

	if (!strncmp(sec, "tp_btf/", 7)) {
		*is_btf = true;
		return sec + 7;
	}
	if (!strncmp(sec, "raw_tp/", 7)) {
		*is_btf = false;
		return sec + 7;
	}
	return NULL;
}

/* PROBE_CORE_ONLY: the groups up to the run queue (enum probe_group lists them first). */
/* The filesystem groups whose filesystem is mounted: loading and relocating
 * a group's programs costs a few ms of every --trace's start, for nothing
 * where no such filesystem exists (one mounted after the start is not
 * seen). */
static bool fs_mounted(int g)
{
	static int mounted = -1; /* bit per group */

	if (mounted < 0) {
		FILE *f = fopen("/proc/self/mountinfo", "re");
		char line[4096];
		mounted = 0;
		while (f && fgets(line, sizeof line, f)) {
			const char *dash = strstr(line, " - ");
			char type[32];
			if (!dash || sscanf(dash + 3, "%31s", type) != 1)
				continue;
			if (!strcmp(type, "ext4") || !strcmp(type, "ext3") || !strcmp(type, "ext2"))
				mounted |= 1 << PROBE_G_EXT4 | 1 << PROBE_G_JBD2;
			else if (!strcmp(type, "ocfs2"))
				mounted |= 1 << PROBE_G_JBD2;
			else if (!strcmp(type, "xfs"))
				mounted |= 1 << PROBE_G_XFS;
			else if (!strcmp(type, "btrfs"))
				mounted |= 1 << PROBE_G_BTRFS;
		}
		if (f)
			fclose(f);
		else
			mounted = ~0; /* unknown: all */
	}
	switch (g) {
	case PROBE_G_EXT4:
	case PROBE_G_JBD2:
	case PROBE_G_XFS:
	case PROBE_G_BTRFS: return mounted & 1 << g;
	}
	return true;
}

static bool group_wanted(unsigned flags, int g)
{
	const char *no = env_str(ENV_TRACE_NO);

	if (!fs_mounted(g))
		return false;

	if (g > PROBE_G_SYSCALLS && no) { /* ADAPTRM_TRACE_NO=runq,offcpu */
		size_t l = strlen(group_names[g]);
		for (const char *p = no; *p;) {
			size_t n = strcspn(p, ",");
			if (n == l && !strncmp(p, group_names[g], l))
				return false;
			p += n + (p[n] == ',');
		}
	}
	return !(flags & PROBE_CORE_ONLY) || g <= PROBE_G_RUNQ ||
	       (g == PROBE_G_BLOCK && (flags & PROBE_WITH_BLOCK));
}

bool probes_is_wait_syscall(int nr)
{
	switch (nr) {
#ifdef SYS_poll /* x86-64's older forms: arm64 has only ppoll, pselect6, ... */
	case SYS_poll:
	case SYS_select:
	case SYS_pause:
	case SYS_epoll_wait:
#endif
	case SYS_nanosleep:
	case SYS_wait4:
	case SYS_rt_sigsuspend:
	case SYS_futex:
	case SYS_clock_nanosleep:
	case SYS_waitid:
	case SYS_pselect6:
	case SYS_ppoll:
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2: return true;
	}
	return false;
}

/* Open the skeleton with one flavour per tracepoint; groups whose
 * tracepoints the kernel lacks (no btf_trace_NAME type) are not loaded,
 * nor the sampler with NO_ONCPU. */
static struct probes_bpf *open_flavour(struct probes *p, bool use_btf, unsigned flags,
				       const struct btf *vmlinux, bool group_ok[], bool no_oncpu)
{
	struct probes_bpf *skel = probes_bpf__open();
	struct bpf_program *prog;

	if (!skel)
		return NULL;
	skel->rodata->want_callers = !(flags & PROBE_NO_CALLERS);
	for (int nr = 0; nr < PROBE_NR_SYSCALLS; nr++)
		skel->rodata->wait_sc[nr] = probes_is_wait_syscall(nr);
	for (int g = 0; g < PROBE_G_COUNT; g++)
		group_ok[g] = group_wanted(flags, g);
	if (no_oncpu)
		group_ok[PROBE_G_ONCPU] = false;
	const char *missing[8];
	int nmissing = 0;
	for (size_t i = 0; vmlinux && i < sizeof tp_groups / sizeof *tp_groups; i++) {
		char type[128];
		snprintf(type, sizeof type, "btf_trace_%s", tp_groups[i].tp);
		if (btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF) >= 0)
			continue;
		if (!tp_optional(tp_groups[i].tp))
			group_ok[tp_groups[i].g] = false;
		else if (nmissing < (int)(sizeof missing / sizeof *missing))
			missing[nmissing++] = tp_groups[i].tp;
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		bool is_btf;
		const char *tp = prog_tp(prog, &is_btf);
		int g = tp ? group_of(tp) : -1;
		bool load = g >= 0 && group_ok[g] && is_btf == use_btf;
		for (int i = 0; load && i < nmissing; i++)
			load = strcmp(tp, missing[i]) != 0;
		if (prog == skel->progs.cpu_sample)
			load = group_ok[PROBE_G_ONCPU];
		bpf_program__set_autoload(prog, load);
	}
	return skel;
}

/* Open and load one flavour into p->skel; if that fails with the sampler,
 * once more without it: a kernel may refuse the perf_event program alone,
 * and the tracepoints matter more. Returns 0 or a negative errno. */
static int load_flavour(struct probes *p, bool use_btf, unsigned flags, const struct btf *vmlinux,
			bool group_ok[])
{
	int e;

	p->skel = open_flavour(p, use_btf, flags, vmlinux, group_ok, false);
	if (!p->skel)
		return -ENOMEM;
	e = probes_bpf__load(p->skel);
	if (!e || !group_ok[PROBE_G_ONCPU])
		return e;
	probes_bpf__destroy(p->skel);
	p->skel = open_flavour(p, use_btf, flags, vmlinux, group_ok, true);
	e = p->skel ? probes_bpf__load(p->skel) : -ENOMEM;
	if (!e)
		note(p, "oncpu probes dropped: the perf_event sampling program did not load");
	return e;
}

static void detach_sampler(struct probes *p)
{
	while (p->ncpu_links > 0)
		bpf_link__destroy(p->cpu_links[--p->ncpu_links]);
	free(p->cpu_links);
	p->cpu_links = NULL;
}

/* The on-CPU sampler: a cpu-clock event on every online CPU for every
 * process (the program keeps the traced tgids), PROBE_CPU_SAMPLE_HZ each.
 * A CPU that is offline (ENODEV) has none. Returns 0 or an errno. */
static int attach_sampler(struct probes *p)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof a,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = PROBE_CPU_SAMPLE_HZ,
		.freq = 1,
	};
	int err = 0;

	p->cpu_links = calloc(p->ncpus, sizeof *p->cpu_links);
	if (!p->cpu_links)
		return ENOMEM;
	for (int cpu = 0; cpu < p->ncpus; cpu++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV)
				continue;
			err = errno;
			break;
		}
		struct bpf_link *l = bpf_program__attach_perf_event(p->skel->progs.cpu_sample, fd);
		if (!l) {
			err = errno;
			close(fd);
			break;
		}
		p->cpu_links[p->ncpu_links++] = l;
	}
	if (!err && !p->ncpu_links)
		err = ENODEV;
	if (err)
		detach_sampler(p);
	return err;
}

static void count_threads(pid_t pid, uint32_t *n)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d) {
		(*n)++;
		return;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			(*n)++;
	closedir(d);
}

int probes_add_pid(struct probes *p, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	uint8_t one = 1;

	/* the filter byte before the hash entry (a seq_cst store: BPF on
	 * other CPUs reads the byte first) */
	__atomic_store_n(&p->skel->bss->tgid_maybe[key & (PROBE_TGID_FILTER - 1)], 1,
			 __ATOMIC_SEQ_CST);
	if (bpf_map__update_elem(p->skel->maps.tgids, &key, sizeof key, &one, sizeof one, BPF_NOEXIST))
		return -errno;
	uint32_t before = p->base_threads;
	p->base_tgids++;
	count_threads(pid, &p->base_threads);
	/* the threads found here start their lives while traced now */
	__atomic_add_fetch(&p->skel->bss->life_births,
			   (probes_mono_ns() - p->skel->bss->life_t0) * (p->base_threads - before),
			   __ATOMIC_SEQ_CST);
	long long now = __atomic_add_fetch(&p->skel->bss->live_threads,
					   (long long)(p->base_threads - before), __ATOMIC_SEQ_CST);
	if (now > p->skel->bss->peak_threads)
		p->skel->bss->peak_threads = now;
	return 0;
}

int probes_traced_tgids(struct probes *p, pid_t *out, int max)
{
	struct map_walk w = { .m = p->skel->maps.tgids };
	uint32_t key;
	int n = 0;

	while (n < max && map_walk_next(&w, &key, sizeof key, NULL, 0))
		out[n++] = (pid_t)key;
	return n;
}

/* Whether this kernel loads tp_btf programs, asked before the skeleton is
 * loaded as libbpf-tools' probe_tp_btf does: a two-instruction tracing
 * program attached by BTF id to sched_switch. Without the kernel's BTF
 * (VMLINUX NULL) there is nothing to attach by, so no. */
static bool tp_btf_loads(const struct btf *vmlinux)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = vmlinux ?
			 btf__find_by_name_kind(vmlinux, "btf_trace_sched_switch", BTF_KIND_TYPEDEF) :
			 -1;

	if (id < 0)
		return false;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_RAW_TP,
		    .attach_btf_id = (__u32)id);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
			       sizeof insns / sizeof *insns, &o);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Load the skeleton into p->skel, once: the flavour chosen by the probe
 * above (raw_tp where tp_btf programs do not load, or with
 * ADAPTRM_BPF_RAW_TP=1 for its tests), and only the groups whose
 * tracepoints the kernel's BTF has, with the groups loaded in GROUP_OK.
 * Returns 0 or an errno (either sign). */
static int load_skeleton(struct probes *p, unsigned flags, bool group_ok[])
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool forced = env_flag(ENV_BPF_RAW_TP, 0);
	bool use_btf = !forced && tp_btf_loads(vmlinux);
	int e;

	if (!use_btf)
		note(p, "%s; using raw_tp",
		     forced  ? "ADAPTRM_BPF_RAW_TP is set" :
		     vmlinux ? "tp_btf programs do not load on this kernel" :
			       "no kernel BTF for tp_btf programs");
	e = load_flavour(p, use_btf, flags, vmlinux, group_ok);
	if (e) {
		probes_bpf__destroy(p->skel);
		p->skel = NULL;
	}
	btf__free(vmlinux);
	return e;
}

/* Attach the tracepoint programs of group G; on a failure, detach the ones
 * attached and return false with the tracepoint and errno in *FAILED and
 * *FERR. */
static bool attach_tracepoints(struct probes *p, int g, const char **failed, int *ferr)
{
	struct bpf_program *prog;
	int first = p->nlinks;

	bpf_object__for_each_program(prog, p->skel->obj)
	{
		bool is_btf;
		const char *tp = prog_tp(prog, &is_btf);
		if (!tp || group_of(tp) != g || !bpf_program__autoload(prog))
			continue;
		struct bpf_link *l = bpf_program__attach(prog);
		if (!l || p->nlinks >= (int)(sizeof p->links / sizeof *p->links)) {
			*ferr = errno;
			*failed = tp;
			bpf_link__destroy(l);
			while (p->nlinks > first)
				bpf_link__destroy(p->links[--p->nlinks]);
			return false;
		}
		p->links[p->nlinks++] = l;
	}
	return true;
}

/* Attach group by group: a group that fails is dropped whole, with a note. */
static void attach_groups(struct probes *p, unsigned flags, const bool group_ok[])
{
	for (int g = 0; g < PROBE_G_COUNT; g++) {
		const char *failed = NULL;
		int ferr = 0;

		if (!group_ok[g]) {
			if (group_wanted(flags, g) && g != PROBE_G_ONCPU)
				note(p, "%s probes unavailable: tracepoints missing in this kernel",
				     group_names[g]);
			continue;
		}
		if (g == PROBE_G_ONCPU) {
			ferr = attach_sampler(p);
			if (ferr)
				note(p, "oncpu probes dropped: cannot open cpu-clock perf events: %s",
				     strerror(ferr));
			p->attached[g] = !ferr;
			continue;
		}
		p->attached[g] = attach_tracepoints(p, g, &failed, &ferr);
		if (!p->attached[g])
			note(p, "%s probes dropped: cannot attach %s: %s", group_names[g],
			     failed ? failed : "?", strerror(ferr));
	}
}

/* The batch lookup buffer, sized for the largest per-CPU array. */
static bool alloc_buffers(struct probes *p)
{
	size_t vsz = (sizeof(struct probe_sc_stat) + 7) / 8 * 8;

	p->bufsize = (size_t)PROBE_NR_SYSCALLS * p->ncpus * vsz;
	p->buf = malloc(p->bufsize);
	p->keys = malloc(PROBE_NR_SYSCALLS * sizeof *p->keys);
	return p->buf && p->keys;
}

/* Trace PIDS, or this process when NPIDS is 0. Returns false with a
 * message in ERR. */
static bool trace_pids(struct probes *p, const pid_t *pids, int npids, char *err, size_t errlen)
{
	pid_t self = getpid();
	int e;

	if (npids == 0) {
		pids = &self;
		npids = 1;
	}
	for (int i = 0; i < npids; i++)
		if ((e = probes_add_pid(p, pids[i])) && e != -EEXIST) {
			snprintf(err, errlen, "cannot trace pid %d: %s", (int)pids[i], strerror(-e));
			return false;
		}
	return true;
}

struct probes *probes_start(const pid_t *pids, int npids, unsigned flags, char *err, size_t errlen)
{
	struct probes *p = calloc(1, sizeof *p);
	bool group_ok[PROBE_G_COUNT];
	char why[256];
	int e;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (probes_check(why, sizeof why)) {
		snprintf(err, errlen, "%s", why);
		free(p);
		return NULL;
	}
	libbpf_set_print(libbpf_quiet);
	p->ncpus = libbpf_num_possible_cpus();

	uint64_t t0 = now_ns();
	if ((e = load_skeleton(p, flags, group_ok))) {
		snprintf(err, errlen, "cannot load the BPF probes: %s%s", strerror(e < 0 ? -e : e),
			 e == -EPERM || e == EPERM ?
				 " (kernel lockdown or a BPF LSM may forbid it;"
				 " the libbpf hint about 'ulimit -l' is misleading)" :
				 "");
		goto fail;
	}
	uint64_t t1 = now_ns();
	p->skel->bss->life_t0 = probes_mono_ns();
	attach_groups(p, flags, group_ok);
	p->load_ns = t1 - t0;
	p->attach_ns = now_ns() - t1;
	if (!p->attached[PROBE_G_PROC] || !p->attached[PROBE_G_SYSCALLS]) {
		snprintf(err, errlen, "cannot attach the syscall and process probes: %s", p->notes);
		goto fail;
	}
	if (!alloc_buffers(p)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (!trace_pids(p, pids, npids, err, errlen))
		goto fail;
	return p;
fail:
	probes_stop(p);
	return NULL;
}

bool probes_group_attached(const struct probes *p, enum probe_group g)
{
	return (unsigned)g < PROBE_G_COUNT && p->attached[g];
}

const char *probes_notes(const struct probes *p)
{
	return p->notes;
}

void probes_start_cost(const struct probes *p, uint64_t *load_ns, uint64_t *attach_ns)
{
	*load_ns = p->load_ns;
	*attach_ns = p->attach_ns;
}

void probes_stop(struct probes *p)
{
	if (!p)
		return;
	detach_sampler(p);
	while (p->nlinks > 0)
		bpf_link__destroy(p->links[--p->nlinks]);
	probes_bpf__destroy(p->skel);
	ksyms_free(p->ksyms);
	ksyms_free(p->live_ksyms);
	free(p->cause_of);
	free(p->buf);
	free(p->keys);
	free(p);
}
