// SPDX-License-Identifier: GPL-3.0-or-later
/* Kernel symbol names through bpf_snprintf("%pS") (see ksym_bpf.h). */
#include "probes/ksym_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_names.skel.h"
#include "probes/ksym_names_shared.h"
#include "probes/ksyms.h"

struct ksyms *ksym_bpf_resolve(const uint64_t *addrs, size_t n)
{
	struct ksym_names_bpf *skel = ksym_names_bpf__open_and_load();
	if (!skel)
		return NULL;
	char **names = calloc(n ? n : 1, sizeof *names);
	struct ksym_slot *slot = calloc(1, sizeof *slot);
	int mfd = bpf_map__fd(skel->maps.slots);
	int pfd = bpf_program__fd(skel->progs.ksym_names);
	bool ok = names && slot;

	for (size_t base = 0; ok && base < n; base += KSYM_BATCH) {
		size_t m = n - base < KSYM_BATCH ? n - base : KSYM_BATCH;
		/* the batch, then a zero address that ends it (if room) */
		for (uint32_t i = 0; i < KSYM_BATCH && i <= m; i++) {
			memset(slot, 0, sizeof *slot);
			slot->addr = i < m ? addrs[base + i] : 0;
			if (bpf_map_update_elem(mfd, &i, slot, BPF_ANY))
				ok = false;
		}
		LIBBPF_OPTS(bpf_test_run_opts, run);
		if (!ok || bpf_prog_test_run_opts(pfd, &run)) {
			ok = false;
			break;
		}
		for (uint32_t i = 0; i < m && ok; i++) {
			if (bpf_map_lookup_elem(mfd, &i, slot)) {
				ok = false;
				break;
			}
			slot->name[KSYM_LEN - 1] = '\0';
			names[base + i] = strdup(slot->name);
			ok = names[base + i] != NULL;
		}
	}
	struct ksyms *k = ok ? ksyms_from_pS(addrs, (const char *const *)names, n) : NULL;
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(slot);
	ksym_names_bpf__destroy(skel);
	return k;
}
