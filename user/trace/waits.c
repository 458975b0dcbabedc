/* Wait sites, their causes, and the devices of the delete (waits.h). */
#include "trace/waits.h"
#include "probes/ksyms.h"
#include "probes/probes.h"
#include "trace/report.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *const cause_ids[TC_COUNT] = {
	"directory_lock", "lock",     "metadata_read", "journal",   "xfs_inodegc",
	"xfs_log",	  "btrfs",    "discard",       "writeback", "reclaim",
	"page_fault",	  "block_io", "peer",	       "other",
};
static const char *const cause_names[TC_COUNT] = {
	"directory lock",
	"lock",
	"inode-table/directory reads",
	"journal",
	"xfs inode GC flush",
	"xfs log space",
	"btrfs tree lock/space",
	"discard",
	"writeback",
	"page reclaim",
	"page fault",
	"block I/O",
	"pipe or socket peer",
	"other",
};

const char *trace_cause_id(int c)
{
	return c >= 0 && c < TC_COUNT ? cause_ids[c] : "?";
}

const char *trace_cause_name(int c)
{
	return c >= 0 && c < TC_COUNT ? cause_names[c] : "?";
}

/* NAME (up to "+0x") equals PAT, or starts with it when PAT ends in '*'. */
static bool match(const char *name, size_t len, const char *pat)
{
	size_t pl = strlen(pat);

	if (pl && pat[pl - 1] == '*')
		return len >= pl - 1 && !strncmp(name, pat, pl - 1);
	return len == pl && !strncmp(name, pat, pl);
}

static bool match_any(const char *name, size_t len, const char *const *pats)
{
	for (; *pats; pats++)
		if (match(name, len, *pats))
			return true;
	return false;
}

static size_t fn_len(const char *frame)
{
	const char *plus = strchr(frame, '+');
	return plus ? (size_t)(plus - frame) : strlen(frame);
}

/* Scheduler, generic waiting and tracing frames: never a site. */
static const char *const generic[] = {
	"schedule",
	"__schedule",
	"schedule_timeout",
	"schedule_hrtimeout*",
	"schedule_preempt_disabled",
	"io_schedule",
	"io_schedule_timeout",
	"preempt_schedule*",
	"__cond_resched",
	"__wait_on_bit",
	"__wait_on_bit_lock",
	"out_of_line_wait_on_bit*",
	"bit_wait",
	"bit_wait_io",
	"bit_wait_timeout",
	"bit_wait_io_timeout",
	"__wait_on_buffer",
	"wait_on_buffer",
	"__lock_buffer",
	"lock_buffer",
	"wait_for_completion*",
	"__wait_for_common",
	"wait_for_common*",
	"do_wait_for_common",
	"__flush_work",
	"flush_work",
	"flush_delayed_work",
	"rwsem_down_*",
	"down",
	"down_*",
	"__down*",
	"mutex_lock*",
	"__mutex_lock*",
	"mutex_lock_io*",
	"rt_mutex*",
	"__rt_mutex*",
	"percpu_rwsem_wait",
	"__percpu_down_read",
	"percpu_down_*",
	"folio_wait_bit*",
	"__folio_lock*",
	"folio_lock*",
	"wait_on_page_bit*",
	"__lock_page*",
	"prepare_to_wait*",
	"finish_wait",
	"wait_woken",
	"___wait_var_event",
	"__wait_var_event",
	"finish_task_switch*",
	"bpf_*",
	"__bpf_*",
	"__traceiter_*",
	"trace_call_bpf",
	"perf_trace_*",
	"do_nanosleep",
	"hrtimer_nanosleep",
	NULL,
};

/* The lock type a skipped frame says the thread waited for. */
static const char *lock_of(const char *name, size_t len)
{
	static const char *const w[] = { "rwsem_down_write*", "down_write*", NULL };
	static const char *const r[] = { "rwsem_down_read*", "down_read*", NULL };
	static const char *const m[] = { "mutex_lock*", "__mutex_lock*", NULL };
	static const char *const sem[] = { "down",	   "down_killable", "down_interruptible",
					   "down_timeout", "__down*",	    NULL };
	static const char *const pcpu[] = { "percpu_rwsem_wait", "__percpu_down_read",
					    "percpu_down_*", NULL };
	static const char *const rt[] = { "rt_mutex*", "__rt_mutex*", NULL };

	if (match_any(name, len, w))
		return "rwsem:W";
	if (match_any(name, len, r))
		return "rwsem:R";
	if (match_any(name, len, m))
		return "mutex";
	if (match_any(name, len, pcpu))
		return "pcpu-sem";
	if (match_any(name, len, rt))
		return "rt-mutex";
	if (match_any(name, len, sem))
		return "semaphore";
	return NULL;
}

/* Directory operations that take the parent's i_rwsem for write. */
static const char *const dir_ops[] = {
	"do_unlinkat",
	"do_rmdir",
	"lock_rename*",
	"filename_create",
	"do_renameat2",
	"lock_two_directories",
	"open_last_lookups",
	"vfs_rmdir",
	"vfs_unlink",
	"__lookup_hash",
	"lookup_one_qstr_excl",
	"start_dirop",
	"start_removing*",
	"__start_removing*",
	NULL,
};

static const char *const btrfs_lock_fns[] = {
	"btrfs_tree_lock*",	   "btrfs_tree_read_lock*", "__btrfs_tree_lock*",
	"__btrfs_tree_read_lock*", "btrfs_lock_root_node",  "btrfs_read_lock_root_node",
	"btrfs_try_tree_*",	   "btrfs_lock_*",	    NULL,
};

/* The cause table: the first frame from the top (after the generic ones)
 * that one of these names decides. */
static const struct cause_rule {
	int cause;
	const char *const *fns;
} cause_rules[] = {
	{ TC_XFS_INODEGC,
	  (const char *const[]){ "xfs_inodegc_flush", "xfs_inodegc_queue", "xfs_inodegc_throttle*",
				 "xfs_inode_mark_reclaimable", "xfs_fs_destroy_inode",
				 "xfs_inodegc_push", "xfs_inodegc_want_flush_work", NULL } },
	{ TC_XFS_LOG,
	  (const char *const[]){ "xlog_grant_head_wait", "xlog_grant_head_check", "xfs_log_reserve",
				 "xfs_log_regrant", "xlog_wait", "xlog_wait_on_iclog",
				 "xfs_log_force*", "__xfs_log_force*", "xlog_cil_force*",
				 "xlog_state_get_iclog_space", NULL } },
	{ TC_JOURNAL, (const char *const[]){ "jbd2_log_wait_commit",
					     "jbd2_log_do_checkpoint",
					     "__jbd2_log_wait_for_space",
					     "jbd2__journal_start",
					     "jbd2_journal_start",
					     "start_this_handle",
					     "add_transaction_credits",
					     "wait_transaction_locked",
					     "wait_transaction_switching",
					     "jbd2_journal_stop",
					     "jbd2_complete_transaction",
					     "jbd2_journal_force_commit*",
					     "jbd2_journal_lock_updates",
					     "do_get_write_access",
					     "jbd2_journal_get_write_access",
					     "jbd2_journal_get_create_access",
					     "jbd2_journal_get_undo_access",
					     "__ext4_journal_start_sb",
					     "ext4_journal_check_start",
					     NULL } },
	{ TC_DISCARD, (const char *const[]){ "blkdev_issue_discard", "__blkdev_issue_discard",
					     "ext4_issue_discard", "ext4_try_to_trim_range",
					     "ext4_trim_*", "xfs_discard*", "btrfs_discard*",
					     "btrfs_issue_discard", "__submit_discard_cmd", NULL } },
	{ TC_BTRFS,
	  (const char *const[]){ "btrfs_tree_lock*", "btrfs_tree_read_lock*", "__btrfs_tree_lock*",
				 "__btrfs_tree_read_lock*", "btrfs_lock_root_node",
				 "btrfs_read_lock_root_node", "handle_reserve_ticket",
				 "btrfs_reserve_metadata_bytes", "__reserve_bytes",
				 "btrfs_reserve_data_bytes", "wait_reserve_ticket", NULL } },
	{ TC_META_READ, (const char *const[]){ "__ext4_get_inode_loc",
					       "ext4_get_inode_loc",
					       "__ext4_iget",
					       "ext4_bread",
					       "ext4_bread_batch",
					       "ext4_read_bh*",
					       "ext4_read_block_bitmap*",
					       "ext4_read_inode_bitmap",
					       "ext4_wait_block_bitmap",
					       "__ext4_read_dirblock",
					       "ext4_readdir",
					       "ext4_lookup",
					       "__ext4_find_entry",
					       "ext4_mb_init_cache",
					       "ext4_mb_load_buddy*",
					       "ext4_get_branch",
					       "ext4_find_extent",
					       "__read_extent_tree_block",
					       "ext4_ext_find_extent",
					       "xfs_buf_read*",
					       "xfs_trans_read_buf*",
					       "xfs_imap*",
					       "xfs_iread",
					       "xfs_iget*",
					       "xfs_da_read_buf",
					       "xfs_dir3_*_read",
					       "xfs_btree_read_buf_block",
					       "xfs_read_agi",
					       "xfs_read_agf",
					       "xfs_ialloc_read_agi",
					       "xfs_alloc_read_agf",
					       "btrfs_read_node*",
					       "read_tree_block",
					       "read_block_for_search",
					       "btrfs_read_extent_buffer",
					       "read_extent_buffer_pages*",
					       "btrfs_search_slot",
					       "__bread_gfp",
					       "bh_read*",
					       "bh_submit_read",
					       "__breadahead*",
					       NULL } },
	{ TC_WRITEBACK,
	  (const char *const[]){ "folio_wait_writeback", "folio_wait_stable", "wait_on_page_writeback",
				 "filemap_fdatawait*", "__filemap_fdatawait_range",
				 "filemap_write_and_wait*", "file_write_and_wait_range",
				 "writeback_inodes*", "sync_inodes*", "balance_dirty_pages*",
				 "wb_wait_for_completion", "truncate_inode_pages*", NULL } },
	{ TC_RECLAIM, (const char *const[]){ "shrink_*", "try_to_free_pages", "__alloc_pages_slowpath*",
					     "__alloc_pages_direct_reclaim", "__perform_reclaim",
					     "do_try_to_free_pages", "throttle_direct_reclaim",
					     "reclaim_throttle", "mem_cgroup_handle_over_high",
					     "try_charge_memcg", "__alloc_pages_direct_compact",
					     "compact_zone*", "try_to_compact_pages", NULL } },
	{ TC_BLOCK_IO,
	  (const char *const[]){ "submit_bio_wait", "blk_mq_get_tag", "rq_qos_wait", "wbt_wait",
				 "blk_throtl*", "__blkdev_direct_IO*", "blkdev_issue_flush",
				 "bio_wait*", "__submit_bio_wait", NULL } },
	{ TC_PEER,
	  (const char *const[]){ "pipe_read", "anon_pipe_read", "pipe_write", "anon_pipe_write",
				 "pipe_wait*", "unix_stream_read_generic", "unix_stream_data_wait",
				 "sk_wait_data", "sock_alloc_send_pskb", "unix_wait_for_peer",
				 "wait_for_unix_gc", "n_tty_read", "tty_write*", NULL } },
	{ TC_PAGE_FAULT, (const char *const[]){ "filemap_fault", "do_read_fault", "handle_mm_fault",
						"__handle_mm_fault", "do_user_addr_fault",
						"exc_page_fault", "asm_exc_page_fault", NULL } },
};

int trace_classify(const char *const *frames, int n, int *site, const char **lock, bool *space)
{
	const char *lk = NULL;
	bool flushed = false;
	int i = 0;

	*space = false;
	for (; i < n; i++) {
		size_t len = fn_len(frames[i]);
		if (!match_any(frames[i], len, generic))
			break;
		if (!lk)
			lk = lock_of(frames[i], len);
		if (match(frames[i], len, "__flush_work") || match(frames[i], len, "flush_work") ||
		    match(frames[i], len, "flush_delayed_work"))
			flushed = true;
	}
	*site = i < n ? i : 0;
	*lock = lk;
	if (i >= n)
		return lk ? TC_LOCK : TC_OTHER;
	size_t len = fn_len(frames[i]);
	if (lk) {
		if (!strcmp(lk, "rwsem:W") && match_any(frames[i], len, dir_ops))
			return TC_DIR_LOCK;
		if (match_any(frames[i], len, btrfs_lock_fns))
			return TC_BTRFS;
		return TC_LOCK;
	}
	/* xfs: destroy_inode -> __flush_work is the inode-GC throttle (the
	 * xfs functions in between are inlined) */
	if (flushed && (match(frames[i], len, "destroy_inode") || !strncmp(frames[i], "xfs_", 4)))
		return TC_XFS_INODEGC;
	/* the strong causes first, from the top; block I/O and page faults
	 * (submit_bio_wait, exc_page_fault) only when nothing below says
	 * what the I/O or the fault was for */
	int weak = -1;
	for (int j = i; j < n; j++) {
		size_t l = fn_len(frames[j]);
		for (size_t r = 0; r < sizeof cause_rules / sizeof *cause_rules; r++)
			if (match_any(frames[j], l, cause_rules[r].fns)) {
				if (cause_rules[r].cause == TC_BLOCK_IO ||
				    cause_rules[r].cause == TC_PAGE_FAULT) {
					if (weak < 0)
						weak = cause_rules[r].cause;
					continue;
				}
				if (cause_rules[r].cause == TC_JOURNAL)
					for (int q = j; q < n; q++) {
						size_t ql = fn_len(frames[q]);
						if (match(frames[q], ql, "__jbd2_log_wait_for_space") ||
						    match(frames[q], ql, "jbd2_log_do_checkpoint"))
							*space = true;
					}
				return cause_rules[r].cause;
			}
	}
	return weak >= 0 ? weak : TC_OTHER;
}

/* ---- the device scope ---- */

struct mount_ent {
	unsigned maj, min; /* st_dev of the mount */
	uint32_t bdev;	   /* kernel dev_t of its block device, or 0 */
	bool discard;
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

static int read_mounts(struct mount_ent **out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int n = 0, ncap = 0;
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
		if (n == ncap) {
			int nc = ncap ? 2 * ncap : 32;
			struct mount_ent *nv = realloc(v, nc * sizeof *nv);
			if (!nv)
				break;
			v = nv;
			ncap = nc;
		}
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
		snprintf(e->fstype, sizeof e->fstype, "%.23s", fstype);
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

/* The operands' filesystems (their parent directories: the operands
 * themselves are gone after the delete). */
static void operand_devs(const struct trace_result *r, const struct mount_ent *m, int nm,
			 uint32_t *v, int *n, int max)
{
	bool command = r->mode && !strcmp(r->mode, "command");

	for (char **a = r->argv; a && *a; a++) {
		if ((command && a == r->argv) || (*a)[0] == '-' || !(*a)[0])
			continue;
		char buf[PATH_MAX];
		struct stat st;
		snprintf(buf, sizeof buf, "%s", *a);
		/* gone: its parent (for a bare name, the working directory) */
		if (lstat(buf, &st) && stat(dirname(buf), &st))
			continue;
		uint32_t d = PROBE_MKDEV(major(st.st_dev), minor(st.st_dev));
		add_traced(v, n, max, d);
		const struct mount_ent *e = mount_of(m, nm, d);
		if (e && e->bdev)
			add_traced(v, n, max, e->bdev);
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
			 e->target, e->discard ? ", discard" : "");
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
			if (e && e->bdev)
				add_traced(traced, &nt, max, e->bdev);
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
		name_dev(d, e);
	}
	free(m);
}

/* ---- wait sites ---- */

static int cmp_site(const void *a, const void *b)
{
	const struct trace_wait_site *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

int trace_caller_cause(const char *n, unsigned flags)
{
	size_t len = fn_len(n);

	if (flags == PROBE_LCB_F_WRITE && match_any(n, len, dir_ops))
		return TC_DIR_LOCK;
	if (match_any(n, len, btrfs_lock_fns))
		return TC_BTRFS;
	return TC_LOCK;
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
		if ((raw[i].ctx & (PROBE_WAIT_IN_SYSCALL | PROBE_WAIT_IN_LOCK)) ==
		    PROBE_WAIT_IN_SYSCALL)
			r->wait_ns[cause] += raw[i].blocked_ns;
		char sname[96];
		if (nf)
			snprintf(sname, sizeof sname, "%s", frames[site]);
		else
			snprintf(sname, sizeof sname, "(no stack)");
		if (cause == TC_JOURNAL && space)
			strncat(sname, " (space)", sizeof sname - strlen(sname) - 1);
		int j;
		for (j = 0; j < r->nsites; j++)
			if (!strcmp(r->sites[j].site, sname) && r->sites[j].state == raw[i].state)
				break;
		struct trace_wait_site *w = &r->sites[j];
		if (j == r->nsites) {
			r->nsites++;
			snprintf(w->site, sizeof w->site, "%s", sname);
			w->cause = cause;
			w->lock = lock;
			w->state = raw[i].state;
			for (int f = site + 1; f < nf && w->nstack < 6; f++)
				snprintf(w->stack[w->nstack++], sizeof w->stack[0], "%s", frames[f]);
		}
		w->count += raw[i].count;
		w->total_ns += raw[i].total_ns;
		w->blocked_ns += raw[i].blocked_ns;
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
