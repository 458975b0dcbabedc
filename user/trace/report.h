// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace report: the result (result.h) printed as text (strace -c
 * table, DTrace quantize histograms, verdict) or as JSON, both from one
 * model of each section (report_model.h). */
#ifndef ADAPTRM_TRACE_REPORT_H
#define ADAPTRM_TRACE_REPORT_H
#include <stdio.h>
#include "trace/result.h"

void trace_report_text(FILE *f, const struct trace_result *r);
void trace_report_json(FILE *f, const struct trace_result *r);

#endif
