// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace text report's percentiles and which histograms it prints:
 * the header says the percentiles are estimates (test_hist.c checks how
 * they are bounded), and histograms of syscalls with a handful of calls are
 * left to --all and the JSON. */
#include <criterion/criterion.h>
#include "probes/hist.h"
#include "trace/report.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

static char *report(struct trace_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	trace_report_text(f, r);
	fclose(f);
	return buf;
}

static bool has_hist(const char *text, const char *name)
{
	char title[64];
	snprintf(title, sizeof title, "\n  %s: ", name);
	return strstr(text, title) != NULL;
}

Test(trace_report, small_histograms_only_with_all)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	char *argv[] = { "rm", "-rf", "d", NULL };
	struct trace_result r = { .mode = "command", .argv = argv, .exit_status = 0, .total = s };
	r.attached[PROBE_G_SYSCALLS] = true;
	for (int i = 0; i < 500; i++)
		hist_add_value(&s->sc[SYS_unlinkat].lat, 3000);
	for (int i = 0; i < 7; i++)
		hist_add_value(&s->sc[SYS_close].lat, 400); /* deletion syscall, few calls */
	for (int i = 0; i < 300; i++)
		hist_add_value(&s->sc[SYS_mmap].lat, 900); /* not a deletion syscall */
	hist_add_value(&s->sc[SYS_execve].lat, 222000);

	char *text = report(&r);
	cr_assert(strstr(text, "p50~ usecs") && strstr(text, "p99~ usecs"),
		  "the header does not mark the estimates:\n%s", text);
	cr_assert(strstr(text, "~ estimated within log2 buckets"), "no footnote");
	cr_assert(has_hist(text, "unlinkat"), "unlinkat's histogram is missing:\n%s", text);
	cr_assert(!has_hist(text, "close"), "a 7-call histogram in the default report");
	cr_assert(!has_hist(text, "mmap"), "a non-deletion histogram in the default report");
	cr_assert(!has_hist(text, "execve"), "a non-deletion histogram in the default report");
	cr_assert(strstr(text, "3 more histograms"), "the omission is not said:\n%s", text);
	/* the execve row: p99 is the call's 222.0 us, not 260.8 */
	cr_assert(strstr(text, "222.0 execve"), "execve's p99 above its only call:\n%s", text);
	free(text);

	r.all = true;
	text = report(&r);
	cr_assert(has_hist(text, "unlinkat") && has_hist(text, "close") && has_hist(text, "mmap") &&
			  has_hist(text, "execve"),
		  "--all misses histograms:\n%s", text);
	cr_assert(!strstr(text, "more histogram"), "--all still leaves some out");
	free(text);
	free(s);
}
