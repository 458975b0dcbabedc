// SPDX-License-Identifier: GPL-3.0-or-later
/* The report's verdict section: where the traced threads' time went, the
 * findings ranked, with the whole time and the helpers' waits, rendered
 * from one computed verdict (findings.h) as text and as JSON (report.c's
 * sections). */
#ifndef ADAPTRM_TRACE_VERDICT_H
#define ADAPTRM_TRACE_VERDICT_H
#include <stddef.h>
#include <stdio.h>

struct json_writer;
struct trace_finding;
struct trace_result;

/* Room for any finding's sentence: its title, evidence, remedy and
 * confirming command. */
#define TRACE_FINDING_SENTENCE 1536
/* F as the sentence the report prints, "Title: evidence. Remedy. Confirm:
 * CMD.", into BUF (LEN bytes); returns its length. */
size_t trace_finding_sentence(const struct trace_finding *f, char *buf, size_t len);

/* The verdict first: the traced threads' time partitioned into findings
 * whose shares sum to 100%, each followed by what explains it. */
void trace_text_verdict(FILE *f, const struct trace_result *r);
/* The same verdict as the JSON's "findings", "verdict_total_share",
 * "whole_ns", "helper_wait_ns" and "deletions_seen". */
void trace_json_verdict(struct json_writer *w, const struct trace_result *r);

#endif
