/* /proc/kallsyms parsing and address lookup (see ksyms.h). */
#include "ksyms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	struct ksym *v;
	size_t n;
	uint64_t lock_lo, lock_hi, sched_lo, sched_hi;
};

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	free(k);
}

struct ksyms *ksyms_load(const char *path)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return NULL;
	struct ksyms *k = calloc(1, sizeof *k);
	size_t cap = 0;
	char line[512], name[256], type;
	unsigned long long addr;
	bool nonzero = false;

	while (k && fgets(line, sizeof line, f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (addr)
			nonzero = true;
		if (!strcmp(name, "__lock_text_start")) k->lock_lo = addr;
		else if (!strcmp(name, "__lock_text_end")) k->lock_hi = addr;
		else if (!strcmp(name, "__sched_text_start")) k->sched_lo = addr;
		else if (!strcmp(name, "__sched_text_end")) k->sched_hi = addr;
		if (type != 't' && type != 'T')
			continue;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 65536;
			struct ksym *nv = realloc(k->v, cap * sizeof *nv);
			if (!nv) {
				ksyms_free(k);
				k = NULL;
				break;
			}
			k->v = nv;
		}
		k->v[k->n].addr = addr;
		k->v[k->n].name = strdup(name);
		if (!k->v[k->n].name) {
			ksyms_free(k);
			k = NULL;
			break;
		}
		k->n++;
	}
	fclose(f);
	if (k && (!nonzero || k->n == 0)) {
		ksyms_free(k);
		return NULL;
	}
	if (k)
		qsort(k->v, k->n, sizeof *k->v, cmp_addr);
	return k;
}

static const struct ksym *find(const struct ksyms *k, uint64_t addr)
{
	if (!k || !k->n || addr < k->v[0].addr)
		return NULL;
	size_t lo = 0, hi = k->n;	/* last symbol with addr <= ADDR */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &k->v[lo];
}

bool ksyms_name(const struct ksyms *k, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *s = find(k, addr);

	if (!s) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return false;
	}
	snprintf(buf, len, "%s+0x%llx", s->name, (unsigned long long)(addr - s->addr));
	return true;
}

bool ksyms_is_lock_code(const struct ksyms *k, uint64_t addr)
{
	if (!k)
		return false;
	if (k->lock_lo && addr >= k->lock_lo && addr < k->lock_hi)
		return true;
	if (k->sched_lo && addr >= k->sched_lo && addr < k->sched_hi)
		return true;
	const struct ksym *s = find(k, addr);
	if (!s)
		return false;
	static const char *const lockish[] = {
		"rwsem", "mutex", "spin_lock", "_raw_", "queued_", "down_read",
		"down_write", "__down", "rt_mutex", "lock_slowpath", "percpu_down",
		"schedule", "osq_lock", "contention",
		/* the tracing path that took the stack */
		"bpf_trace_run", "__bpf_trace", "__traceiter", "bpf_prog_", "bpf_get_stack",
	};
	for (size_t i = 0; i < sizeof lockish / sizeof *lockish; i++)
		if (strstr(s->name, lockish[i]))
			return true;
	return false;
}
