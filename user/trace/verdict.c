// SPDX-License-Identifier: GPL-3.0-or-later
/* The report's verdict section (verdict.h): one model, the verdict that
 * trace_verdict_compute() fills once (findings.h), rendered as text and as
 * JSON; each finding's sentence is its title, evidence, remedy and the
 * command that confirms it. */
#include "trace/verdict.h"
#include "lib/json.h"
#include "probes/probes.h"
#include "trace/findings.h"
#include "trace/measure.h"
#include "trace/result.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* unlink, unlinkat and rmdir calls: a trace without one saw no deletion. */
static uint64_t deletions_seen(const struct probe_snapshot *s)
{
	return s->sc[PROBE_NR_UNLINKAT].lat.count + trace_old_unlinks(s, false) +
	       trace_old_unlinks(s, true);
}

size_t trace_finding_sentence(const struct trace_finding *f, char *buf, size_t len)
{
	const char *title = *f->title ? f->title : f->id, *e = f->evidence;
	size_t el = strlen(e);
	bool confirm = *f->confirm;

	if (!len)
		return 0;
	/* the title starts the sentence: a subsystem's name is capitalized */
	int w = snprintf(buf, len, "%c%s: %s%s%s%s%s%s%s", toupper((unsigned char)*title),
			 title + 1, e, el && e[el - 1] == '.' ? "" : ".", *f->remedy ? " " : "",
			 f->remedy, confirm ? " Confirm: " : "", f->confirm, confirm ? "." : "");
	if (w < 0)
		return 0;
	return (size_t)w < len ? (size_t)w : len - 1;
}

/* The verdict, first: the traced threads' time partitioned into findings
 * whose shares sum to 100%, each followed by what explains it. */
void trace_text_verdict(FILE *f, const struct trace_result *r)
{
	struct trace_verdict v;
	const struct trace_finding *fs = v.findings;
	int top = 0;
	char b1[32], b2[32], text[TRACE_FINDING_SENTENCE];

	trace_verdict_compute(r, &v);

	if (!deletions_seen(r->total))
		fprintf(f,
			"\nNo deletion seen: the traced processes made no unlink, unlinkat or rmdir "
			"call (%s traced); what follows is of what they did instead.\n",
			trace_fmt_ns((double)r->wall_ns, b1, sizeof b1));

	fprintf(f,
		"\nVerdict: where the traced threads' time went (%s of thread time in %s of wall "
		"time: on CPU, runnable, blocked, idle)\n",
		trace_fmt_ns(v.whole_ns, b1, sizeof b1),
		trace_fmt_ns((double)r->wall_ns, b2, sizeof b2));
	if (v.helper_ns > 0)
		fprintf(f,
			"  (left out: %s that traced processes which removed nothing waited, for "
			"pipes, children or events, and that parents waited for their deleting "
			"children or other traced processes: helpers of the delete, not its "
			"causes)\n",
			trace_fmt_ns(v.helper_ns, b1, sizeof b1));
	for (int i = 0; i < v.n; i++) {
		trace_finding_sentence(&fs[i], text, sizeof text);
		if (fs[i].explains)
			fprintf(f, "        why: %s\n", text);
		else if (strcmp(fs[i].id, "minor_parts") || fs[i].share >= 0.005)
			fprintf(f, "  %d. [%3.0f%%] %s\n", ++top, 100 * fs[i].share, text);
	}
	if (!v.n)
		fprintf(f, "  nothing traced\n");
}

void trace_json_verdict(struct json_writer *w, const struct trace_result *r)
{
	struct trace_verdict v;
	const struct trace_finding *fs = v.findings;
	char text[TRACE_FINDING_SENTENCE];

	trace_verdict_compute(r, &v);
	jw_array(w, "findings");
	for (int i = 0; i < v.n; i++) {
		jw_object(w, NULL);
		jw_string(w, "id", fs[i].id);
		jw_double(w, "share", fs[i].share);
		jw_bool(w, "cause", fs[i].cause);
		if (fs[i].explains)
			jw_string(w, "explains", fs[i].explains);
		jw_string(w, "title", fs[i].title);
		jw_string(w, "evidence", fs[i].evidence);
		jw_string(w, "remedy", fs[i].remedy);
		jw_string(w, "confirm", fs[i].confirm);
		/* the sentence the text report prints, for the readers that
		 * came before its parts */
		trace_finding_sentence(&fs[i], text, sizeof text);
		jw_string(w, "text", text);
		jw_end(w);
	}
	jw_end(w);
	jw_double(w, "verdict_total_share", v.total_share);
	jw_double(w, "whole_ns", v.whole_ns);
	jw_double(w, "helper_wait_ns", v.helper_ns);
	jw_uint(w, "deletions_seen", deletions_seen(r->total));
}
