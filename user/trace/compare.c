// SPDX-License-Identifier: GPL-3.0-or-later
/* adaptrm --trace --compare A.json B.json: two saved traces side by side,
 * with the ratio B/A per row and the histograms next to each other. */
#include "trace/compare.h"
#include "lib/json.h"
#include "lib/msg.h"
#include "lib/wrap.h"
#include "probes/hist.h"
#include "trace/fsfields.h"
#include "trace/measure.h"
#include "trace/result.h"

#include <errno.h>
#include <limits.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct json_value *load(const char *path, struct json_value **keep)
{
	char err[256];
	struct json_value *v = json_parse_file(path, err, sizeof err);
	if (!v) {
		warn_errno(0, "%s: %s", path, err);
		return NULL;
	}
	const char *schema = json_get_str(v, "schema", "");
	if (strcmp(schema, TRACE_SCHEMA)) {
		warn_errno(0, "%s: not an adaptrm trace (schema '%s', expected '%s')", path, schema,
			   TRACE_SCHEMA);
		json_free(v);
		return NULL;
	}
	*keep = v;
	return v;
}

/* The element of array ARR whose member KEY is the string NAME. */
static const struct json_value *find_by(const struct json_value *arr, const char *key,
					const char *name)
{
	for (size_t i = 0; arr && arr->type == JSON_ARRAY && i < arr->n; i++)
		if (!strcmp(json_get_str(arr->items[i], key, ""), name))
			return arr->items[i];
	return NULL;
}

/* Back from the JSON bucket list ([[value, count], ...]) to buckets. */
/* Characters of a 40-wide bar for COUNT of TOTAL; counts come from a file
 * and may be absurd (a sum that wrapped): clamped before the cast. */
static unsigned bar(unsigned long long count, unsigned long long total)
{
	double x = total ? (double)count * 40 / (double)total + 0.5 : 0;
	return x >= 40 ? 40 : x > 0 ? (unsigned)x : 0;
}

static void to_hist(const struct json_value *h, struct probe_hist *out)
{
	memset(out, 0, sizeof *out);
	if (!h)
		return;
	out->count = json_get_uint(h, "count", 0);
	out->total = json_get_uint(h, "total", 0);
	const struct json_value *b = json_get(h, "buckets");
	for (size_t i = 0; b && b->type == JSON_ARRAY && i < b->n; i++) {
		const struct json_value *row = b->items[i];
		if (row->type != JSON_ARRAY || row->n != 2)
			continue;
		unsigned long long *c = &out->b[hist_bucket(row->items[0]->u)];
		*c = __builtin_add_overflow(*c, row->items[1]->u, c) ? ULLONG_MAX : *c;
	}
}

static void ratio(char *buf, size_t len, double a, double b)
{
	double x = a ? b / a : 0;
	if (a == 0 && b == 0)
		snprintf(buf, len, "-");
	else if (a == 0)
		snprintf(buf, len, "new");
	else if (b == 0)
		snprintf(buf, len, "gone");
	else if (x >= 1000)
		snprintf(buf, len, ">999x");
	else if (x >= 100)
		snprintf(buf, len, "%.0fx", x);
	else
		snprintf(buf, len, "%.2fx", x);
}

/* The width of the name column: the longest name, at least MIN. */
static int name_width = 16;

/* Every row, or only the rows that differ (--all or not). */
static bool show_all;

/* Two figures are alike within a tenth of the larger. */
static bool alike(double a, double b)
{
	double m = fmax(fabs(a), fabs(b));
	return fabs(a - b) <= 0.1 * m;
}

/* What a table left out as alike: the names, for one closing line. */
struct hidden {
	char names[512];
	int n;
};

static void hide(struct hidden *h, const char *name)
{
	size_t len = strlen(h->names);
	if (len + strlen(name) + 3 < sizeof h->names)
		snprintf(h->names + len, sizeof h->names - len, "%s%s", h->n ? ", " : "", name);
	else if (len + 5 < sizeof h->names && !strstr(h->names, "..."))
		snprintf(h->names + len, sizeof h->names - len, ", ...");
	h->n++;
}

static void print_hidden(const struct hidden *h, const char *what)
{
	if (h->n)
		printf("(%d %s alike in A and B, within 10%% or too small to matter, not shown"
		       " (--all shows them): %s)\n",
		       h->n, what, h->names);
}

/* The sums over an array's rows of members K1 and K2 (K2 under K1's
 * object when SUB). */
static double sum_of(const struct json_value *arr, const char *k1, const char *k2)
{
	double t = 0;
	for (size_t i = 0; arr && arr->type == JSON_ARRAY && i < arr->n; i++)
		t += k2 ? json_get_num(json_get(arr->items[i], k1), k2, 0) :
			  json_get_num(arr->items[i], k1, 0);
	return t;
}

/* The scale a difference must reach to be shown: a hundredth of the
 * larger side's total (time of every syscall, calls of every syscall). */
static double time_floor, calls_floor;

/* A syscall or lock row differs when its time differs by more than a
 * tenth and by a hundredth of the larger total, or its count likewise. */
static bool row_differs(double ca, double cb, double ta, double tb)
{
	if (show_all)
		return true;
	return (!alike(ta, tb) && fabs(ta - tb) >= time_floor) ||
	       (!alike(ca, cb) && fabs(ca - cb) >= calls_floor);
}

/* Two quantize histograms over the same rows: A's bar and count, B's. */
static void print_pair(const char *title, const struct probe_hist *a, const struct probe_hist *b)
{
	int first = -1, last = -1;
	unsigned long long ta = 0, tb = 0;

	for (int i = 0; i < PROBE_HIST_BUCKETS; i++)
		if (a->b[i] || b->b[i]) {
			if (first < 0)
				first = i;
			last = i;
		}
	printf("\n  %s\n", title);
	printf("\n%16s %41s %-9s %41s %-9s\n", "value", "---------------- A ----------------",
	       "count", "---------------- B ----------------", "count");
	if (first < 0)
		return;
	int lo = first ? first - 1 : 0, hi = last + 1;
	for (int i = lo; i <= hi && i < PROBE_HIST_BUCKETS; i++) {
		ta += a->b[i];
		tb += b->b[i];
	}
	for (int i = lo; i <= hi; i++) {
		unsigned long long ca = i < PROBE_HIST_BUCKETS ? a->b[i] : 0;
		unsigned long long cb = i < PROBE_HIST_BUCKETS ? b->b[i] : 0;
		unsigned da = bar(ca, ta), db = bar(cb, tb);
		printf("%16llu |", (unsigned long long)hist_bucket_value(i));
		for (unsigned k = 0; k < 40; k++)
			putchar(k < da ? '@' : ' ');
		printf(" %-9llu |", ca);
		for (unsigned k = 0; k < 40; k++)
			putchar(k < db ? '@' : ' ');
		printf(" %-9llu\n", cb);
	}
}

static void command_line(const char *label, const struct json_value *v)
{
	const struct json_value *c = json_get(v, "command");
	printf("%s:", label);
	for (size_t i = 0; c && c->type == JSON_ARRAY && i < c->n; i++)
		printf(" %s", c->items[i]->str ? c->items[i]->str : "?");
	printf("  (%.3f s, up to %llu threads)\n", json_get_num(v, "wall_ns", 0) / 1e9,
	       (unsigned long long)json_get_uint(v, "max_threads", 0));
}

/* The rows of two arrays of objects keyed by member KEY: every name of
 * either side once, ordered by WEIGHT (the larger of A's and B's, largest
 * first; NULL: A's order, then those only B has); FN gets the key and each
 * side's row (NULL where that side has none). */
typedef void row_fn(const char *name, const struct json_value *xa, const struct json_value *xb);
typedef double weight_fn(const struct json_value *x);
struct row {
	const char *name;
	double w;
	size_t i;
};

static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	if (a->w != b->w)
		return a->w < b->w ? 1 : -1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static size_t collect_rows(const struct json_value *a, const struct json_value *b, const char *key,
			   weight_fn *weight, struct row **out)
{
	size_t na = a && a->type == JSON_ARRAY ? a->n : 0, nb = b && b->type == JSON_ARRAY ? b->n : 0;
	struct row *rows = calloc(na + nb + 1, sizeof *rows);
	size_t n = 0;
	if (!rows)
		die(ENOMEM, "--compare");
	for (int pass = 0; pass < 2; pass++) {
		const struct json_value *arr = pass ? b : a;
		for (size_t i = 0; i < (pass ? nb : na); i++) {
			const char *name = json_get_str(arr->items[i], key, "?");
			if (pass && find_by(a, key, name))
				continue;
			double wa = weight ? weight(find_by(a, key, name)) : 0;
			double wb = weight ? weight(find_by(b, key, name)) : 0;
			rows[n] = (struct row){ name, wa > wb ? wa : wb, n };
			n++;
		}
	}
	qsort(rows, n, sizeof *rows, cmp_row);
	*out = rows;
	return n;
}

static void each_row(const struct json_value *a, const struct json_value *b, const char *key,
		     weight_fn *weight, row_fn *fn)
{
	struct row *rows;
	size_t n = collect_rows(a, b, key, weight, &rows);
	for (size_t i = 0; i < n; i++)
		fn(rows[i].name, find_by(a, key, rows[i].name), find_by(b, key, rows[i].name));
	free(rows);
}

/* The longest member KEY of either array, at least MIN. */
static int widest(const struct json_value *a, const struct json_value *b, const char *key, int min)
{
	int w = min;
	for (int pass = 0; pass < 2; pass++) {
		const struct json_value *arr = pass ? b : a;
		for (size_t i = 0; arr && arr->type == JSON_ARRAY && i < arr->n; i++) {
			int len = (int)strlen(json_get_str(arr->items[i], key, "?"));
			if (len > w)
				w = len;
		}
	}
	return w;
}

static double syscall_weight(const struct json_value *x)
{
	return json_get_num(x, "total_ns", 0);
}

static double lock_weight(const struct json_value *x)
{
	return json_get_num(json_get(x, "wait_ns"), "total", 0);
}

/* The last element of array ARR whose member "nr" is NR. */
static const struct json_value *find_nr(const struct json_value *arr, int nr)
{
	const struct json_value *x = NULL;
	for (size_t j = 0; arr && arr->type == JSON_ARRAY && j < arr->n; j++)
		if (json_get_uint(arr->items[j], "nr", 9999) == (uint64_t)nr)
			x = arr->items[j];
	return x;
}

static struct hidden hidden_syscalls, hidden_locks, hidden_fs;

static void syscall_row(const char *name, const struct json_value *xa, const struct json_value *xb)
{
	const struct json_value *la = json_get(xa, "latency_ns"), *lb = json_get(xb, "latency_ns");
	double ca = json_get_num(xa, "calls", 0), cb = json_get_num(xb, "calls", 0);
	double ta = json_get_num(xa, "total_ns", 0), tb = json_get_num(xb, "total_ns", 0);
	double p9a = json_get_num(la, "p99", 0), p9b = json_get_num(lb, "p99", 0);
	char r1[16], r2[16], r3[16];

	if (!row_differs(ca, cb, ta, tb)) {
		hide(&hidden_syscalls, name);
		return;
	}
	ratio(r1, sizeof r1, ca, cb);
	ratio(r2, sizeof r2, ta, tb);
	ratio(r3, sizeof r3, p9a, p9b);
	printf("%-*s %10.0f %10.0f %7s %11.6f %11.6f %7s %9.1f %9.1f %9.1f %9.1f %7s\n", name_width,
	       name, ca, cb, r1, ta / 1e9, tb / 1e9, r2, json_get_num(la, "p50", 0) / 1e3,
	       json_get_num(lb, "p50", 0) / 1e3, p9a / 1e3, p9b / 1e3, r3);
}

static void lock_row(const char *type, const struct json_value *xa, const struct json_value *xb)
{
	const struct json_value *wa = json_get(xa, "wait_ns"), *wb = json_get(xb, "wait_ns");
	double ca = json_get_num(wa, "count", 0), cb = json_get_num(wb, "count", 0);
	double ta = json_get_num(wa, "total", 0), tb = json_get_num(wb, "total", 0);
	char r1[16], r2[16];

	/* lock waits are measured against the syscalls' time they sit in */
	if (!row_differs(ca, cb, ta, tb)) {
		hide(&hidden_locks, type);
		return;
	}
	ratio(r1, sizeof r1, ca, cb);
	ratio(r2, sizeof r2, ta, tb);
	printf("%-*s %10.0f %10.0f %7s %11.6f %11.6f %7s\n", name_width, type, ca, cb, r1, ta / 1e9,
	       tb / 1e9, r2);
}

static void lock_hist_row(const char *type, const struct json_value *xa, const struct json_value *xb)
{
	struct probe_hist ha, hb;
	char title[64];

	to_hist(json_get(xa, "wait_ns"), &ha);
	to_hist(json_get(xb, "wait_ns"), &hb);
	if (!row_differs((double)ha.count, (double)hb.count, (double)ha.total, (double)hb.total))
		return;
	snprintf(title, sizeof title, "lock %s wait", type);
	print_pair(title, &ha, &hb);
}

/* One row of numbers A and B with their ratio; nothing when both are 0. */
static void num_row(const char *name, double a, double b, const char *fmt)
{
	char r[16], va[32], vb[32];
	if (a == 0 && b == 0)
		return;
	if (!show_all && alike(a, b)) {
		hide(&hidden_fs, name);
		return;
	}
	ratio(r, sizeof r, a, b);
	snprintf(va, sizeof va, fmt, a);
	snprintf(vb, sizeof vb, fmt, b);
	printf("  %-*s %12s %12s %7s\n", name_width, name, va, vb, r);
}

static void fs_events(const struct json_value *a, const struct json_value *b)
{
	const struct json_value *fa = json_get(a, "fs"), *fb = json_get(b, "fs");

	printf("\nFilesystem and block events\n  %-*s %12s %12s %7s\n", name_width, "event", "A",
	       "B", "B/A");
	for (const struct trace_fs_field *x = trace_fs_fields; x->group; x++)
		if (x->label)
			num_row(x->label, trace_fs_from_json(fa, x), trace_fs_from_json(fb, x),
				x->fmt);
	print_hidden(&hidden_fs, "figures");

	/* ext4 unlink order: the share of a thread's consecutive unlinks
	 * within TRACE_INO_NEAR inodes of each other */
	struct probe_hist ja, jb;
	to_hist(json_get(json_get(fa, "ext4"), "inode_jump"), &ja);
	to_hist(json_get(json_get(fb, "ext4"), "inode_jump"), &jb);
	if (ja.count || jb.count) {
		char sa[16] = "-", sb[16] = "-";
		if (ja.count)
			snprintf(sa, sizeof sa, "%.0f%%", 100 * trace_ino_near_share(&ja));
		if (jb.count)
			snprintf(sb, sizeof sb, "%.0f%%", 100 * trace_ino_near_share(&jb));
		printf("\nUnlink order (ext4): consecutive unlinks within %d inodes\n  %-*s %12s %12s\n",
		       TRACE_INO_NEAR, name_width, "", "A", "B");
		printf("  %-*s %12s %12s\n", name_width, "in order", sa, sb);
		printf("  %-*s %12.0f %12.0f\n", name_width, "p50 jump (inodes)",
		       hist_quantile(&ja, 0.5), hist_quantile(&jb, 0.5));
	}
}

static void finding_row(const char *id, const struct json_value *xa, const struct json_value *xb)
{
	char sa[16] = "-", sb[16] = "-";
	if (xa)
		snprintf(sa, sizeof sa, "%.0f%%", 100 * json_get_num(xa, "share", 0));
	if (xb)
		snprintf(sb, sizeof sb, "%.0f%%", 100 * json_get_num(xb, "share", 0));
	printf("  %-*s %8s %8s\n", name_width, id, sa, sb);
}

static double finding_weight(const struct json_value *x)
{
	return json_get_num(x, "share", 0);
}

/* Each side's verdict by finding id, then each side's sentences. */
static void findings(const struct json_value *a, const struct json_value *b)
{
	const struct json_value *fa = json_get(a, "findings"), *fb = json_get(b, "findings");

	printf("\nFindings (share of each side's busy syscall time)\n  %-*s %8s %8s\n", name_width,
	       "finding", "A", "B");
	each_row(fa, fb, "id", finding_weight, finding_row);
	for (int side = 0; side < 2; side++) {
		const struct json_value *f = side ? fb : fa;
		for (size_t i = 0; f && f->type == JSON_ARRAY && i < f->n; i++) {
			/* sentences wrap at the screen's width; the tables do not */
			char *line = NULL;
			if (asprintf(&line, "  %s: %s\n", side ? "B" : "A",
				     json_get_str(f->items[i], "text", "")) < 0)
				die(ENOMEM, "--compare");
			fflush(stdout);
			wrap_text(stdout, line, wrap_width(STDOUT_FILENO));
			free(line);
		}
	}
}

int trace_compare(const char *pa, const char *pb, bool all)
{
	struct json_value *ka = NULL, *kb = NULL;
	const struct json_value *a = load(pa, &ka), *b = a ? load(pb, &kb) : NULL;
	char r1[16];

	if (!a || !b) {
		json_free(ka);
		return 1;
	}
	const struct json_value *sa = json_get(a, "syscalls"), *sb = json_get(b, "syscalls");
	const struct json_value *la = json_get(a, "locks"), *lb = json_get(b, "locks");
	/* one name column for every table: the longest name, fixed labels included */
	name_width = widest(sa, sb, "name", 25);
	int lw = widest(la, lb, "type", 0);
	if (lw > name_width)
		name_width = lw;
	int fw = widest(json_get(a, "findings"), json_get(b, "findings"), "id", 0);
	if (fw > name_width)
		name_width = fw;

	show_all = all;
	time_floor = 0.01 * fmax(sum_of(sa, "total_ns", NULL), sum_of(sb, "total_ns", NULL));
	calls_floor = fmax(10, 0.01 * fmax(sum_of(sa, "calls", NULL), sum_of(sb, "calls", NULL)));

	command_line("A", a);
	command_line("B", b);
	printf("\n%-*s %10s %10s %7s %11s %11s %7s %9s %9s %9s %9s %7s\n", name_width, "syscall",
	       "calls A", "calls B", "B/A", "seconds A", "seconds B", "B/A", "p50~us A", "p50~us B",
	       "p99~us A", "p99~us B", "p99 B/A");
	each_row(sa, sb, "name", syscall_weight, syscall_row);
	double wa = json_get_num(a, "wall_ns", 0), wb = json_get_num(b, "wall_ns", 0);
	ratio(r1, sizeof r1, wa, wb);
	printf("%-*s %10s %10s %7s %11.6f %11.6f %7s\n", name_width, "wall", "", "", "", wa / 1e9,
	       wb / 1e9, r1);
	printf("(syscalls by the larger of A's and B's time; ~ estimated within log2 buckets)\n");
	print_hidden(&hidden_syscalls, "syscalls");

	printf("\nLock waits\n%-*s %10s %10s %7s %11s %11s %7s\n", name_width, "type", "waits A",
	       "waits B", "B/A", "seconds A", "seconds B", "B/A");
	each_row(la, lb, "type", lock_weight, lock_row);
	print_hidden(&hidden_locks, "lock types");
	printf("\nOff-CPU\n");
	static const char *const kinds[] = { "blocked_ns", "sleeping_ns", "preempted_ns" };
	for (int k = 0; k < 3; k++) {
		double ta = json_get_num(json_get(json_get(a, "offcpu"), kinds[k]), "total", 0);
		double tb = json_get_num(json_get(json_get(b, "offcpu"), kinds[k]), "total", 0);
		ratio(r1, sizeof r1, ta, tb);
		printf("%-*s %11.6f %11.6f %7s\n", name_width, kinds[k], ta / 1e9, tb / 1e9, r1);
	}
	fs_events(a, b);
	findings(a, b);

	printf("\nLatency histograms (ns), A left, B right\n");
	for (int i = 0; i < trace_detail_count; i++) {
		const struct json_value *xa = find_nr(sa, trace_detail_nrs[i]);
		const struct json_value *xb = find_nr(sb, trace_detail_nrs[i]);
		if (!xa && !xb)
			continue;
		struct probe_hist ha, hb;
		to_hist(json_get(xa, "latency_ns"), &ha);
		to_hist(json_get(xb, "latency_ns"), &hb);
		if (!row_differs(json_get_num(xa, "calls", 0), json_get_num(xb, "calls", 0),
				 json_get_num(xa, "total_ns", 0), json_get_num(xb, "total_ns", 0)))
			continue;
		print_pair(json_get_str(xa ? xa : xb, "name", "?"), &ha, &hb);
	}
	each_row(la, lb, "type", lock_weight, lock_hist_row);
	json_free(ka);
	json_free(kb);
	return 0;
}
