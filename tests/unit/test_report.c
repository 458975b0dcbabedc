// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace text report's percentiles and which histograms it prints:
 * the header says the percentiles are estimates (test_hist.c checks how
 * they are bounded), and histograms of syscalls with a handful of calls are
 * left to --all and the JSON. And the text and the JSON render one model
 * of each section: the same rows in the same order, the text stopping
 * where the model says. */
#include <criterion/criterion.h>
#include "lib/json.h"
#include "probes/hist.h"
#include "trace/report.h"
#include "trace/report_model.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* Not inlined: GCC then takes the text for the memstream's own buffer. */
__attribute__((noinline)) static char *report(struct trace_result *r)
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

__attribute__((noinline)) static char *report_json(struct trace_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	trace_report_json(f, r);
	fclose(f);
	return buf;
}

/* The lines of TEXT from the one after the line holding START up to the
 * next empty line, as a NULL-terminated array of copies. */
static char **lines_after(const char *text, const char *start)
{
	const char *p = strstr(text, start);
	char **lines = calloc(256, sizeof *lines);
	int n = 0;

	cr_assert(p, "no \"%s\" in:\n%s", start, text);
	p = strchr(p + 1, '\n');
	while (p && p[1] && p[1] != '\n' && n < 255) {
		const char *e = strchr(p + 1, '\n');
		size_t len = e ? (size_t)(e - p - 1) : strlen(p + 1);
		lines[n++] = strndup(p + 1, len);
		p = e;
	}
	return lines;
}

static void free_lines(char **lines)
{
	for (char **l = lines; *l; l++)
		free(*l);
	free(lines);
}

/* The last word of LINE. */
static const char *last_word(const char *line)
{
	const char *w = strrchr(line, ' ');
	return w ? w + 1 : line;
}

/* A result with more syscalls than the table shows, more wait sites than
 * the text lists, and kernel categories under and over 1%. */
struct synthetic {
	struct probe_snapshot *s;
	struct trace_wait_site sites[9];
	struct trace_result r;
};

static void synthetic(struct synthetic *x)
{
	static char *argv[] = { "rm", "-rf", "d", NULL };
	static const int nrs[] = { SYS_unlinkat,   SYS_getdents64, SYS_openat, SYS_close,
				   SYS_newfstatat, SYS_statx,	   SYS_mmap,   SYS_brk,
				   SYS_read,	   SYS_write,	   SYS_fcntl,  SYS_munmap,
				   SYS_execve,	   SYS_lseek,	   SYS_dup,    SYS_getpid };

	memset(x, 0, sizeof *x);
	x->s = calloc(1, sizeof *x->s);
	x->r = (struct trace_result){ .mode = "command", .argv = argv, .total = x->s };
	for (int g = 0; g < PROBE_G_COUNT; g++)
		x->r.attached[g] = true;
	/* times that differ from the syscall numbers' order, two of them equal */
	for (size_t i = 0; i < sizeof nrs / sizeof *nrs; i++)
		for (size_t j = 0; j < 10 + (i * 7) % 13; j++)
			hist_add_value(&x->s->sc[nrs[i]].lat, 1000 + 100 * ((i * 5) % 16));
	hist_add_value(&x->s->sc[SYS_getppid].lat, 1000);
	hist_add_value(&x->s->sc[SYS_getuid].lat, 1000);
	for (int i = 0; i < 9; i++) {
		struct trace_wait_site *w = &x->sites[i];
		snprintf(w->site, sizeof w->site, "site_%02d+0x1", i);
		w->cause = TC_META_READ;
		w->state = i % 2 ? PROBE_OFFCPU_BLOCKED : PROBE_OFFCPU_SLEEPING;
		w->count = 10;
		w->total_ns = 1000000 - 1000 * i;
		w->blocked_ns = w->total_ns / 2;
		w->subsys = -1;
	}
	x->r.sites = x->sites;
	x->r.nsites = 9;
	x->r.have_sites = true;
	x->r.cpu_samples[CPU_USER] = 10;
	x->r.cpu_samples[CPU_UNLINK] = 300;
	x->r.cpu_samples[CPU_EVICT] = 100;
	x->r.cpu_samples[CPU_LOOKUP] = 200;
	x->r.cpu_samples[CPU_JOURNAL] = 2; /* under 1%: the JSON's only */
	x->r.cpu_samples[CPU_OTHER] = 100; /* as many as eviction: after it */
	x->s->misc.cpu_samples = 2000;
}

/* The syscall table and the wait sites: the text's rows are the model's
 * first SHOWN and the JSON's are all of them, in the model's order. */
static void check_same_rows(struct trace_result *r)
{
	struct report_model *m = trace_report_model(r);
	char *text = report(r), *js = report_json(r), err[128];
	struct json_value *v = json_parse(js, err, sizeof err);
	cr_assert(v, "%s", err);

	const struct report_syscalls *sc = &m->syscalls;
	const struct json_value *jsc = json_get(v, "syscalls");
	cr_assert_eq(jsc->n, (size_t)sc->n);
	for (int i = 0; i < sc->n; i++)
		cr_assert_str_eq(json_get_str(jsc->items[i], "name", ""), sc->rows[i].name);
	char **table = lines_after(text, "\n------ ");
	int rows = 0;
	for (char **l = table; *l && **l != '-'; l++) {
		if (strstr(*l, "more syscalls (--all)")) {
			cr_assert_eq(atoi(strstr(*l, "... ") + 4), sc->n - sc->shown, "%s", *l);
			continue;
		}
		cr_assert_lt(rows, sc->shown, "a row past the model's: %s", *l);
		cr_assert_str_eq(last_word(*l), json_get_str(jsc->items[rows], "name", ""),
				 "text row %d is not the JSON's:\n%s", rows, text);
		rows++;
	}
	cr_assert_eq(rows, sc->shown);
	free_lines(table);

	const struct report_sites *ws = &m->sites;
	const struct json_value *jws = json_get(v, "wait_sites");
	cr_assert_eq(jws->n, (size_t)ws->n);
	char **sites = lines_after(text, "site <- callers");
	rows = 0;
	for (char **l = sites; *l; l++) {
		if (strstr(*l, "more sites")) {
			cr_assert_eq(atoi(strstr(*l, "... ") + 4), ws->n - ws->shown, "%s", *l);
			continue;
		}
		cr_assert_lt(rows, ws->shown, "a site past the model's: %s", *l);
		cr_assert_str_eq(last_word(*l), json_get_str(jws->items[rows], "site", ""),
				 "text site %d is not the JSON's:\n%s", rows, text);
		cr_assert_str_eq(last_word(*l), ws->rows[rows].w->site);
		rows++;
	}
	cr_assert_eq(rows, ws->shown);
	free_lines(sites);

	/* the kernel categories the text names are the JSON's shown ones, in order */
	const struct report_oncpu *oc = &m->oncpu;
	const struct json_value *cats = json_get(json_get(v, "oncpu"), "kernel_categories");
	cr_assert_eq(cats->n, (size_t)oc->ncats);
	const char *p = strstr(text, "on-CPU kernel:");
	cr_assert(p, "%s", text);
	for (int i = 0; i < oc->ncats; i++) {
		const char *name = json_get_str(cats->items[i], "name", "");
		cr_assert_str_eq(name, cpu_cat_name(oc->cats[i].cat));
		const char *at = strstr(p, name);
		if (oc->cats[i].shown) {
			cr_assert(at, "%s is not in: %s", name, p);
			p = at;
		} else {
			cr_assert_lt(json_get_num(cats->items[i], "share", 1), 0.01);
		}
	}

	json_free(v);
	free(js);
	free(text);
	trace_report_model_free(m);
}

Test(trace_report, text_and_json_show_the_same_rows)
{
	struct synthetic x;
	synthetic(&x);

	struct report_model *m = trace_report_model(&x.r);
	cr_assert_eq(m->syscalls.n, 18);
	cr_assert_eq(m->syscalls.shown, TRACE_TABLE_ROWS);
	cr_assert_eq(m->sites.shown, TRACE_TEXT_SITES);
	for (int i = 1; i < m->syscalls.n; i++) {
		const struct report_syscall *a = &m->syscalls.rows[i - 1], *b = &m->syscalls.rows[i];
		cr_assert(a->st->lat.total > b->st->lat.total ||
				  (a->st->lat.total == b->st->lat.total && a->nr < b->nr),
			  "syscall rows out of order at %d", i);
	}
	bool cut = false;
	for (int i = 0; i < m->oncpu.ncats; i++)
		cut |= !m->oncpu.cats[i].shown;
	cr_assert(cut, "no kernel category under 1%%");
	trace_report_model_free(m);
	check_same_rows(&x.r);

	/* --all: the text shows every row the JSON has */
	x.r.all = true;
	m = trace_report_model(&x.r);
	cr_assert_eq(m->syscalls.shown, m->syscalls.n);
	cr_assert_eq(m->sites.shown, m->sites.n);
	trace_report_model_free(m);
	check_same_rows(&x.r);
	free(x.s);
}
