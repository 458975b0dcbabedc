// SPDX-License-Identifier: GPL-3.0-or-later
/* On-CPU categories from sampled kernel stacks (probes/cpuclass.h). The
 * stacks are perf record -g samples of rm -rf on tmpfs and ext4 and of a
 * delete beside a reader in a memory cgroup at its limit, on Linux 6.18
 * (innermost first; a few with the offsets %pS gives). */
#include <criterion/criterion.h>
#include "probes/cpuclass.h"
#include "probes/subsys.h"
#include "trace/oncpu.h"

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

static int classify(const char *const *f, int n)
{
	int site;
	return cpu_classify(f, n, &site);
}

Test(cpuclass, tmpfs_unlink_and_eviction)
{
	const char *unlink[] = { "mtree_erase+0x59",   "simple_offset_remove+0x1a",
				 "shmem_unlink+0x2f",  "vfs_unlink+0x111",
				 "do_unlinkat+0x216",  "__x64_sys_unlinkat+0x3d",
				 "do_syscall_64+0x81", "entry_SYSCALL_64_after_hwframe+0x76" };
	const char *dkill[] = { "__dentry_kill", "dput",
				"do_unlinkat",	 "__x64_sys_unlinkat",
				"do_syscall_64", "entry_SYSCALL_64_after_hwframe" };
	const char *undo[] = { "shmem_undo_range",
			       "shmem_evict_inode",
			       "evict",
			       "do_unlinkat",
			       "__x64_sys_unlinkat",
			       "do_syscall_64",
			       "entry_SYSCALL_64_after_hwframe" };
	const char *evict_lock[] = { "_raw_spin_lock", "evict",
				     "do_unlinkat",    "__x64_sys_unlinkat",
				     "do_syscall_64",  "entry_SYSCALL_64_after_hwframe" };
	const char *rmdir[] = { "___d_drop",	      "__dentry_kill",
				"shrink_dentry_list", "shrink_dcache_parent",
				"vfs_rmdir",	      "do_rmdir",
				"__x64_sys_unlinkat", "do_syscall_64" };
	int site;

	cr_expect_eq(cpu_classify(unlink, N(unlink), &site), CPU_UNLINK);
	cr_expect_eq(site, 2, "shmem_unlink decides, not %d", site);
	cr_expect_eq(classify(dkill, N(dkill)), CPU_UNLINK);
	cr_expect_eq(classify(undo, N(undo)), CPU_EVICT);
	cr_expect_eq(classify(evict_lock, N(evict_lock)), CPU_EVICT,
		     "an uncontended lock is its caller's work");
	/* shrink_dcache_parent is rmdir's, not reclaim's shrinker */
	cr_expect_eq(classify(rmdir, N(rmdir)), CPU_UNLINK);
}

Test(cpuclass, readdir_and_lookup)
{
	const char *tmpfs_rd[] = { "_raw_spin_lock",
				   "find_positive_dentry",
				   "offset_readdir",
				   "iterate_dir",
				   "__x64_sys_getdents64",
				   "do_syscall_64",
				   "entry_SYSCALL_64_after_hwframe" };
	const char *ext4_rd[] = { "ext4_htree_store_dirent",
				  "htree_dirblock_to_tree",
				  "ext4_htree_fill_tree",
				  "ext4_readdir",
				  "iterate_dir",
				  "__x64_sys_getdents64",
				  "do_syscall_64",
				  "entry_SYSCALL_64_after_hwframe" };
	const char *dlookup[] = { "__d_lookup",	   "d_lookup",
				  "lookup_dcache", "lookup_one_qstr_excl",
				  "do_unlinkat",   "__x64_sys_unlinkat",
				  "do_syscall_64", "entry_SYSCALL_64_after_hwframe" };
	const char *getname[] = { "getname_flags.part.0", "__x64_sys_unlinkat", "do_syscall_64",
				  "entry_SYSCALL_64_after_hwframe" };
	const char *delete_entry[] = { "__ext4_check_dir_entry",
				       "ext4_generic_delete_entry",
				       "ext4_delete_entry",
				       "__ext4_unlink",
				       "ext4_unlink",
				       "vfs_unlink",
				       "do_unlinkat",
				       "__x64_sys_unlinkat" };

	cr_expect_eq(classify(tmpfs_rd, N(tmpfs_rd)), CPU_READDIR);
	cr_expect_eq(classify(ext4_rd, N(ext4_rd)), CPU_READDIR);
	cr_expect_eq(classify(dlookup, N(dlookup)), CPU_LOOKUP);
	cr_expect_eq(classify(getname, N(getname)), CPU_LOOKUP);
	/* scanning the directory block to remove the entry is the unlink's */
	cr_expect_eq(classify(delete_entry, N(delete_entry)), CPU_UNLINK);
}

Test(cpuclass, ext4_journal_and_freeing)
{
	const char *csum[] = { "crc32c",
			       "ext4_inode_csum",
			       "ext4_inode_csum_set",
			       "ext4_fill_raw_inode",
			       "ext4_mark_iloc_dirty",
			       "__ext4_mark_inode_dirty",
			       "__ext4_unlink",
			       "ext4_unlink" };
	const char *jbd2[] = { "jbd2_write_access_granted",
			       "jbd2_journal_get_write_access",
			       "__ext4_journal_get_write_access",
			       "ext4_reserve_inode_write",
			       "ext4_orphan_add",
			       "__ext4_unlink",
			       "ext4_unlink",
			       "vfs_unlink" };
	const char *free_inode[] = { "ext4_free_inode", "ext4_evict_inode",   "evict",
				     "do_unlinkat",	"__x64_sys_unlinkat", "do_syscall_64" };
	const char *extents[] = { "ext4_free_blocks",  "ext4_remove_blocks",
				  "ext4_ext_rm_leaf",  "ext4_ext_remove_space",
				  "ext4_ext_truncate", "ext4_truncate",
				  "ext4_evict_inode",  "evict" };
	const char *kfree[] = {
		"kmem_cache_free", "jbd2_journal_stop", "__ext4_journal_stop", "ext4_evict_inode",
		"evict",	   "do_unlinkat"
	};

	cr_expect_eq(classify(csum, N(csum)), CPU_JOURNAL);
	cr_expect_eq(classify(jbd2, N(jbd2)), CPU_JOURNAL);
	cr_expect_eq(classify(free_inode, N(free_inode)), CPU_EVICT);
	cr_expect_eq(classify(extents, N(extents)), CPU_EVICT);
	cr_expect_eq(classify(kfree, N(kfree)), CPU_ALLOC);
}

Test(cpuclass, reclaim_wins_over_the_syscall_and_what_it_calls)
{
	const char *charge[] = { "shrink_folio_list",
				 "shrink_lruvec",
				 "shrink_node",
				 "do_try_to_free_pages",
				 "try_to_free_mem_cgroup_pages",
				 "try_charge_memcg",
				 "charge_memcg",
				 "__mem_cgroup_charge",
				 "filemap_add_folio",
				 "page_cache_ra_unbounded",
				 "filemap_read",
				 "vfs_read" };
	const char *tlb[] = { "smp_call_function_many_cond",
			      "on_each_cpu_cond_mask",
			      "arch_tlbbatch_flush",
			      "try_to_unmap_flush",
			      "shrink_folio_list",
			      "shrink_lruvec",
			      "shrink_node",
			      "do_try_to_free_pages",
			      "try_to_free_mem_cgroup_pages" };
	/* a shrinker evicting inodes: reclaim, not eviction */
	const char *slab[] = { "ext4_evict_inode",     "evict",
			       "dispose_list",	       "prune_icache_sb",
			       "super_cache_scan",     "do_shrink_slab",
			       "shrink_slab",	       "shrink_node",
			       "do_try_to_free_pages", "try_to_free_mem_cgroup_pages" };
	const char *high[] = { "shrink_lruvec",		"shrink_node",
			       "do_try_to_free_pages",	"try_to_free_mem_cgroup_pages",
			       "reclaim_high",		"mem_cgroup_handle_over_high",
			       "resume_user_mode_work", "syscall_exit_to_user_mode",
			       "do_syscall_64" };
	int site;

	cr_expect_eq(cpu_classify(charge, N(charge), &site), CPU_RECLAIM);
	cr_expect_eq(site, 0);
	cr_expect_eq(classify(tlb, N(tlb)), CPU_RECLAIM);
	cr_expect_eq(classify(slab, N(slab)), CPU_RECLAIM);
	cr_expect_eq(classify(high, N(high)), CPU_RECLAIM);
}

Test(cpuclass, spinning_faults_overlay_fuse)
{
	const char *spin[] = { "native_queued_spin_lock_slowpath",
			       "_raw_spin_lock",
			       "inode_sb_list_del",
			       "evict",
			       "do_unlinkat",
			       "__x64_sys_unlinkat" };
	const char *osq[] = { "osq_lock", "rwsem_optimistic_spin", "rwsem_down_write_slowpath",
			      "down_write", "do_unlinkat" };
	const char *fault[] = { "clear_page_erms",
				"get_page_from_freelist",
				"__alloc_pages_noprof",
				"alloc_anon_folio",
				"do_anonymous_page",
				"__handle_mm_fault",
				"handle_mm_fault",
				"do_user_addr_fault",
				"exc_page_fault",
				"asm_exc_page_fault",
				"filldir64",
				"iterate_dir" };
	const char *copyup[] = { "memcpy_orig",	      "ext4_write_begin", "generic_perform_write",
				 "do_splice_direct",  "ovl_copy_up_file", "ovl_copy_up_one",
				 "ovl_copy_up_flags", "ovl_do_remove",	  "vfs_rmdir" };
	const char *whiteout[] = { "ext4_add_nondir",
				   "ext4_create",
				   "vfs_create",
				   "ovl_do_whiteout",
				   "ovl_cleanup_and_whiteout",
				   "ovl_remove_and_whiteout",
				   "ovl_do_remove",
				   "vfs_unlink" };
	const char *fuse[] = { "fuse_simple_request", "fuse_lookup_name", "fuse_lookup",
			       "__lookup_slow",	      "walk_component",	  "path_lookupat" };

	cr_expect_eq(classify(spin, N(spin)), CPU_LOCK_SPIN);
	cr_expect_eq(classify(osq, N(osq)), CPU_LOCK_SPIN);
	cr_expect_eq(classify(fault, N(fault)), CPU_PAGE_FAULT,
		     "a fault's allocation is the fault's");
	cr_expect_eq(classify(copyup, N(copyup)), CPU_OVERLAY);
	cr_expect_eq(classify(whiteout, N(whiteout)), CPU_OVERLAY);
	cr_expect_eq(classify(fuse, N(fuse)), CPU_FUSE);
}

Test(cpuclass, entry_interrupts_and_unknown)
{
	const char *top[] = { "do_syscall_64+0x81", "entry_SYSCALL_64_after_hwframe+0x76" };
	const char *dispatch[] = { "x64_sys_call", "do_syscall_64", "entry_SYSCALL_64_after_hwframe" };
	const char *hook[] = { "bpf_prog_904b5b9bda49fe36_btf_sys_enter",
			       "bpf_trace_run2",
			       "__bpf_trace_sys_enter",
			       "syscall_trace_enter",
			       "do_syscall_64",
			       "entry_SYSCALL_64_after_hwframe" };
	/* a program on a filesystem tracepoint is the filesystem code's */
	const char *fs_hook[] = { "bpf_prog_904b5b9bda49fe36_btf_ext4_unlink_enter",
				  "bpf_trace_run2",
				  "__traceiter_ext4_unlink_enter",
				  "ext4_unlink",
				  "vfs_unlink",
				  "do_unlinkat" };
	const char *resched[] = {
		"finish_task_switch.isra.0", "__schedule",    "schedule",
		"exit_to_user_mode_loop",    "do_syscall_64", "entry_SYSCALL_64_after_hwframe"
	};
	const char *rcu[] = { "kmem_cache_free",
			      "rcu_do_batch",
			      "rcu_core",
			      "handle_softirqs",
			      "__irq_exit_rcu",
			      "sysvec_apic_timer_interrupt",
			      "asm_sysvec_apic_timer_interrupt",
			      "__d_lookup",
			      "d_lookup",
			      "lookup_dcache",
			      "lookup_one_qstr_excl",
			      "do_unlinkat" };
	const char *ipi[] = { "irqentry_exit_to_user_mode", "asm_sysvec_reschedule_ipi" };
	const char *brk[] = { "mas_wr_store_type", "mas_store_gfp", "do_vmi_align_munmap",
			      "__do_sys_brk",	   "do_syscall_64", "entry_SYSCALL_64_after_hwframe" };
	int site;

	cr_expect_eq(classify(top, N(top)), CPU_ENTRY);
	cr_expect_eq(classify(dispatch, N(dispatch)), CPU_ENTRY);
	cr_expect_eq(classify(hook, N(hook)), CPU_ENTRY);
	cr_expect_eq(classify(fs_hook, N(fs_hook)), CPU_UNLINK);
	cr_expect_eq(classify(resched, N(resched)), CPU_ENTRY);
	cr_expect_eq(classify(rcu, N(rcu)), CPU_IRQ, "the softirq's frees are not the lookup's");
	cr_expect_eq(classify(ipi, N(ipi)), CPU_ENTRY);
	/* unknown syscall work is other, not entry: do_syscall_64 is below it */
	cr_expect_eq(cpu_classify(brk, N(brk), &site), CPU_OTHER);
	cr_expect_eq(site, 0);
	cr_expect_eq(cpu_classify(NULL, 0, &site), CPU_OTHER);
	cr_expect_eq(site, -1);
}

Test(cpuclass, names)
{
	for (int c = 0; c < CPU_COUNT; c++) {
		cr_expect_str_neq(cpu_cat_id(c), "?");
		cr_expect_str_neq(cpu_cat_name(c), "?");
	}
	cr_expect_str_eq(cpu_cat_id(CPU_EVICT), "evict");
	cr_expect_str_eq(cpu_cat_id(CPU_USER), "user");
	cr_expect_str_eq(cpu_cat_id(CPU_COUNT), "?");
}

/* Another tracer's handler on top of a stack spent that CPU, wherever the
 * event fired (perf trace -a on every system call); another tool's BPF
 * program is BPF's; this trace's own programs stay with the code that ran
 * them. */
Test(cpuclass, another_tracers_handlers_are_its_cpu)
{
	static const char *const perf[] = {
		"_raw_spin_lock",
		"perf_trace_buf_alloc",
		"perf_syscall_exit",
		"__traceiter_sys_exit",
		"syscall_exit_work",
		"do_syscall_64",
		"entry_SYSCALL_64_after_hwframe",
	};
	static const char *const other_bpf[] = {
		"htab_map_update_elem",	 "bpf_prog_0123456789abcdef_sys_enter",
		"bpf_trace_run2",	 "__bpf_trace_sys_enter",
		"__traceiter_sys_enter", "syscall_trace_enter",
		"do_syscall_64",
	};
	static const char *const own_bpf[] = {
		"bpf_prog_1b4474ab8e1f2f2e_btf_sys_enter",
		"bpf_trace_run2",
		"__bpf_trace_sys_enter",
		"__traceiter_sys_enter",
		"syscall_trace_enter",
		"do_syscall_64",
	};
	static const char *const unlink[] = {
		"shmem_unlink", "vfs_unlink", "do_unlinkat", "__x64_sys_unlinkat", "do_syscall_64",
	};
	const char *prog = NULL;

	cr_assert_eq(trace_cpu_subsys(perf, N(perf), &prog), SS_TRACING);
	cr_assert_eq(trace_cpu_subsys(other_bpf, N(other_bpf), &prog), SS_BPF);
	cr_assert_str_eq(prog, "bpf_prog_0123456789abcdef_sys_enter");
	cr_assert_eq(trace_cpu_subsys(own_bpf, N(own_bpf), &prog), -1);
	cr_assert_eq(trace_cpu_subsys(unlink, N(unlink), &prog), -1);
}
