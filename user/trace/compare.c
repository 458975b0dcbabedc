/* adaptrm --trace --compare A.json B.json: two saved traces side by side,
 * with the ratio B/A per row and the histograms next to each other. */
#include "probes/hist.h"
#include "lib/json.h"
#include "lib/msg.h"
#include "trace/trace.h"
#include "trace/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
static const struct json_value *find_by(const struct json_value *arr, const char *key, const char *name)
{
	for (size_t i = 0; arr && arr->type == JSON_ARRAY && i < arr->n; i++)
		if (!strcmp(json_get_str(arr->items[i], key, ""), name))
			return arr->items[i];
	return NULL;
}

/* Back from the JSON bucket list ([[value, count], ...]) to buckets. */
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
		out->b[hist_bucket(row->items[0]->u)] += row->items[1]->u;
	}
}

static void ratio(char *buf, size_t len, double a, double b)
{
	if (a == 0 && b == 0)
		snprintf(buf, len, "-");
	else if (a == 0)
		snprintf(buf, len, "new");
	else
		snprintf(buf, len, "%.2fx", b / a);
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
		unsigned da = ta ? (unsigned)((double)ca * 40 / ta + 0.5) : 0;
		unsigned db = tb ? (unsigned)((double)cb * 40 / tb + 0.5) : 0;
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

/* The rows of two arrays of objects keyed by member KEY: A's in A's order,
 * then those only B has; FN gets the key and each side's row (NULL where
 * that side has none). */
typedef void row_fn(const char *name, const struct json_value *xa, const struct json_value *xb);
static void each_row(const struct json_value *a, const struct json_value *b, const char *key, row_fn *fn)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct json_value *arr = pass ? b : a;
		for (size_t i = 0; arr && arr->type == JSON_ARRAY && i < arr->n; i++) {
			const char *name = json_get_str(arr->items[i], key, "?");
			if (pass && find_by(a, key, name))
				continue;
			fn(name, find_by(a, key, name), find_by(b, key, name));
		}
	}
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

static void syscall_row(const char *name, const struct json_value *xa, const struct json_value *xb)
{
	const struct json_value *la = json_get(xa, "latency_ns"), *lb = json_get(xb, "latency_ns");
	double ca = json_get_num(xa, "calls", 0), cb = json_get_num(xb, "calls", 0);
	double ta = json_get_num(xa, "total_ns", 0), tb = json_get_num(xb, "total_ns", 0);
	double p9a = json_get_num(la, "p99", 0), p9b = json_get_num(lb, "p99", 0);
	char r1[16], r2[16], r3[16];

	ratio(r1, sizeof r1, ca, cb);
	ratio(r2, sizeof r2, ta, tb);
	ratio(r3, sizeof r3, p9a, p9b);
	printf("%-16s %10.0f %10.0f %7s %11.6f %11.6f %7s %9.1f %9.1f %9.1f %9.1f %7s\n", name, ca,
	       cb, r1, ta / 1e9, tb / 1e9, r2, json_get_num(la, "p50", 0) / 1e3,
	       json_get_num(lb, "p50", 0) / 1e3, p9a / 1e3, p9b / 1e3, r3);
}

static void lock_row(const char *type, const struct json_value *xa, const struct json_value *xb)
{
	const struct json_value *wa = json_get(xa, "wait_ns"), *wb = json_get(xb, "wait_ns");
	double ca = json_get_num(wa, "count", 0), cb = json_get_num(wb, "count", 0);
	double ta = json_get_num(wa, "total", 0), tb = json_get_num(wb, "total", 0);
	char r1[16], r2[16];

	ratio(r1, sizeof r1, ca, cb);
	ratio(r2, sizeof r2, ta, tb);
	printf("%-16s %10.0f %10.0f %7s %11.6f %11.6f %7s\n", type, ca, cb, r1, ta / 1e9, tb / 1e9,
	       r2);
}

static void lock_hist_row(const char *type, const struct json_value *xa, const struct json_value *xb)
{
	struct probe_hist ha, hb;
	char title[64];

	to_hist(json_get(xa, "wait_ns"), &ha);
	to_hist(json_get(xb, "wait_ns"), &hb);
	snprintf(title, sizeof title, "lock %s wait", type);
	print_pair(title, &ha, &hb);
}

int trace_compare(const char *pa, const char *pb)
{
	struct json_value *ka = NULL, *kb = NULL;
	const struct json_value *a = load(pa, &ka), *b = a ? load(pb, &kb) : NULL;
	char r1[16];

	if (!a || !b) {
		json_free(ka);
		return 1;
	}
	command_line("A", a);
	command_line("B", b);
	printf("\n%-16s %10s %10s %7s %11s %11s %7s %9s %9s %9s %9s %7s\n", "syscall", "calls A",
	       "calls B", "B/A", "seconds A", "seconds B", "B/A", "p50us A", "p50us B", "p99us A",
	       "p99us B", "p99 B/A");
	const struct json_value *sa = json_get(a, "syscalls"), *sb = json_get(b, "syscalls");
	each_row(sa, sb, "name", syscall_row);
	double wa = json_get_num(a, "wall_ns", 0), wb = json_get_num(b, "wall_ns", 0);
	ratio(r1, sizeof r1, wa, wb);
	printf("%-16s %10s %10s %7s %11.6f %11.6f %7s\n", "wall", "", "", "", wa / 1e9, wb / 1e9, r1);

	printf("\nLock waits\n%-16s %10s %10s %7s %11s %11s %7s\n", "type", "waits A", "waits B",
	       "B/A", "seconds A", "seconds B", "B/A");
	const struct json_value *la = json_get(a, "locks"), *lb = json_get(b, "locks");
	each_row(la, lb, "type", lock_row);
	printf("\nOff-CPU\n");
	static const char *const kinds[] = { "blocked_ns", "sleeping_ns", "preempted_ns" };
	for (int k = 0; k < 3; k++) {
		double ta = json_get_num(json_get(json_get(a, "offcpu"), kinds[k]), "total", 0);
		double tb = json_get_num(json_get(json_get(b, "offcpu"), kinds[k]), "total", 0);
		ratio(r1, sizeof r1, ta, tb);
		printf("%-16s %11.6f %11.6f %7s\n", kinds[k], ta / 1e9, tb / 1e9, r1);
	}

	printf("\nLatency histograms (ns), A left, B right\n");
	for (int i = 0; i < trace_detail_count; i++) {
		const struct json_value *xa = find_nr(sa, trace_detail_nrs[i]);
		const struct json_value *xb = find_nr(sb, trace_detail_nrs[i]);
		if (!xa && !xb)
			continue;
		struct probe_hist ha, hb;
		to_hist(json_get(xa, "latency_ns"), &ha);
		to_hist(json_get(xb, "latency_ns"), &hb);
		print_pair(json_get_str(xa ? xa : xb, "name", "?"), &ha, &hb);
	}
	each_row(la, lb, "type", lock_hist_row);
	json_free(ka);
	json_free(kb);
	return 0;
}
