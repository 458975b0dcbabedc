/* Loading, attaching and reading the probes of bpf/probes.bpf.c (see
 * probes.h). One skeleton; each tracepoint has a tp_btf and a raw_tp
 * program, and each group of tracepoints attaches on its own. */
#include "probes/probes.h"
#include "lib/env.h"
#include "probes.skel.h"
#include "probes/ksym_bpf.h"
#include "probes/ksyms.h"
#include "probes/waitclass.h"

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
#include <time.h>
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
	{ "sched_process_fork", PROBE_G_PROC },	   { "sched_process_exit", PROBE_G_PROC },
	{ "sys_enter", PROBE_G_SYSCALLS },	   { "sys_exit", PROBE_G_SYSCALLS },
	{ "contention_begin", PROBE_G_LOCKS },	   { "contention_end", PROBE_G_LOCKS },
	{ "sched_switch", PROBE_G_OFFCPU },	   { "sched_wakeup", PROBE_G_RUNQ },
	{ "sched_wakeup_new", PROBE_G_RUNQ },	   { "ext4_unlink_enter", PROBE_G_EXT4 },
	{ "ext4_unlink_exit", PROBE_G_EXT4 },	   { "ext4_free_blocks", PROBE_G_EXT4 },
	{ "ext4_discard_blocks", PROBE_G_EXT4 },   { "jbd2_run_stats", PROBE_G_JBD2 },
	{ "xfs_log_grant_sleep", PROBE_G_XFS },	   { "xfs_log_grant_wake", PROBE_G_XFS },
	{ "xfs_inodegc_throttle", PROBE_G_XFS },   { "btrfs_tree_lock", PROBE_G_BTRFS },
	{ "btrfs_reserve_ticket", PROBE_G_BTRFS }, { "block_rq_issue", PROBE_G_BLOCK },
	{ "block_rq_complete", PROBE_G_BLOCK },
};

static const char *const group_names[PROBE_G_COUNT] = {
	"proc", "syscalls", "locks", "offcpu", "runq",	"ext4",
	"jbd2", "xfs",	    "btrfs", "block",  "oncpu",
};

const char *probes_group_name(enum probe_group g)
{
	return (unsigned)g < PROBE_G_COUNT ? group_names[g] : "?";
}

struct probes {
	struct probes_bpf *skel;
	struct bpf_link *links[64];
	int nlinks;
	bool attached[PROBE_G_COUNT];
	struct bpf_link **cpu_links; /* the sampler's perf events, one per online CPU */
	int ncpu_links;
	int ncpus;
	uint32_t base_threads, base_tgids;
	void *buf; /* batch lookup values */
	size_t bufsize;
	uint32_t *keys;
	struct ksyms *ksyms;
	bool ksyms_tried;
	/* probes_wait_causes: per stack id, its cause + 1 (0: not yet), with
	 * CAUSE_THROTTLED set when it went through block throttling; the full
	 * symbol table it names new stacks with */
	unsigned char *cause_of;
	struct ksyms *live_ksyms;
	bool live_ksyms_tried;
	char notes[1024];
};

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
	case SYS_poll:
	case SYS_select:
	case SYS_pause:
	case SYS_nanosleep:
	case SYS_wait4:
	case SYS_rt_sigsuspend:
	case SYS_futex:
	case SYS_clock_nanosleep:
	case SYS_epoll_wait:
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
	for (size_t i = 0; vmlinux && i < sizeof tp_groups / sizeof *tp_groups; i++) {
		char type[128];
		snprintf(type, sizeof type, "btf_trace_%s", tp_groups[i].tp);
		if (btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF) < 0)
			group_ok[tp_groups[i].g] = false;
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		bool is_btf;
		const char *tp = prog_tp(prog, &is_btf);
		int g = tp ? group_of(tp) : -1;
		bool load = g >= 0 && group_ok[g] && is_btf == use_btf;
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
	long long now = __atomic_add_fetch(&p->skel->bss->live_threads,
					   (long long)(p->base_threads - before), __ATOMIC_SEQ_CST);
	if (now > p->skel->bss->peak_threads)
		p->skel->bss->peak_threads = now;
	return 0;
}

int probes_traced_tgids(struct probes *p, pid_t *out, int max)
{
	const struct bpf_map *m = p->skel->maps.tgids;
	uint32_t key, next, *prev = NULL;
	int n = 0;

	while (n < max && bpf_map__get_next_key(m, prev, &next, sizeof next) == 0) {
		key = next;
		prev = &key;
		out[n++] = (pid_t)key;
	}
	return n;
}

/* The load ladder, tried in order until one flavour loads. tp_btf with every
 * group comes first: libbpf resolves each tracepoint as it loads, and parsing
 * the kernel's BTF here as well would slow every --trace's start. Only if
 * that fails are the groups whose tracepoints this kernel lacks left out
 * (which needs the kernel's BTF), first with tp_btf, then with raw_tp;
 * ADAPTRM_BPF_RAW_TP=1 goes straight to raw_tp, for its tests. */
static const struct flavour {
	bool btf;	  /* tp_btf programs, else raw_tp */
	bool check_tps;	  /* leave out missing tracepoints; retry without the sampler */
	const char *note; /* for probes_notes() when this one loads */
} flavours[] = {
	{ true, false, NULL },
	{ true, true, NULL },
	{ false, true, "tp_btf programs did not load; using raw_tp" },
};

/* Load the first flavour of the ladder that loads into p->skel, with the
 * groups it loaded in GROUP_OK. Returns 0 or an errno (either sign). */
static int load_skeleton(struct probes *p, unsigned flags, bool group_ok[])
{
	bool force_raw = env_flag(ENV_BPF_RAW_TP, 0);
	struct btf *vmlinux = NULL;
	bool vmlinux_tried = false;
	int e = -ENOENT;

	for (size_t i = 0; i < sizeof flavours / sizeof *flavours; i++) {
		const struct flavour *f = &flavours[i];
		if (force_raw && f->btf)
			continue;
		if (f->check_tps && !vmlinux_tried) {
			vmlinux = btf__load_vmlinux_btf();
			vmlinux_tried = true;
		}
		if (f->check_tps) {
			e = load_flavour(p, f->btf, flags, vmlinux, group_ok);
		} else {
			p->skel = open_flavour(p, f->btf, flags, NULL, group_ok, false);
			e = p->skel ? probes_bpf__load(p->skel) : -ENOMEM;
		}
		if (!e) {
			if (f->note)
				note(p, "%s", f->note);
			break;
		}
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

	if ((e = load_skeleton(p, flags, group_ok))) {
		snprintf(err, errlen, "cannot load the BPF probes: %s%s", strerror(e < 0 ? -e : e),
			 e == -EPERM || e == EPERM ?
				 " (kernel lockdown or a BPF LSM may forbid it;"
				 " the libbpf hint about 'ulimit -l' is misleading)" :
				 "");
		goto fail;
	}
	attach_groups(p, flags, group_ok);
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
	const struct bpf_map *dm = p->skel->maps.devs;
	uint32_t dk, dnext, *dprev = NULL;
	out->ndevs = 0;
	while (out->ndevs < PROBE_MAX_DEVS &&
	       bpf_map__get_next_key(dm, dprev, &dnext, sizeof dnext) == 0) {
		dk = dnext;
		dprev = &dk;
		struct probe_dev *d = &out->devs[out->ndevs];
		if (bpf_map__lookup_elem(dm, &dk, sizeof dk, &d->st, sizeof d->st, 0))
			continue;
		d->dev = dk;
		out->ndevs++;
	}

	long long th = __atomic_load_n(&p->skel->bss->live_threads, __ATOMIC_RELAXED);
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

static int cmp_caller(const void *a, const void *b)
{
	const struct probe_caller *x = a, *y = b;

	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The frames of stack STACKID into IPS (zeroed past the end); false if gone. */
static bool stack_of(struct probes *p, int stackid, uint64_t ips[PROBE_STACK_DEPTH])
{
	uint32_t key = (uint32_t)stackid;

	memset(ips, 0, PROBE_STACK_DEPTH * sizeof *ips);
	return stackid >= 0 && !bpf_map__lookup_elem(p->skel->maps.stacks, &key, sizeof key, ips,
						     PROBE_STACK_DEPTH * sizeof *ips, 0);
}

struct addr_set {
	uint64_t *v;
	size_t n, cap;
};

/* The frames of sampled on-CPU stack STACKID into IPS (zeroed past the
 * end); false if gone. */
static bool cpu_stack_of(struct probes *p, int stackid, uint64_t ips[PROBE_CPU_STACK_DEPTH])
{
	uint32_t key = (uint32_t)stackid;

	memset(ips, 0, PROBE_CPU_STACK_DEPTH * sizeof *ips);
	return stackid >= 0 && !bpf_map__lookup_elem(p->skel->maps.cpu_stacks, &key, sizeof key,
						     ips, PROBE_CPU_STACK_DEPTH * sizeof *ips, 0);
}

static void add_addrs(const uint64_t *ips, int depth, struct addr_set *a)
{
	for (int i = 0; i < depth && ips[i]; i++) {
		if (a->n == a->cap) {
			size_t nc = a->cap ? 2 * a->cap : 256;
			uint64_t *na = realloc(a->v, nc * sizeof *na);
			if (!na)
				return;
			a->v = na;
			a->cap = nc;
		}
		a->v[a->n++] = ips[i];
	}
}

/* The keys of the callers, wait_sites and cpu_samples hashes all begin
 * with the stack id. */
union stack_key {
	int stackid;
	struct probe_caller_key caller;
	struct probe_wait_key wait;
	struct probe_cpu_key cpu;
};
_Static_assert(offsetof(struct probe_caller_key, stackid) == 0, "caller key");
_Static_assert(offsetof(struct probe_wait_key, stackid) == 0, "wait key");
_Static_assert(offsetof(struct probe_cpu_key, stackid) == 0, "cpu key");

/* Add to A the frames of every stack a key of hash M names; CPU: the
 * stacks are the on-CPU sampler's. */
static void add_stacks(struct probes *p, const struct bpf_map *m, bool cpu, struct addr_set *a)
{
	union stack_key k, next;
	const void *prev = NULL;
	uint64_t ips[PROBE_CPU_STACK_DEPTH];
	size_t ksz = bpf_map__key_size(m);

	while (ksz <= sizeof k && bpf_map__get_next_key(m, prev, &next, ksz) == 0) {
		k = next;
		prev = &k;
		if (cpu ? cpu_stack_of(p, k.stackid, ips) : stack_of(p, k.stackid, ips))
			add_addrs(ips, cpu ? PROBE_CPU_STACK_DEPTH : PROBE_STACK_DEPTH, a);
	}
}

/* Names for the frames of the contended, wait-site and on-CPU stacks: asked of the
 * kernel for just these addresses (ksym_bpf.h); /proc/kallsyms, which costs
 * ~55 ms of system time to read, only where that cannot run. Once. */
static void name_stack_frames(struct probes *p)
{
	struct addr_set a = { 0 };

	if (p->ksyms_tried)
		return;
	p->ksyms_tried = true;
	add_stacks(p, p->skel->maps.callers, false, &a);
	add_stacks(p, p->skel->maps.wait_sites, false, &a);
	add_stacks(p, p->skel->maps.cpu_samples, true, &a);
	size_t u = 0;
	if (a.n) {
		qsort(a.v, a.n, sizeof *a.v, cmp_u64);
		for (size_t i = 0; i < a.n; i++)
			if (u == 0 || a.v[i] != a.v[u - 1])
				a.v[u++] = a.v[i];
	}
	if (u == 0) {
		free(a.v);
		return; /* no stack kept: nothing to name */
	}
	struct ksyms *ks = env_flag(ENV_KALLSYMS, 0) ? NULL : ksym_bpf_resolve(a.v, u);
	free(a.v);
	p->ksyms = ks ? ks : ksyms_load(NULL);
}

/* The first frame of STACKID outside locking code, or 0. */
static uint64_t caller_of(struct probes *p, int stackid)
{
	uint64_t ips[PROBE_STACK_DEPTH];

	if (!stack_of(p, stackid, ips))
		return 0;
	for (int i = 0; i < PROBE_STACK_DEPTH && ips[i]; i++)
		if (!ksyms_is_lock_code(p->ksyms, ips[i]))
			return ips[i];
	return ips[0];
}

int probes_callers(struct probes *p, struct probe_caller *out, int max)
{
	struct probe_caller_key k, next, *prev = NULL;
	struct probe_caller_val v;
	const struct bpf_map *m = p->skel->maps.callers;
	int n = 0, cap = 64;
	struct probe_caller *all = malloc(cap * sizeof *all);

	if (!all || max <= 0) {
		free(all);
		return 0;
	}
	if (bpf_map__get_next_key(m, NULL, &next, sizeof next) == 0)
		name_stack_frames(p);
	while (bpf_map__get_next_key(m, prev, &next, sizeof next) == 0) {
		k = next;
		prev = &k;
		if (bpf_map__lookup_elem(m, &k, sizeof k, &v, sizeof v, 0))
			continue;
		uint64_t ip = caller_of(p, k.stackid);
		int i;
		for (i = 0; i < n; i++)
			if (all[i].ip == ip && all[i].flags == k.flags)
				break;
		if (i == n) {
			if (n == cap) {
				struct probe_caller *na = realloc(all, 2 * cap * sizeof *na);
				if (!na)
					break;
				all = na;
				cap *= 2;
			}
			all[n++] = (struct probe_caller){ .ip = ip, .flags = k.flags };
		}
		all[i].count += v.count;
		all[i].total_ns += v.total_ns;
	}
	qsort(all, n, sizeof *all, cmp_caller);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof *out);
	free(all);
	return n;
}

static uint64_t scaled(uint64_t v, double f)
{
	return (uint64_t)((double)v * f + 0.5);
}

/* S waits inside busy syscalls have sampled stacks (PROBE_S_SAMPLE): the
 * unsampled ones' count and time go to the sampled sites of the same
 * context, in proportion; without a sampled site they stay as they are
 * (stack id PROBE_STACK_UNSAMPLED). Returns the new count. */
static int spread_unsampled(struct probe_wait_site *all, int n)
{
	for (int i = 0; i < n; i++) {
		struct probe_wait_site *u = &all[i];
		uint64_t c = 0, t = 0, b = 0;
		if (u->stackid != PROBE_STACK_UNSAMPLED || u->state != PROBE_OFFCPU_SLEEPING)
			continue;
		for (int j = 0; j < n; j++)
			if (all[j].stackid >= 0 && all[j].state == u->state && all[j].ctx == u->ctx) {
				c += all[j].count;
				t += all[j].total_ns;
				b += all[j].blocked_ns;
			}
		if (!c || !t)
			continue;
		double fc = (double)(c + u->count) / (double)c,
		       ft = (double)(t + u->total_ns) / (double)t;
		double fb = b ? (double)(b + u->blocked_ns) / (double)b : 1;
		for (int j = 0; j < n; j++)
			if (all[j].stackid >= 0 && all[j].state == u->state && all[j].ctx == u->ctx) {
				all[j].count = scaled(all[j].count, fc);
				all[j].total_ns = scaled(all[j].total_ns, ft);
				all[j].blocked_ns = scaled(all[j].blocked_ns, fb);
			}
		all[i--] = all[--n]; /* spread: drop it */
	}
	return n;
}

int probes_wait_sites(struct probes *p, struct probe_wait_site **out)
{
	const struct bpf_map *m = p->skel->maps.wait_sites;
	struct probe_wait_key k, next, *prev = NULL;
	struct probe_wait_val v;
	struct probe_wait_site *all = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	if (bpf_map__get_next_key(m, NULL, &next, sizeof next))
		return 0;
	name_stack_frames(p);
	while (bpf_map__get_next_key(m, prev, &next, sizeof next) == 0) {
		k = next;
		prev = &k;
		if (bpf_map__lookup_elem(m, &k, sizeof k, &v, sizeof v, 0))
			continue;
		if (n == cap) {
			int nc = cap ? 2 * cap : 64;
			struct probe_wait_site *na = realloc(all, nc * sizeof *na);
			if (!na)
				break;
			all = na;
			cap = nc;
		}
		struct probe_wait_site *w = &all[n++];
		*w = (struct probe_wait_site){ .stackid = k.stackid,
					       .state = k.state,
					       .ctx = k.ctx,
					       .count = v.count,
					       .total_ns = v.total_ns,
					       .blocked_ns = v.blocked_ns };
		stack_of(p, k.stackid, w->ips);
	}
	n = spread_unsampled(all, n);
	*out = all;
	return n;
}

static int cmp_cpu_sample(const void *a, const void *b)
{
	const struct probe_cpu_sample *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->stackid < y->stackid ? -1 : x->stackid > y->stackid;
}

int probes_cpu_samples(struct probes *p, struct probe_cpu_sample **out)
{
	const struct bpf_map *m = p->skel->maps.cpu_samples;
	struct probe_cpu_key k, next, *prev = NULL;
	struct probe_cpu_sample *all = NULL;
	uint64_t v;
	int n = 0, cap = 0;

	*out = NULL;
	if (!p->attached[PROBE_G_ONCPU] || bpf_map__get_next_key(m, NULL, &next, sizeof next))
		return 0;
	name_stack_frames(p);
	while (bpf_map__get_next_key(m, prev, &next, sizeof next) == 0) {
		k = next;
		prev = &k;
		if (bpf_map__lookup_elem(m, &k, sizeof k, &v, sizeof v, 0))
			continue;
		if (n == cap) {
			int nc = cap ? 2 * cap : 64;
			struct probe_cpu_sample *na = realloc(all, nc * sizeof *na);
			if (!na)
				break;
			all = na;
			cap = nc;
		}
		struct probe_cpu_sample *c = &all[n++];
		*c = (struct probe_cpu_sample){ .stackid = k.stackid,
						.flags = k.flags,
						.nr = k.nr,
						.count = v };
		cpu_stack_of(p, k.stackid, c->ips);
	}
	if (n)
		qsort(all, n, sizeof *all, cmp_cpu_sample);
	*out = all;
	return n;
}

uint64_t probes_thread_ns(const struct probe_snapshot *s)
{
	uint64_t t = s->misc.oncpu_ns;

	for (int k = 0; k < PROBE_OFFCPU_KINDS; k++)
		t += s->misc.offcpu[k].total;
	return t;
}

/* For trace: the symbol table the callers and wait sites were named with. */
const struct ksyms *probes_ksyms(struct probes *p)
{
	return p->ksyms;
}

/* ---- live wait causes (probes_wait_causes) ---- */

#define PROBE_STACK_IDS 4096 /* the stacks map's size: stack ids are below it */
#define CAUSE_THROTTLED 0x80 /* in cause_of: the stack went through throttling */

/* Classify stack STACKID once: its cause + 1, with CAUSE_THROTTLED. */
static unsigned char stack_cause(struct probes *p, int stackid)
{
	uint64_t ips[PROBE_STACK_DEPTH];
	static char names[PROBE_STACK_DEPTH][128];
	const char *frames[PROBE_STACK_DEPTH];
	int nf = 0, site;
	const char *lock;
	bool space;

	if (p->cause_of[stackid])
		return p->cause_of[stackid];
	if (!p->live_ksyms_tried) {
		/* the whole table, once: stacks keep appearing while the
		 * delete runs, and the BPF resolver names a fixed set */
		p->live_ksyms_tried = true;
		p->live_ksyms = ksyms_load(NULL);
	}
	if (!p->live_ksyms || !stack_of(p, stackid, ips))
		return WAIT_OTHER + 1;
	for (; nf < PROBE_STACK_DEPTH && ips[nf]; nf++) {
		ksyms_name(p->live_ksyms, ips[nf], names[nf], sizeof names[nf]);
		frames[nf] = names[nf];
	}
	unsigned char c = (unsigned char)(wait_classify(frames, nf, &site, &lock, &space) + 1);
	if (wait_stack_throttled(frames, nf))
		c |= CAUSE_THROTTLED;
	p->cause_of[stackid] = c;
	return c;
}

bool probes_wait_causes(struct probes *p, bool name_new, struct probe_wait_causes *out)
{
	const struct bpf_map *m = p->skel->maps.wait_sites;
	struct probe_wait_key k, next, *prev = NULL;
	struct probe_wait_val v;

	memset(out, 0, sizeof *out);
	if (!p->attached[PROBE_G_OFFCPU] || !p->skel->rodata->want_callers)
		return false;
	if (!p->cause_of && !(p->cause_of = calloc(PROBE_STACK_IDS, 1)))
		return false;
	while (bpf_map__get_next_key(m, prev, &next, sizeof next) == 0) {
		k = next;
		prev = &k;
		if (k.state != PROBE_OFFCPU_BLOCKED ||
		    (k.ctx & (PROBE_WAIT_IN_SYSCALL | PROBE_WAIT_IN_LOCK)) != PROBE_WAIT_IN_SYSCALL ||
		    bpf_map__lookup_elem(m, &k, sizeof k, &v, sizeof v, 0))
			continue;
		bool known = k.stackid >= 0 && k.stackid < PROBE_STACK_IDS &&
			     (name_new || p->cause_of[k.stackid]);
		unsigned char c = known ? stack_cause(p, k.stackid) : WAIT_OTHER + 1;
		out->ns[(c & ~CAUSE_THROTTLED) - 1] += v.blocked_ns;
		out->count[(c & ~CAUSE_THROTTLED) - 1] += v.count;
		if (c & CAUSE_THROTTLED)
			out->throttled_ns += v.blocked_ns;
	}
	return !p->live_ksyms_tried || p->live_ksyms; /* false: no symbols to name stacks */
}
