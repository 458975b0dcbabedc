// SPDX-License-Identifier: GPL-3.0-or-later
/* The JSON writer and reader, and the --json schema of --trace: a report
 * written from a known snapshot parses back with every documented field. */
#include <criterion/criterion.h>
#include "lib/json.h"
#include "trace/findings.h"
#include "trace/measure.h"
#include "trace/report.h"

#include <stdlib.h>
#include <string.h>

static char *capture_json(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(f, arg);
	fclose(f);
	return buf;
}

static void write_small(FILE *f, const void *arg)
{
	struct json_writer w;
	jw_init(&w, f);
	jw_object(&w, NULL);
	jw_string(&w, "s", "a\"b\\c\n\x01");
	jw_uint(&w, "big", 18446744073709551615ull);
	jw_int(&w, "neg", -5);
	jw_double(&w, "d", 0.25);
	jw_bool(&w, "t", true);
	jw_null(&w, "n");
	jw_array_compact(&w, "a");
	jw_uint(&w, NULL, 1);
	jw_array_compact(&w, NULL);
	jw_uint(&w, NULL, 2);
	jw_end(&w);
	jw_end(&w);
	jw_object(&w, "empty");
	jw_end(&w);
	jw_finish(&w);
}

Test(json, roundtrip)
{
	char *s = capture_json(write_small, NULL), err[128];
	struct json_value *v = json_parse(s, err, sizeof err);
	cr_assert(v, "%s in %s", err, s);
	cr_assert_str_eq(json_get_str(v, "s", ""), "a\"b\\c\n\x01");
	cr_assert_eq(json_get_uint(v, "big", 0), 18446744073709551615ull);
	cr_assert_float_eq(json_get_num(v, "neg", 0), -5.0, 1e-9);
	cr_assert_float_eq(json_get_num(v, "d", 0), 0.25, 1e-9);
	cr_assert(json_get(v, "t")->b);
	cr_assert_eq(json_get(v, "n")->type, JSON_NULL);
	const struct json_value *a = json_get(v, "a");
	cr_assert_eq(a->n, 2);
	cr_assert_eq(a->items[1]->items[0]->u, 2);
	cr_assert_eq(json_get(v, "empty")->n, 0);
	cr_assert(strstr(s, "\"a\": [1, [2]]"), "%s", s);
	json_free(v);
	free(s);
}

Test(json, errors_name_the_place)
{
	char err[128];
	cr_assert_null(json_parse("{\n\"a\": tru }", err, sizeof err));
	cr_assert_str_eq(err, "invalid JSON at byte 10 (line 2): boolean expected");
	cr_assert_null(json_parse("[1, 2", err, sizeof err));
	cr_assert_str_eq(err, "invalid JSON at byte 5 (line 1): unexpected end of data");
	cr_assert_null(json_parse("{} x", err, sizeof err));
	cr_assert_str_eq(err, "invalid JSON at byte 3 (line 1): unexpected character");
	cr_assert_null(json_parse("\"abc", err, sizeof err));
	cr_assert_null(json_parse("[1,]", err, sizeof err));
	cr_assert_null(json_parse("", err, sizeof err));
}

/* The limits: JSON_MAX_NESTING levels parse, one more does not. */
Test(json, nesting_limit)
{
	char text[2 * (JSON_MAX_NESTING + 1) + 1], err[128];
	for (int deep = JSON_MAX_NESTING; deep <= JSON_MAX_NESTING + 1; deep++) {
		memset(text, '[', deep);
		memset(text + deep, ']', deep);
		text[2 * deep] = '\0';
		struct json_value *v = json_parse(text, err, sizeof err);
		if (deep == JSON_MAX_NESTING)
			cr_assert(v, "%s", err);
		else
			cr_assert(!v && strstr(err, "nesting too deep"), "%s", err);
		json_free(v);
	}
}

/* Numbers: exact unsigned integers, saturated beyond 2^64, clamped doubles,
 * and json-c's NaN read as null; a duplicate key keeps the last value. */
Test(json, numbers_and_duplicates)
{
	char err[128];
	struct json_value *v =
		json_parse("{\"big\": 18446744073709551616, \"neg\": -3, \"d\": 2.5e3, \"nan\": NaN, "
			   "\"k\": 1, \"k\": 2}",
			   err, sizeof err);
	cr_assert(v, "%s", err);
	cr_assert_eq(json_get_uint(v, "big", 0), UINT64_MAX);
	cr_assert_eq(json_get_uint(v, "neg", 7), 0);
	cr_assert_float_eq(json_get_num(v, "neg", 0), -3.0, 1e-9);
	cr_assert_eq(json_get_uint(v, "d", 0), 2500);
	cr_assert_eq(json_get(v, "nan")->type, JSON_NULL);
	cr_assert_eq(json_get_uint(v, "k", 0), 2);
	json_free(v);
}

static void write_trace(FILE *f, const void *arg)
{
	trace_report_json(f, arg);
}

/* The schema documented in README "Tracing". */
Test(json, trace_schema)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	char *argv[] = { "rm", "-rf", "d", NULL };
	struct trace_result r = { .mode = "command",
				  .argv = argv,
				  .pid = 42,
				  .exit_status = 0,
				  .wall_ns = 1000000,
				  .max_threads = 4,
				  .threads_seen = 5,
				  .notes = "xfs probes unavailable: x\n",
				  .total = s };
	for (int i = 0; i < 100; i++)
		hist_add_value(&s->sc[PROBE_NR_UNLINKAT].lat, 2048 + i);
	s->sc[PROBE_NR_UNLINKAT].errors = 1;
	for (int i = 0; i < 30; i++)
		hist_add_value(&s->lock[PROBE_LCB_F_WRITE].wait, 100000);
	hist_add_value(&s->misc.offcpu[PROBE_OFFCPU_BLOCKED], 50000);
	r.attached[PROBE_G_SYSCALLS] = r.attached[PROBE_G_LOCKS] = true;

	char *text = capture_json(write_trace, &r), err[128];
	struct json_value *v = json_parse(text, err, sizeof err);
	cr_assert(v, "%s", err);
	cr_assert_str_eq(json_get_str(v, "schema", ""), "adaptrm-trace/1");
	static const char *const top[] = {
		"mode",
		"command",
		"pid",
		"exit_status",
		"wall_ns",
		"max_threads",
		"threads_seen",
		"busy_ns",
		"probes",
		"notes",
		"lost_events",
		"syscalls",
		"unlinkat_removedir_ns",
		"getdents64_bytes",
		"locks",
		"lock_callers",
		"offcpu",
		"fs",
		"intervals",
		"findings",
	};
	for (size_t i = 0; i < sizeof top / sizeof *top; i++)
		cr_assert(json_get(v, top[i]), "missing %s", top[i]);
	const struct json_value *sc = json_get(v, "syscalls");
	cr_assert_eq(sc->n, 1);
	cr_assert_str_eq(json_get_str(sc->items[0], "name", ""), "unlinkat");
	cr_assert_eq(json_get_uint(sc->items[0], "nr", 0), PROBE_NR_UNLINKAT);
	cr_assert_eq(json_get_uint(sc->items[0], "calls", 0), 100);
	cr_assert_eq(json_get_uint(sc->items[0], "errors", 0), 1);
	const struct json_value *lat = json_get(sc->items[0], "latency_ns");
	static const char *const hk[] = { "count", "total", "mean", "p50", "p99", "buckets" };
	for (size_t i = 0; i < sizeof hk / sizeof *hk; i++)
		cr_assert(json_get(lat, hk[i]), "histogram misses %s", hk[i]);
	const struct json_value *bk = json_get(lat, "buckets");
	cr_assert_eq(bk->n, 1);
	cr_assert_eq(bk->items[0]->items[0]->u, 2048);
	cr_assert_eq(bk->items[0]->items[1]->u, 100);
	const struct json_value *locks = json_get(v, "locks");
	cr_assert_eq(locks->n, 1);
	cr_assert_str_eq(json_get_str(locks->items[0], "type", ""), "rwsem:W");
	cr_assert(json_get(json_get(v, "offcpu"), "blocked_ns"));
	static const char *const fs[] = { "ext4", "jbd2", "xfs", "btrfs", "block" };
	for (size_t i = 0; i < 5; i++)
		cr_assert(json_get(json_get(v, "fs"), fs[i]), "fs.%s", fs[i]);
	cr_assert(json_get(json_get(json_get(v, "fs"), "ext4"), "inode_jump"));
	const struct json_value *fnd = json_get(v, "findings");
	bool dirlock = false;
	for (size_t i = 0; i < fnd->n; i++) {
		cr_assert(json_get_str(fnd->items[i], "id", NULL));
		cr_assert(json_get(fnd->items[i], "share"));
		cr_assert(json_get_str(fnd->items[i], "text", NULL));
		/* the sentence's parts, each a member of its own */
		const char *remedy = json_get_str(fnd->items[i], "remedy", NULL);
		cr_assert(*json_get_str(fnd->items[i], "title", ""));
		cr_assert(*json_get_str(fnd->items[i], "evidence", ""));
		cr_assert(remedy && *remedy);
		cr_assert(json_get_str(fnd->items[i], "confirm", NULL));
		cr_assert(strstr(json_get_str(fnd->items[i], "text", ""), remedy));
		dirlock |=
			!strcmp(json_get_str(fnd->items[i], "id", ""), "directory_lock_contention");
	}
	cr_assert(dirlock, "3 ms of rwsem:W waits in 0.2 ms of unlinkat must be reported");
	cr_assert_eq(json_get(v, "notes")->n, 1);
	json_free(v);
	free(text);
	free(s);
}

static bool has_finding(const struct trace_result *r, const char *id)
{
	struct trace_finding f[16];
	int n = trace_findings(r, f, 16);
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].id, id))
			return true;
	return false;
}

/* Consecutive ext4 unlinks far apart in the inode table are a finding; in
 * inode order, or too few to tell, they are not. */
Test(json, scattered_inode_order_finding)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s };
	for (int i = 0; i < 2000; i++)
		hist_add_value(&s->sc[PROBE_NR_UNLINKAT].lat, 20000);
	r.attached[PROBE_G_SYSCALLS] = r.attached[PROBE_G_EXT4] = true;

	for (int i = 0; i < 2000; i++)
		hist_add_value(&s->misc.ext4_ino_jump, i % 50 ? 60000 : 1);
	cr_assert_float_eq(trace_ino_near_share(&s->misc.ext4_ino_jump), 0.02, 1e-9);
	cr_assert(has_finding(&r, "scattered_inode_order"));

	memset(&s->misc.ext4_ino_jump, 0, sizeof s->misc.ext4_ino_jump);
	for (int i = 0; i < 2000; i++)
		hist_add_value(&s->misc.ext4_ino_jump, i % 50 ? 1 : 60000);
	cr_assert_not(has_finding(&r, "scattered_inode_order"));

	memset(&s->misc.ext4_ino_jump, 0, sizeof s->misc.ext4_ino_jump);
	for (int i = 0; i < 500; i++)
		hist_add_value(&s->misc.ext4_ino_jump, 60000);
	cr_assert_not(has_finding(&r, "scattered_inode_order"), "500 unlinks are too few to tell");
	free(s);
}
