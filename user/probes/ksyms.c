// SPDX-License-Identifier: GPL-3.0-or-later
/* /proc/kallsyms parsing and address lookup (see ksyms.h). */
#include "probes/ksyms.h"
#include "lib/xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	uint32_t name; /* offset in the names arena */
	uint32_t size; /* bytes, when known (0: up to the next symbol) */
};

/* One array and one name arena, not an allocation per symbol: a kernel has
 * ~150,000 text symbols and this load is on --trace's critical path. */
struct ksyms {
	struct ksym *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
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
	free(k->v);
	free(k->names);
	free(k);
}

/* One line of kallsyms: "ffffffff81000000 T _stext [module]". */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name, size_t *len)
{
	char *end;
	*addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return false;
	*type = end[1];
	*name = end + 3;
	*len = strcspn(*name, " \t\n");
	return *len > 0;
}

static bool add(struct ksyms *k, uint64_t addr, uint32_t size, const char *name, size_t len)
{
	if (!try_grow(&k->v, &k->cap, k->n + 1, 64) ||
	    !try_grow(&k->names, &k->names_cap, k->names_len + len + 1, 4096))
		return false;
	k->v[k->n] = (struct ksym){ .addr = addr, .name = (uint32_t)k->names_len, .size = size };
	memcpy(k->names + k->names_len, name, len);
	k->names[k->names_len + len] = '\0';
	k->names_len += len + 1;
	k->n++;
	return true;
}

struct ksyms *ksyms_load(const char *path)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return NULL;
	struct ksyms *k = calloc(1, sizeof *k);
	char line[512];
	bool nonzero = false, ok = k != NULL;

	while (ok && fgets(line, sizeof line, f)) {
		uint64_t addr;
		char type, *name;
		size_t len;
		if (!parse_line(line, &addr, &type, &name, &len))
			continue;
		name[len] = '\0';
		if (addr)
			nonzero = true;
		if (name[0] == '_' && name[1] == '_') {
			if (!strcmp(name, "__lock_text_start"))
				k->lock_lo = addr;
			else if (!strcmp(name, "__lock_text_end"))
				k->lock_hi = addr;
			else if (!strcmp(name, "__sched_text_start"))
				k->sched_lo = addr;
			else if (!strcmp(name, "__sched_text_end"))
				k->sched_hi = addr;
		}
		if (type != 't' && type != 'T')
			continue;
		ok = add(k, addr, 0, name, len);
	}
	fclose(f);
	if (!ok || !nonzero || k->n == 0) { /* !ok also when calloc failed */
		ksyms_free(k);
		return NULL;
	}
	qsort(k->v, k->n, sizeof *k->v, cmp_addr);
	return k;
}

struct ksyms *ksyms_from_pS(const uint64_t *addrs, const char *const *pS, size_t n)
{
	struct ksyms *k = calloc(1, sizeof *k);
	bool ok = k != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		const char *s = pS[i], *plus = s ? strchr(s, '+') : NULL;
		if (!plus || plus == s || (s[0] == '0' && s[1] == 'x'))
			continue; /* unnamed: the kernel printed the address */
		char *end;
		unsigned long long off = strtoull(plus + 1, &end, 16), size = 0;
		if (end == plus + 1 || off > addrs[i])
			continue;
		if (*end == '/')
			size = strtoull(end + 1, NULL, 16);
		ok = add(k, addrs[i] - off, size > UINT32_MAX ? 0 : (uint32_t)size, s,
			 (size_t)(plus - s));
	}
	if (!ok || k->n == 0) { /* !ok also when calloc failed */
		ksyms_free(k);
		return NULL;
	}
	qsort(k->v, k->n, sizeof *k->v, cmp_addr);
	size_t w = 0; /* one entry per function */
	for (size_t r = 0; r < k->n; r++)
		if (w == 0 || k->v[r].addr != k->v[w - 1].addr)
			k->v[w++] = k->v[r];
	k->n = w;
	return k;
}

static const struct ksym *find(const struct ksyms *k, uint64_t addr)
{
	if (!k || !k->n || addr < k->v[0].addr)
		return NULL;
	size_t lo = 0, hi = k->n; /* last symbol with addr <= ADDR */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	const struct ksym *s = &k->v[lo];
	return s->size && addr - s->addr >= s->size ? NULL : s;
}

bool ksyms_name(const struct ksyms *k, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *s = find(k, addr);

	if (!s) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return false;
	}
	snprintf(buf, len, "%s+0x%llx", k->names + s->name, (unsigned long long)(addr - s->addr));
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
		"rwsem",
		"mutex",
		"spin_lock",
		"_raw_",
		"queued_",
		"down_read",
		"down_write",
		"__down",
		"rt_mutex",
		"lock_slowpath",
		"percpu_down",
		"schedule",
		"osq_lock",
		"contention",
		/* the tracing path that took the stack */
		"bpf_trace_run",
		"__bpf_trace",
		"__traceiter",
		"bpf_prog_",
		"bpf_get_stack",
	};
	const char *name = k->names + s->name;
	for (size_t i = 0; i < sizeof lockish / sizeof *lockish; i++)
		if (strstr(name, lockish[i]))
			return true;
	/* the semaphore entry points: down(), down_killable(), ... (perf
	 * names a semaphore wait by down's caller, e.g. xfs_buf_lock) */
	return !strcmp(name, "down") || !strncmp(name, "down_", 5);
}
