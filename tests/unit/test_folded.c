// SPDX-License-Identifier: GPL-3.0-or-later
/* The frames that are the tracer's own, left out of the flame graphs. */
#include <criterion/criterion.h>
#include "trace/folded.h"

Test(folded, the_tracers_frames_are_known)
{
	static const char *const tracer[] = {
		"bpf_prog_6deef7357e7b4530_btf_sys_exit",
		"bpf_trace_run2",
		"__bpf_trace_sys_enter",
		"__traceiter_sched_switch",
		"bpf_get_stackid",
		"bpf_get_current_task_btf",
		"htab_map_update_elem",
		"lookup_nulls_elem_raw",
	};
	static const char *const kernel[] = {
		"do_unlinkat",	       "__schedule",	  "ext4_unlink",
		"syscall_trace_enter", "trace_sys_enter", "blk_mq_submit_bio",
	};
	for (size_t i = 0; i < sizeof tracer / sizeof *tracer; i++)
		cr_assert(trace_frame_is_tracer(tracer[i]), "%s", tracer[i]);
	for (size_t i = 0; i < sizeof kernel / sizeof *kernel; i++)
		cr_assert(!trace_frame_is_tracer(kernel[i]), "%s", kernel[i]);
}
