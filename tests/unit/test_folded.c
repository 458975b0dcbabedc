// SPDX-License-Identifier: GPL-3.0-or-later
/* The frames that are the tracer's own, left out of the flame graphs. */
#include <criterion/criterion.h>
#include "probes/frames.h"
#include "trace/folded.h"

Test(folded, the_tracers_frames_are_known)
{
	static const char *const tracer[] = {
		"bpf_prog_6deef7357e7b4530_btf_sys_exit",
		"bpf_trace_run2",
		"__bpf_trace_sys_enter",
		"bpf_get_stackid",
		"bpf_get_current_task_btf",
		"htab_map_update_elem",
		"lookup_nulls_elem_raw",
	};
	static const char *const kernel[] = {
		"do_unlinkat",
		"__schedule",
		"ext4_unlink",
		"syscall_trace_enter",
		"trace_sys_enter",
		"blk_mq_submit_bio",
		/* the tracepoint's iterator also runs perf's and ftrace's handlers */
		"__traceiter_sys_exit",
		"perf_syscall_exit",
	};
	for (size_t i = 0; i < sizeof tracer / sizeof *tracer; i++)
		cr_assert(trace_frame_is_tracer(tracer[i]), "%s", tracer[i]);
	for (size_t i = 0; i < sizeof kernel / sizeof *kernel; i++)
		cr_assert(!trace_frame_is_tracer(kernel[i]), "%s", kernel[i]);
}

/* This trace's own programs by their names, not another tool's. */
Test(folded, own_programs_are_told_from_another_tools)
{
	cr_assert(frame_is_own_prog("bpf_prog_1b4474ab8e1f2f2e_btf_sys_enter"));
	cr_assert(frame_is_own_prog("bpf_prog_ea226d081aa107b1_switch_in+0x1c"));
	cr_assert(frame_is_own_prog("bpf_prog_0123456789abcdef_cpu_sample"));
	cr_assert_not(frame_is_own_prog("bpf_prog_0123456789abcdef_sys_enter"));
	cr_assert_not(
		frame_is_own_prog("bpf_prog_0123456789abcdef_tracepoint__raw_syscalls__sys_enter"));
	cr_assert_not(frame_is_own_prog("bpf_trace_run2"));
	cr_assert_not(frame_is_own_prog("bpf_prog_short_btf_x"));
}
