// SPDX-License-Identifier: GPL-3.0-or-later
/* The traced threads' stacks for flame graphs (folded.h). */
#include "trace/folded.h"
#include "lib/xalloc.h"
#include "probes/frames.h"
#include "probes/ksyms.h"
#include "probes/probes.h"

#include <stdlib.h>
#include <string.h>

#define TRACER_LEAF "[tracer]"

bool trace_frame_is_tracer(const char *name)
{
	/* the traced programs never call BPF code themselves (a delete makes no
	 * bpf() calls): a bpf_ frame is a tracer's program, its helpers, or the
	 * glue that runs it (add_folded keeps another tool's); the tracepoint's
	 * own iterator (__traceiter_*) also runs perf's and ftrace's handlers,
	 * which are not this tracer's */
	static const char *const prefixes[] = {
		"bpf_",		"__bpf_",     "htab_map_",
		"htab_percpu_", "array_map_", "lookup_nulls_elem_raw",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The name of frame IP into BUF: the function without "+0xoff" (flame
 * graphs merge frames by name), spaces and ';' replaced (they separate
 * the format's fields). */
static const char *frame_name(const struct ksyms *k, uint64_t ip, char *buf, size_t len)
{
	ksyms_name(k, ip, buf, len);
	char *plus = strstr(buf, "+0x");
	if (plus && plus != buf)
		*plus = '\0';
	for (char *c = buf; *c; c++)
		if (*c == ' ' || *c == ';')
			*c = '_';
	return buf;
}

struct folded {
	char *line; /* "root;...;leaf" */
	uint64_t value;
};

struct folded_set {
	struct folded *v;
	size_t n, cap;
};

static int cmp_folded_line(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->line, ((const struct folded *)b)->line);
}

static int cmp_folded(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return strcmp(x->line, y->line);
}

/* ROOT, then the frames of IPS from the outermost in, up to the first of
 * the tracer's own; MARK_TRACER: a stack cut there ends in TRACER_LEAF (a
 * sample of the tracer's cost), else it just ends (a wait's stack, taken
 * by the tracer's program in the scheduler). */
static void add_folded(struct folded_set *s, const struct ksyms *k, const char *root,
		       const uint64_t *ips, int depth, uint64_t value, bool mark_tracer)
{
	char name[128], *line;
	size_t len = strlen(root), cap = len + 1;
	bool tracer = false;
	int nf = 0;

	if (!value)
		return;
	while (nf < depth && ips[nf])
		nf++;
	/* another tool's BPF program on the stack: its frames are that tool's
	 * cost, shown, not this tracer's, cut */
	bool foreign = false;
	for (int i = 0; i < nf && !foreign; i++) {
		frame_name(k, ips[i], name, sizeof name);
		foreign = !strncmp(name, "bpf_prog_", 9) && !frame_is_own_prog(name);
	}
	line = malloc(cap + (size_t)nf * sizeof name + sizeof TRACER_LEAF + 1);
	if (!line)
		return;
	memcpy(line, root, len + 1);
	for (int i = nf - 1; i >= 0; i--) {
		frame_name(k, ips[i], name, sizeof name);
		/* what runs inside the tracer's program (its helpers, the map
		 * code they call) is the tracer's too */
		/* the tracepoint's iterator is the tracer's glue when it runs
		 * the tracer's program next, not when it runs perf's handler */
		bool glue = !strncmp(name, "__traceiter_", 12) && i > 0;
		if (glue) {
			char next[128];
			glue = trace_frame_is_tracer(frame_name(k, ips[i - 1], next, sizeof next));
		}
		if (!foreign && (glue || trace_frame_is_tracer(name))) {
			tracer = true;
			break;
		}
		line[len++] = ';';
		size_t l = strlen(name);
		memcpy(line + len, name, l + 1);
		len += l;
	}
	if (tracer && mark_tracer)
		memcpy(line + len, ";" TRACER_LEAF, sizeof TRACER_LEAF + 1);
	if (!try_grow(&s->v, &s->cap, s->n + 1, 256)) {
		free(line);
		return;
	}
	s->v[s->n++] = (struct folded){ .line = line, .value = value };
}

/* Merge the lines that are equal (stacks that differ only in offsets or
 * in the tracer's frames), sort, write, free. */
static int write_set(FILE *f, struct folded_set *s)
{
	size_t u = 0;
	int err = 0;

	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, cmp_folded_line);
	for (size_t i = 0; i < s->n; i++) {
		if (u && !strcmp(s->v[u - 1].line, s->v[i].line)) {
			s->v[u - 1].value += s->v[i].value;
			free(s->v[i].line);
		} else
			s->v[u++] = s->v[i];
	}
	if (u)
		qsort(s->v, u, sizeof *s->v, cmp_folded);
	for (size_t i = 0; i < u; i++) {
		if (fprintf(f, "%s %llu\n", s->v[i].line, (unsigned long long)s->v[i].value) < 0)
			err = -1;
		free(s->v[i].line);
	}
	free(s->v);
	return err;
}

int trace_write_folded(FILE *f, struct probes *p, enum trace_folded_kind kind)
{
	struct folded_set s = { 0 };
	const struct ksyms *k = probes_ksyms(p);

	if (kind == TRACE_FOLDED_ONCPU) {
		struct probe_cpu_sample *cs = NULL;
		int ncs = probes_cpu_samples(p, &cs);
		for (int i = 0; i < ncs; i++)
			add_folded(&s, k,
				   cs[i].flags & PROBE_CPU_USER ? "oncpu;[user]" :
				   cs[i].stackid < 0		? "oncpu;[no-stack]" :
								  "oncpu",
				   cs[i].ips, PROBE_CPU_STACK_DEPTH, cs[i].count, true);
		free(cs);
	} else {
		struct probe_wait_site *ws = NULL;
		int nws = probes_wait_sites(p, &ws);
		for (int i = 0; i < nws; i++) {
			bool d = ws[i].state == PROBE_OFFCPU_BLOCKED;
			add_folded(&s, k,
				   ws[i].stackid < 0 ?
					   (d ? "offcpu-D;[no-stack]" : "offcpu-S;[no-stack]") :
				   d ? "offcpu-D" :
				       "offcpu-S",
				   ws[i].ips, PROBE_STACK_DEPTH, ws[i].total_ns / 1000, false);
		}
		free(ws);
	}
	return write_set(f, &s);
}
