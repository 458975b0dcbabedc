// SPDX-License-Identifier: GPL-3.0-or-later
/* On-CPU categories from sampled kernel stacks (cpuclass.h). */
#include "probes/cpuclass.h"
#include "probes/frames.h"

#include <stddef.h>

static const char *const cat_ids[CPU_COUNT] = {
	"unlink",     "evict",	       "readdir", "lookup",    "reclaim",
	"page_fault", "overlayfs",     "fuse",	  "lock_spin", "journal",
	"alloc",      "syscall_entry", "irq",	  "other",     "user",
};
static const char *const cat_names[CPU_COUNT] = {
	"unlink",      "eviction/freeing",   "readdir",	   "lookup/open",   "reclaim",
	"page faults", "overlayfs copy-up",  "FUSE",	   "lock spinning", "journal",
	"allocation",  "syscall entry/exit", "interrupts", "other",	    "user",
};

const char *cpu_cat_id(int c)
{
	return c >= 0 && c < CPU_COUNT ? cat_ids[c] : "?";
}

const char *cpu_cat_name(int c)
{
	return c >= 0 && c < CPU_COUNT ? cat_names[c] : "?";
}

/* Return-to-user work and the syscall tracing hooks (the probes' own
 * sys_enter/sys_exit programs run under them). The BPF frames themselves
 * are in no table: a program on another tracepoint (ext4_unlink_enter)
 * counts as the code that fired it. */
static const char *const entry_fns[] = {
	"syscall_exit_to_user_mode*",
	"exit_to_user_mode*",
	"syscall_exit_work",
	"syscall_trace_enter",
	"syscall_enter_from_user_mode*",
	"irqentry_exit_to_user_mode",
	"task_work_run",
	"arch_do_signal_or_restart",
	"switch_fpu_return",
	"fpregs_restore_userregs",
	"__traceiter_sys_*",
	"trace_sys_*",
	"__bpf_trace_sys_*",
	"__rseq_handle_notify_resume",
	"rseq_*",
	"resume_user_mode_work",
	NULL,
};

/* Where an interrupt or softirq entered: the frames above are its work. */
static const char *const irq_fns[] = {
	"asm_sysvec_*", "sysvec_*",	  "asm_common_interrupt", "common_interrupt",
	"irq_exit_rcu", "__irq_exit_rcu", "handle_softirqs",	  "__do_softirq",
	"do_softirq*",	"run_ksoftirqd",  "__sysvec_*",		  "asm_exc_nmi",
	"exc_nmi",	"do_nmi",	  "irq_enter_rcu",	  NULL,
};

static const char *const reclaim_fns[] = {
	"shrink_node*",
	"shrink_lruvec",
	"shrink_zones",
	"shrink_many",
	"shrink_one",
	"shrink_slab*",
	"shrink_inactive_list",
	"shrink_active_list",
	"shrink_folio_list",
	"shrink_page_list",
	"try_to_free_pages",
	"try_to_free_mem_cgroup_pages",
	"do_try_to_free_pages",
	"mem_cgroup_handle_over_high",
	"reclaim_high",
	"__alloc_pages_direct_reclaim",
	"__perform_reclaim",
	"try_to_shrink_lruvec",
	"lru_gen_shrink_*",
	"evict_folios",
	"__alloc_pages_direct_compact",
	"try_to_compact_pages",
	"compact_zone*",
	"balance_pgdat",
	"kswapd*",
	NULL,
};

static const char *const spin_fns[] = {
	"native_queued_spin_lock_slowpath",
	"queued_spin_lock_slowpath",
	"__pv_queued_spin_lock_slowpath",
	"pv_queued_spin_lock_slowpath",
	"queued_read_lock_slowpath",
	"queued_write_lock_slowpath",
	"osq_lock",
	"rwsem_spin_on_owner",
	"rwsem_optimistic_spin",
	"mutex_spin_on_owner",
	"mutex_optimistic_spin",
	"rt_mutex_spin_on_owner",
	"__cmpwait_relaxed",
	NULL,
};

static const char *const fault_fns[] = {
	"exc_page_fault",
	"asm_exc_page_fault",
	"do_user_addr_fault",
	"handle_mm_fault",
	"__handle_mm_fault",
	"do_anonymous_page",
	"do_fault",
	"do_read_fault",
	"do_cow_fault",
	"do_shared_fault",
	"do_wp_page",
	"wp_page_copy",
	"filemap_fault",
	"do_swap_page",
	"handle_pte_fault",
	"do_pte_missing",
	NULL,
};

static const char *const overlay_fns[] = {
	"ovl_copy_up*",
	"ovl_do_copy_up",
	"ovl_copy_file",
	"ovl_copy_xattr",
	"ovl_whiteout",
	"ovl_do_whiteout",
	"ovl_cleanup_and_whiteout",
	"ovl_remove_and_whiteout",
	"ovl_unlink",
	"ovl_rmdir",
	"ovl_do_remove",
	"ovl_create_or_link",
	"ovl_cleanup*",
	/* every overlayfs frame: lookups through the layers, whiteouts,
	 * copy-ups are all the work the overlay adds to the upper filesystem's */
	"ovl_*",
	NULL,
};

static const char *const fuse_fns[] = { "fuse_*", "__fuse_*", NULL };

/* The strong categories, in order (precedence 2 and 3 of cpuclass.h). */
static const struct {
	int cat;
	const char *const *fns;
} strong[] = {
	{ CPU_RECLAIM, reclaim_fns }, { CPU_LOCK_SPIN, spin_fns }, { CPU_PAGE_FAULT, fault_fns },
	{ CPU_OVERLAY, overlay_fns }, { CPU_FUSE, fuse_fns },
};

static const char *const unlink_fns[] = {
	"do_unlinkat",
	"do_rmdir",
	"vfs_unlink",
	"vfs_rmdir",
	"__x64_sys_unlink*",
	"__x64_sys_rmdir",
	"__arm64_sys_unlink*",
	"__arm64_sys_rmdir",
	"__do_sys_unlink*",
	"__se_sys_unlink*",
	"d_delete",
	"d_delete_notify",
	"dentry_unlink_inode",
	"simple_unlink",
	"simple_rmdir",
	"shmem_unlink",
	"shmem_rmdir",
	"ext4_unlink",
	"__ext4_unlink",
	"ext4_rmdir",
	"ext4_delete_entry",
	"ext4_generic_delete_entry",
	"ext4_orphan_add",
	"ext4_orphan_del",
	"xfs_vn_unlink",
	"xfs_remove",
	"xfs_dir_removename",
	"xfs_dir2_*_removename",
	"xfs_droplink",
	"xfs_iunlink*",
	"btrfs_unlink",
	"btrfs_rmdir",
	"btrfs_unlink_inode",
	"__btrfs_unlink_inode",
	"btrfs_del_dir_entries_in_log",
	"btrfs_del_inode_ref*",
	"btrfs_orphan_add",
	"may_delete*",
	"d_walk",
	"shrink_dcache_parent",
	"dont_mount",
	"detach_mounts",
	NULL,
};

static const char *const evict_fns[] = {
	"evict",
	"iput",
	"iput_final",
	"destroy_inode",
	"__destroy_inode",
	"clear_inode",
	"truncate_inode_pages*",
	"truncate_inode_folio",
	"truncate_folio_batch_exceptionals",
	"shmem_undo_range",
	"shmem_evict_inode",
	"shmem_truncate_range",
	"shmem_free_inode",
	"ext4_evict_inode",
	"ext4_truncate",
	"ext4_ext_truncate",
	"ext4_ext_remove_space",
	"ext4_ext_rm_leaf",
	"ext4_remove_blocks",
	"ext4_free_blocks",
	"ext4_free_inode",
	"ext4_mb_free_*",
	"ext4_mb_clear_bb",
	"ext4_es_remove_extent",
	"ext4_clear_inode",
	"ext4_discard_preallocations",
	"ext4_ind_truncate",
	"xfs_inactive*",
	"xfs_inodegc_*",
	"xfs_bunmapi*",
	"__xfs_bunmapi",
	"xfs_itruncate_extents*",
	"xfs_ifree*",
	"xfs_difree*",
	"xfs_free_extent*",
	"__xfs_free_extent*",
	"xfs_extent_free_*",
	"xfs_bmap_del_extent*",
	"xfs_fs_destroy_inode",
	"btrfs_evict_inode",
	"btrfs_truncate_inode_items",
	"__btrfs_free_extent*",
	"btrfs_free_extent",
	"btrfs_drop_extent_map_range",
	"btrfs_destroy_inode",
	NULL,
};

static const char *const readdir_fns[] = {
	"iterate_dir",
	"__x64_sys_getdents*",
	"__arm64_sys_getdents*",
	"__do_sys_getdents*",
	"filldir*",
	"verify_dirent_name",
	"dcache_readdir",
	"scan_positives",
	"ext4_readdir",
	"ext4_dx_readdir",
	"ext4_htree_fill_tree",
	"htree_dirblock_to_tree",
	"ext4_htree_store_dirent",
	"call_filldir",
	"xfs_readdir",
	"xfs_dir2_*getdents",
	"xfs_dir2_leaf_readbuf",
	"btrfs_real_readdir",
	"btrfs_readdir_*",
	"offset_readdir",
	"offset_dir_emit",
	NULL,
};

static const char *const lookup_fns[] = {
	"path_openat",
	"do_filp_open",
	"do_sys_openat2",
	"do_sys_open",
	"__x64_sys_open*",
	"__arm64_sys_open*",
	"do_open",
	"may_open",
	"vfs_open",
	"do_dentry_open",
	"link_path_walk*",
	"walk_component",
	"lookup_fast",
	"lookup_slow",
	"__lookup_slow",
	"lookup_one*",
	"__lookup_hash",
	"lookup_dcache",
	"d_lookup",
	"__d_lookup*",
	"d_alloc_parallel",
	"path_lookupat",
	"path_parentat",
	"filename_lookup",
	"filename_parentat",
	"complete_walk",
	"terminate_walk",
	"step_into",
	"try_to_unlazy*",
	"inode_permission",
	"generic_permission",
	"getname*",
	"strncpy_from_user",
	"vfs_statx*",
	"vfs_fstatat",
	"do_statx*",
	"vfs_getattr*",
	"__x64_sys_newfstatat",
	"__x64_sys_statx",
	"__x64_sys_close*",
	"close_fd",
	"filp_close",
	"filp_flush",
	"__fput",
	"fput*",
	"____fput",
	"alloc_empty_file",
	"ext4_lookup",
	"__ext4_find_entry",
	"ext4_find_entry",
	"xfs_vn_lookup",
	"xfs_lookup",
	"btrfs_lookup*",
	"simple_lookup",
	NULL,
};

static const char *const journal_fns[] = {
	"jbd2_*",
	"__jbd2_*",
	"start_this_handle",
	"add_transaction_credits",
	"do_get_write_access",
	"__ext4_journal_*",
	"ext4_journal_check_start",
	"__ext4_handle_dirty_metadata",
	"ext4_handle_dirty_*",
	"ext4_mark_iloc_dirty",
	"__ext4_mark_inode_dirty",
	"ext4_mark_inode_dirty",
	"ext4_reserve_inode_write",
	"ext4_do_update_inode*",
	"xfs_log_*",
	"xlog_*",
	"xfs_trans_*",
	"__xfs_trans_commit",
	"xfs_cil_*",
	"xfs_defer_*",
	"start_transaction",
	"btrfs_start_transaction*",
	"btrfs_end_transaction",
	"__btrfs_end_transaction",
	"btrfs_commit_transaction",
	"btrfs_block_rsv_*",
	"btrfs_delayed_*",
	NULL,
};

static const char *const alloc_fns[] = {
	"kmem_cache_alloc*",
	"kmem_cache_free",
	"kmalloc*",
	"__kmalloc*",
	"kfree",
	"kvfree",
	"__slab_alloc*",
	"___slab_alloc",
	"__slab_free",
	"slab_free*",
	"allocate_slab",
	"new_slab",
	"__alloc_pages*",
	"alloc_pages*",
	"__folio_alloc*",
	"folio_alloc*",
	"get_page_from_freelist",
	"rmqueue*",
	"__rmqueue*",
	"__mem_cgroup_charge",
	"charge_memcg",
	"try_charge_memcg",
	"obj_cgroup_charge*",
	"__memcg_slab_*",
	"memcg_slab_*",
	"refill_obj_stock",
	"mod_objcg_state",
	"kmem_cache_alloc_lru*",
	"alloc_inode",
	"__d_alloc",
	"d_alloc",
	NULL,
};

/* The syscall dispatch: the entry itself only when it is on top. */
static const char *const dispatch_fns[] = {
	"entry_SYSCALL_64*",
	"do_syscall_64",
	"x64_sys_call",
	"syscall_return_via_sysret",
	"entry_SYSRETQ_*",
	"el0_svc*",
	"invoke_syscall",
	"do_el0_svc",
	NULL,
};

/* The table of precedence 4, searched frame by frame from the top. */
static const struct {
	int cat;
	const char *const *fns;
} table[] = {
	{ CPU_UNLINK, unlink_fns }, { CPU_EVICT, evict_fns },	  { CPU_READDIR, readdir_fns },
	{ CPU_LOOKUP, lookup_fns }, { CPU_JOURNAL, journal_fns }, { CPU_ALLOC, alloc_fns },
	{ CPU_ENTRY, entry_fns },
};

int cpu_classify(const char *const *frames, int n, int *site)
{
	*site = n > 0 ? 0 : -1;
	if (n <= 0)
		return CPU_OTHER;
	for (int i = 0; i < n; i++)
		if (frame_match_any(frames[i], frame_fn_len(frames[i]), irq_fns)) {
			/* returning to user mode from the interrupt (preemption,
			 * signals): return-to-user work */
			for (int j = 0; j < i; j++)
				if (frame_match_any(frames[j], frame_fn_len(frames[j]), entry_fns)) {
					*site = j;
					return CPU_ENTRY;
				}
			*site = i;
			return CPU_IRQ;
		}
	for (size_t r = 0; r < sizeof strong / sizeof *strong; r++)
		for (int i = 0; i < n; i++)
			if (frame_match_any(frames[i], frame_fn_len(frames[i]), strong[r].fns)) {
				*site = i;
				return strong[r].cat;
			}
	for (int i = 0; i < n; i++) {
		size_t len = frame_fn_len(frames[i]);
		for (size_t r = 0; r < sizeof table / sizeof *table; r++)
			if (frame_match_any(frames[i], len, table[r].fns)) {
				*site = i;
				return table[r].cat;
			}
		if (frame_match_any(frames[i], len, dispatch_fns)) {
			/* nothing known above: the entry code itself if on top */
			*site = 0;
			return i == 0 ? CPU_ENTRY : CPU_OTHER;
		}
	}
	return CPU_OTHER;
}
