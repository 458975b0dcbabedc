// SPDX-License-Identifier: GPL-3.0-or-later
/* Wakers and CPU holders of the traced threads' waits (wakers.h). */
#include "trace/wakers.h"
#include "lib/json.h"
#include "probes/ksyms.h"
#include "probes/probes.h"
#include "probes/subsys.h"
#include "trace/measure.h"
#include "trace/result.h"
#include "trace/waits.h"

#include <stdlib.h>
#include <string.h>

void trace_collect_wakers(struct probes *p, struct trace_result *r)
{
	struct probe_waker *raw = NULL;
	int n = p ? probes_wakers(p, &raw) : 0;
	const struct ksyms *k = p ? probes_ksyms(p) : NULL;

	r->wakers = n ? calloc((size_t)n, sizeof *r->wakers) : NULL;
	r->nwakers = 0;
	for (int i = 0; i < n && r->wakers; i++) {
		static char names[PROBE_STACK_DEPTH][128];
		const char *frames[PROBE_STACK_DEPTH];
		struct trace_waker *w = &r->wakers[r->nwakers++];
		int nf = 0, site = 0;
		const char *lock;
		bool space;

		for (; nf < PROBE_STACK_DEPTH && raw[i].ips[nf]; nf++) {
			ksyms_name(k, raw[i].ips[nf], names[nf], sizeof names[nf]);
			frames[nf] = names[nf];
		}
		w->state = raw[i].key.state;
		w->who = raw[i].key.who;
		w->via = raw[i].key.via;
		w->count = raw[i].count;
		w->ns = raw[i].ns;
		w->cause = w->subsys = -1;
		if (nf) {
			w->cause = trace_classify(frames, nf, &site, &lock, &space);
			w->subsys = subsys_of_stack(frames, nf, NULL, NULL);
			snprintf(w->site, sizeof w->site, "%s", frames[site]);
		}
	}
	free(raw);
}

void trace_free_wakers(struct trace_result *r)
{
	free(r->wakers);
	r->wakers = NULL;
	r->nwakers = 0;
}

static bool same_id(const struct probe_waker_id *a, const struct probe_waker_id *b)
{
	return a->cls == b->cls && a->tgid == b->tgid && !strncmp(a->comm, b->comm, PROBE_COMM_LEN);
}

static int cmp_sum(const void *a, const void *b)
{
	const struct trace_waker_sum *x = a, *y = b;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

int trace_wakers_by_who(const struct trace_result *r, trace_waker_match match, const void *arg,
			struct trace_waker_sum *out, int max, double *total)
{
	struct trace_waker_sum *all = r->nwakers ? calloc((size_t)r->nwakers, sizeof *all) : NULL;
	double *via_ns = r->nwakers ? calloc((size_t)r->nwakers, sizeof *via_ns) : NULL;
	int n = 0;
	double t = 0;

	for (int i = 0; all && via_ns && i < r->nwakers; i++) {
		const struct trace_waker *w = &r->wakers[i];
		if (match ? !match(w, arg) : w->state == PROBE_WAKE_HELD)
			continue;
		t += (double)w->ns;
		int j = 0;
		while (j < n && !same_id(&all[j].who, &w->who))
			j++;
		if (j == n) {
			all[n].who = w->who;
			n++;
		}
		all[j].ns += (double)w->ns;
		all[j].count += w->count;
		/* the waker's own waker seen with most of its time */
		if (w->via.cls != PROBE_WAKER_NONE && (double)w->ns > via_ns[j]) {
			via_ns[j] = (double)w->ns;
			all[j].via = w->via;
		}
	}
	if (n)
		qsort(all, (size_t)n, sizeof *all, cmp_sum);
	if (n > max)
		n = max;
	if (n > 0)
		memcpy(out, all, (size_t)n * sizeof *out);
	free(all);
	free(via_ns);
	if (total)
		*total = t;
	return n;
}

const char *trace_waker_class_id(int cls)
{
	static const char *const ids[PROBE_WAKER_CLASSES] = {
		"none", "traced", "process", "kthread", "workqueue", "hardirq", "softirq", "idle",
	};
	return cls >= 0 && cls < PROBE_WAKER_CLASSES ? ids[cls] : "?";
}

const char *trace_waker_name(const struct probe_waker_id *id, char *buf, size_t len)
{
	char comm[PROBE_COMM_LEN + 1];

	memcpy(comm, id->comm, PROBE_COMM_LEN);
	comm[PROBE_COMM_LEN] = '\0';
	switch (id->cls) {
	case PROBE_WAKER_TRACED:
		snprintf(buf, len, "another traced thread (%s, pid %u)", comm, id->tgid);
		break;
	case PROBE_WAKER_PROCESS: snprintf(buf, len, "%s (pid %u)", comm, id->tgid); break;
	case PROBE_WAKER_KTHREAD: snprintf(buf, len, "%s (a kernel thread)", comm); break;
	case PROBE_WAKER_WORKQUEUE: snprintf(buf, len, "the %s workqueue (a kworker)", comm); break;
	case PROBE_WAKER_HARDIRQ: snprintf(buf, len, "an interrupt (a device or a timer)"); break;
	case PROBE_WAKER_SOFTIRQ:
		snprintf(buf, len, "a softirq (timers, block completions, RCU, network)");
		break;
	case PROBE_WAKER_IDLE: snprintf(buf, len, "nobody (the CPU was idle)"); break;
	default: snprintf(buf, len, "no wake-up seen"); break;
	}
	return buf;
}

const char *trace_wakers_phrase(const struct trace_result *r, trace_waker_match match,
				const void *arg, char *buf, size_t len)
{
	struct trace_waker_sum top[1];
	double total;
	char who[96], via[96];

	*buf = '\0';
	if (trace_wakers_by_who(r, match, arg, top, 1, &total) < 1 || total <= 0 ||
	    top[0].who.cls == PROBE_WAKER_NONE)
		return buf;
	int w = snprintf(buf, len, "; ended by %s in %.0f%% of the time (%llu waits)",
			 trace_waker_name(&top[0].who, who, sizeof who), 100 * top[0].ns / total,
			 (unsigned long long)top[0].count);
	if (w > 0 && (size_t)w < len && top[0].via.cls != PROBE_WAKER_NONE)
		snprintf(buf + w, len - (size_t)w, ", itself woken by %s",
			 trace_waker_name(&top[0].via, via, sizeof via));
	return buf;
}

bool trace_waker_in_subsys(const struct trace_waker *w, const void *arg)
{
	return w->state != PROBE_WAKE_HELD && w->subsys == *(const int *)arg;
}

bool trace_waker_of_cause(const struct trace_waker *w, const void *arg)
{
	return w->state != PROBE_WAKE_HELD && w->cause == *(const int *)arg;
}

bool trace_waker_held(const struct trace_waker *w, const void *arg)
{
	(void)arg;
	return w->state == PROBE_WAKE_HELD;
}

bool trace_waker_in_xstate(const struct trace_waker *w, const void *arg)
{
	return w->state == PROBE_WAKE_XSTATE + *(const unsigned *)arg;
}

int trace_waker_serves(const struct trace_result *r, const struct probe_waker_id *id, int *cause)
{
	double by[SS_COUNT] = { 0 }, byc[TC_COUNT] = { 0 }, any = 0;
	int best = -1;

	*cause = -1;
	for (int i = 0; i < r->nwakers; i++) {
		const struct trace_waker *w = &r->wakers[i];
		if (w->state == PROBE_WAKE_HELD || w->state >= PROBE_WAKE_XSTATE)
			continue;
		if (!same_id(&w->who, id) && !same_id(&w->via, id))
			continue;
		any += (double)w->ns;
		if (w->subsys >= 0 && w->subsys < SS_COUNT)
			by[w->subsys] += (double)w->ns;
		if (w->cause >= 0 && w->cause < TC_COUNT)
			byc[w->cause] += (double)w->ns;
	}
	for (int s = 0; s < SS_COUNT; s++)
		if (by[s] > 0 && (best < 0 || by[s] > by[best]))
			best = s;
	for (int c = 0; c < TC_COUNT; c++)
		if (byc[c] > 0 && (*cause < 0 || byc[c] > byc[*cause]))
			*cause = c;
	return any > 0 ? best : -1;
}

static const char *state_word(unsigned state)
{
	static const char *const x[PROBE_XSTATE_COUNT] = { "signal_stop", "tracer_stop", "frozen",
							   "other_state" };
	switch (state) {
	case PROBE_OFFCPU_BLOCKED: return "blocked";
	case PROBE_OFFCPU_SLEEPING: return "sleeping";
	case PROBE_WAKE_HELD: return "runnable";
	default:
		return state >= PROBE_WAKE_XSTATE && state < PROBE_WAKE_XSTATE + PROBE_XSTATE_COUNT ?
			       x[state - PROBE_WAKE_XSTATE] :
			       "?";
	}
}

#define SHOWN 8

void trace_text_wakers(FILE *f, const struct trace_result *r)
{
	struct trace_waker_sum top[SHOWN];
	double total;
	char b1[32], who[96], via[96];

	if (!r->nwakers)
		return;
	int n = trace_wakers_by_who(r, NULL, NULL, top, SHOWN, &total);
	fprintf(f, "\nWho ended the waits (the waker at sched_waking), by time\n");
	for (int i = 0; i < n; i++) {
		fprintf(f, "  %10s %5.1f%%  %8llu  %s", trace_fmt_ns(top[i].ns, b1, sizeof b1),
			total > 0 ? 100 * top[i].ns / total : 0, (unsigned long long)top[i].count,
			trace_waker_name(&top[i].who, who, sizeof who));
		if (top[i].via.cls != PROBE_WAKER_NONE)
			fprintf(f, ", woken by %s", trace_waker_name(&top[i].via, via, sizeof via));
		fprintf(f, "\n");
	}
	n = trace_wakers_by_who(r, trace_waker_held, NULL, top, SHOWN, &total);
	if (n)
		fprintf(f, "Who held the CPU the runnable threads waited for\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "  %10s %5.1f%%  %8llu  %s\n", trace_fmt_ns(top[i].ns, b1, sizeof b1),
			total > 0 ? 100 * top[i].ns / total : 0, (unsigned long long)top[i].count,
			trace_waker_name(&top[i].who, who, sizeof who));
}

static void json_id(struct json_writer *w, const char *key, const struct probe_waker_id *id)
{
	char comm[PROBE_COMM_LEN + 1], name[96];

	memcpy(comm, id->comm, PROBE_COMM_LEN);
	comm[PROBE_COMM_LEN] = '\0';
	jw_object(w, key);
	jw_string(w, "class", trace_waker_class_id(id->cls));
	if (id->cls >= PROBE_WAKER_TRACED && id->cls <= PROBE_WAKER_WORKQUEUE)
		jw_string(w, "name", comm);
	if (id->cls == PROBE_WAKER_TRACED || id->cls == PROBE_WAKER_PROCESS)
		jw_uint(w, "pid", id->tgid);
	jw_string(w, "text", trace_waker_name(id, name, sizeof name));
	jw_end(w);
}

static int cmp_waker_ns(const void *a, const void *b)
{
	const struct trace_waker *x = *(const struct trace_waker *const *)a;
	const struct trace_waker *y = *(const struct trace_waker *const *)b;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* The JSON keeps the heaviest entries: thousands of sites by waker would
 * bury the report; the rest are summed in wakers_rest_ns. */
#define JSON_WAKERS 200

void trace_json_wakers(struct json_writer *w, const struct trace_result *r)
{
	const struct trace_waker **order = r->nwakers ? calloc((size_t)r->nwakers, sizeof *order) :
							NULL;
	uint64_t rest = 0;
	int n = 0;

	for (int i = 0; order && i < r->nwakers; i++)
		order[n++] = &r->wakers[i];
	if (n)
		qsort(order, (size_t)n, sizeof *order, cmp_waker_ns);
	jw_array(w, "wakers");
	for (int i = 0; i < n; i++) {
		const struct trace_waker *k = order[i];
		if (i >= JSON_WAKERS) {
			rest += k->ns;
			continue;
		}
		jw_object(w, NULL);
		jw_string(w, "state", state_word(k->state));
		if (k->site[0])
			jw_string(w, "site", k->site);
		if (k->subsys >= 0)
			jw_string(w, "subsystem", subsys_id(k->subsys));
		if (k->cause >= 0)
			jw_string(w, "cause", trace_cause_id(k->cause));
		json_id(w, k->state == PROBE_WAKE_HELD ? "holder" : "waker", &k->who);
		if (k->via.cls != PROBE_WAKER_NONE)
			json_id(w, "waker_woken_by", &k->via);
		jw_uint(w, "count", k->count);
		jw_uint(w, "ns", k->ns);
		jw_end(w);
	}
	jw_end(w);
	jw_uint(w, "wakers_rest_ns", rest);
	free(order);
}
