// SPDX-License-Identifier: GPL-3.0-or-later
/* Wait causes from kernel stacks (waitclass.h). */
#include "probes/waitclass.h"
#include "probes/frames.h"
#include "probes/probes_shared.h"

#include <stddef.h>
#include <string.h>

static const char *const cause_ids[WAIT_COUNT] = {
	"directory_lock", "lock",     "metadata_read", "journal",   "xfs_inodegc",
	"xfs_log",	  "btrfs",    "discard",       "writeback", "reclaim",
	"page_fault",	  "block_io", "peer",	       "fuse",	    "other",
};
static const char *const cause_names[WAIT_COUNT] = {
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
	"FUSE daemon",
	"other",
};

const char *wait_cause_id(int c)
{
	return c >= 0 && c < WAIT_COUNT ? cause_ids[c] : "?";
}

const char *wait_cause_name(int c)
{
	return c >= 0 && c < WAIT_COUNT ? cause_names[c] : "?";
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

	if (frame_match_any(name, len, w))
		return "rwsem:W";
	if (frame_match_any(name, len, r))
		return "rwsem:R";
	if (frame_match_any(name, len, m))
		return "mutex";
	if (frame_match_any(name, len, pcpu))
		return "pcpu-sem";
	if (frame_match_any(name, len, rt))
		return "rt-mutex";
	if (frame_match_any(name, len, sem))
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

static const char *const reclaim_fns[] = {
	/* not shrink_dcache_*: rmdir and umount prune dentries that way */
	"shrink_node*",
	"shrink_lruvec",
	"shrink_folio_list",
	"shrink_inactive_list",
	"shrink_active_list",
	"shrink_slab*",
	"shrink_zones",
	"shrink_many",
	"shrink_one",
	"try_to_free_pages",
	"try_to_free_mem_cgroup_pages",
	"__alloc_pages_slowpath*",
	"__alloc_pages_direct_reclaim",
	"__perform_reclaim",
	"do_try_to_free_pages",
	"throttle_direct_reclaim",
	"reclaim_throttle",
	"mem_cgroup_handle_over_high",
	"try_charge_memcg",
	"__alloc_pages_direct_compact",
	"compact_zone*",
	"try_to_compact_pages",
	NULL,
};

/* The cause table: the first frame from the top (after the generic ones)
 * that one of these names decides. */
static const struct cause_rule {
	int cause;
	const char *const *fns;
} cause_rules[] = {
	{ WAIT_XFS_INODEGC,
	  (const char *const[]){ "xfs_inodegc_flush", "xfs_inodegc_queue", "xfs_inodegc_throttle*",
				 "xfs_inode_mark_reclaimable", "xfs_fs_destroy_inode",
				 "xfs_inodegc_push", "xfs_inodegc_want_flush_work", NULL } },
	{ WAIT_XFS_LOG,
	  (const char *const[]){ "xlog_grant_head_wait", "xlog_grant_head_check", "xfs_log_reserve",
				 "xfs_log_regrant", "xlog_wait", "xlog_wait_on_iclog",
				 "xfs_log_force*", "__xfs_log_force*", "xlog_cil_force*",
				 "xlog_state_get_iclog_space", NULL } },
	{ WAIT_JOURNAL, (const char *const[]){ "jbd2_log_wait_commit",
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
	{ WAIT_DISCARD, (const char *const[]){ "blkdev_issue_discard", "__blkdev_issue_discard",
					       "ext4_issue_discard", "ext4_try_to_trim_range",
					       "ext4_trim_*", "xfs_discard*", "btrfs_discard*",
					       "btrfs_issue_discard", "__submit_discard_cmd", NULL } },
	{ WAIT_BTRFS, (const char *const[]){ "btrfs_tree_lock*",
					     "btrfs_tree_read_lock*",
					     "__btrfs_tree_lock*",
					     "__btrfs_tree_read_lock*",
					     "btrfs_lock_root_node",
					     "btrfs_read_lock_root_node",
					     "handle_reserve_ticket",
					     "btrfs_reserve_metadata_bytes",
					     "__reserve_bytes",
					     "btrfs_reserve_data_bytes",
					     "wait_reserve_ticket",
					     "btrfs_commit_transaction",
					     "wait_current_trans",
					     "btrfs_wait_for_commit",
					     "wait_for_commit",
					     "start_transaction",
					     "btrfs_balance_delayed_items",
					     "btrfs_run_delayed_*",
					     "__btrfs_run_delayed_*",
					     "btrfs_async_run_delayed_root",
					     "btrfs_commit_inode_delayed_*",
					     NULL } },
	{ WAIT_META_READ, (const char *const[]){ "__ext4_get_inode_loc",
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
	{ WAIT_WRITEBACK,
	  (const char *const[]){ "folio_wait_writeback", "folio_wait_stable", "wait_on_page_writeback",
				 "filemap_fdatawait*", "__filemap_fdatawait_range",
				 "filemap_write_and_wait*", "file_write_and_wait_range",
				 "writeback_inodes*", "sync_inodes*", "balance_dirty_pages*",
				 "wb_wait_for_completion", "truncate_inode_pages*", NULL } },
	{ WAIT_RECLAIM, reclaim_fns },
	{ WAIT_BLOCK_IO,
	  (const char *const[]){ "submit_bio_wait", "blk_mq_get_tag", "rq_qos_wait", "wbt_wait",
				 "blk_throtl*", "__blkdev_direct_IO*", "blkdev_issue_flush",
				 "bio_wait*", "__submit_bio_wait", NULL } },
	{ WAIT_FUSE, (const char *const[]){ "request_wait_answer", "fuse_simple_request",
					    "__fuse_request_send", "fuse_request_send*",
					    "fuse_wait_on_page_writeback", NULL } },
	{ WAIT_PEER,
	  (const char *const[]){ "pipe_read", "anon_pipe_read", "pipe_write", "anon_pipe_write",
				 "pipe_wait*", "unix_stream_read_generic", "unix_stream_data_wait",
				 "sk_wait_data", "sock_alloc_send_pskb", "unix_wait_for_peer",
				 "wait_for_unix_gc", "n_tty_read", "tty_write*", NULL } },
	{ WAIT_PAGE_FAULT, (const char *const[]){ "filemap_fault", "do_read_fault", "handle_mm_fault",
						  "__handle_mm_fault", "do_user_addr_fault",
						  "exc_page_fault", "asm_exc_page_fault", NULL } },
};

int wait_classify(const char *const *frames, int n, int *site, const char **lock, bool *space)
{
	const char *lk = NULL;
	bool flushed = false;
	int i = 0;

	*space = false;
	for (; i < n; i++) {
		size_t len = frame_fn_len(frames[i]);
		if (!frame_match_any(frames[i], len, generic))
			break;
		if (!lk)
			lk = lock_of(frames[i], len);
		if (frame_match(frames[i], len, "__flush_work") ||
		    frame_match(frames[i], len, "flush_work") ||
		    frame_match(frames[i], len, "flush_delayed_work"))
			flushed = true;
	}
	*site = i < n ? i : 0;
	*lock = lk;
	if (i >= n)
		return lk ? WAIT_LOCK : WAIT_OTHER;
	size_t len = frame_fn_len(frames[i]);
	if (lk) {
		if (!strcmp(lk, "rwsem:W") && frame_match_any(frames[i], len, dir_ops))
			return WAIT_DIR_LOCK;
		if (frame_match_any(frames[i], len, btrfs_lock_fns))
			return WAIT_BTRFS;
		return WAIT_LOCK;
	}
	/* xfs: destroy_inode -> __flush_work is the inode-GC throttle (the
	 * xfs functions in between are inlined) */
	if (flushed &&
	    (frame_match(frames[i], len, "destroy_inode") || !strncmp(frames[i], "xfs_", 4)))
		return WAIT_XFS_INODEGC;
	/* reclaim anywhere below: a wait for writeback or I/O that reclaim
	 * started is the memory limit's, not the writeback's */
	for (int j = i; j < n; j++)
		if (frame_match_any(frames[j], frame_fn_len(frames[j]), reclaim_fns))
			return WAIT_RECLAIM;
	/* the strong causes first, from the top; block I/O and page faults
	 * (submit_bio_wait, exc_page_fault) only when nothing below says
	 * what the I/O or the fault was for */
	int weak = -1;
	for (int j = i; j < n; j++) {
		size_t l = frame_fn_len(frames[j]);
		for (size_t r = 0; r < sizeof cause_rules / sizeof *cause_rules; r++)
			if (frame_match_any(frames[j], l, cause_rules[r].fns)) {
				if (cause_rules[r].cause == WAIT_BLOCK_IO ||
				    cause_rules[r].cause == WAIT_PAGE_FAULT) {
					if (weak < 0)
						weak = cause_rules[r].cause;
					continue;
				}
				if (cause_rules[r].cause == WAIT_JOURNAL)
					for (int q = j; q < n; q++) {
						size_t ql = frame_fn_len(frames[q]);
						if (frame_match(frames[q], ql,
								"__jbd2_log_wait_for_space") ||
						    frame_match(frames[q], ql,
								"jbd2_log_do_checkpoint"))
							*space = true;
					}
				return cause_rules[r].cause;
			}
	}
	return weak >= 0 ? weak : WAIT_OTHER;
}

int wait_caller_cause(const char *n, unsigned flags)
{
	size_t len = frame_fn_len(n);

	if (flags == PROBE_LCB_F_WRITE && frame_match_any(n, len, dir_ops))
		return WAIT_DIR_LOCK;
	if (frame_match_any(n, len, btrfs_lock_fns))
		return WAIT_BTRFS;
	return WAIT_LOCK;
}

/* The kinds: the first frame from the top that a kind's table names. */
static const struct detail_rule {
	int cause;
	const char *kind;
	const char *const *fns;
} detail_rules[] = {
	{ WAIT_META_READ, "extent_tree",
	  (const char *const[]){ "__read_extent_tree_block", "ext4_find_extent", "ext4_ext_find_extent",
				 "ext4_ext_remove_space", "ext4_get_branch", "ext4_ind_*", NULL } },
	{ WAIT_META_READ, "bitmap",
	  (const char *const[]){ "ext4_read_block_bitmap*", "ext4_read_inode_bitmap",
				 "ext4_wait_block_bitmap", "ext4_mb_init_cache",
				 "ext4_mb_load_buddy*", "xfs_read_agf", "xfs_alloc_read_agf",
				 "xfs_read_agi", "xfs_ialloc_read_agi", NULL } },
	{ WAIT_META_READ, "directory_block",
	  (const char *const[]){ "__ext4_read_dirblock", "ext4_readdir", "__ext4_find_entry",
				 "ext4_lookup", "ext4_bread_batch", "xfs_da_read_buf",
				 "xfs_dir3_*_read", "xfs_readdir", NULL } },
	{ WAIT_META_READ, "inode_table",
	  (const char *const[]){ "__ext4_get_inode_loc", "ext4_get_inode_loc", "__ext4_iget",
				 "xfs_imap*", "xfs_iread", "xfs_iget*", NULL } },
	{ WAIT_META_READ, "btree",
	  (const char *const[]){ "xfs_btree_read_buf_block", "btrfs_read_node*", "read_tree_block",
				 "read_block_for_search", "btrfs_search_slot", NULL } },
	{ WAIT_BTRFS, "tree_lock", btrfs_lock_fns },
	{ WAIT_BTRFS, "transaction",
	  (const char *const[]){ "btrfs_commit_transaction", "wait_current_trans",
				 "btrfs_wait_for_commit", "wait_for_commit", "start_transaction",
				 NULL } },
	{ WAIT_BTRFS, "delayed_items",
	  (const char *const[]){ "btrfs_balance_delayed_items", "btrfs_run_delayed_*",
				 "__btrfs_run_delayed_*", "btrfs_async_run_delayed_root",
				 "btrfs_commit_inode_delayed_*", NULL } },
	{ WAIT_BTRFS, "space",
	  (const char *const[]){ "handle_reserve_ticket", "btrfs_reserve_metadata_bytes",
				 "__reserve_bytes", "btrfs_reserve_data_bytes",
				 "wait_reserve_ticket", NULL } },
	/* a transaction committed synchronously (a wsync or dirsync mount, an
	 * fsync): the committer forces the log to disk and waits for it */
	{ WAIT_XFS_LOG, "sync_commit",
	  (const char *const[]){ "xfs_log_force_seq", "xlog_cil_force_seq", "xlog_force_lsn",
				 "xlog_wait_on_iclog", "xfs_log_force_inode", "xfs_file_fsync",
				 NULL } },
	{ WAIT_WRITEBACK, "throttle",
	  (const char *const[]){ "balance_dirty_pages*", "wbt_wait", "rq_qos_wait",
				 "__rq_qos_throttle", NULL } },
};

const char *wait_detail(const char *const *frames, int n, int cause)
{
	for (int i = 0; i < n; i++) {
		size_t l = frame_fn_len(frames[i]);
		for (size_t r = 0; r < sizeof detail_rules / sizeof *detail_rules; r++)
			if (detail_rules[r].cause == cause &&
			    frame_match_any(frames[i], l, detail_rules[r].fns))
				return detail_rules[r].kind;
	}
	return NULL;
}

bool wait_stack_throttled(const char *const *frames, int n)
{
	static const char *const throttle[] = {
		"blk_throtl*", "__blk_throtl*",	 "rq_qos_wait", "__rq_qos_throttle",
		"wbt_wait",    "blk_mq_get_tag", NULL,
	};
	for (int i = 0; i < n; i++)
		if (frame_match_any(frames[i], frame_fn_len(frames[i]), throttle))
			return true;
	return false;
}
