// SPDX-License-Identifier: GPL-3.0-or-later
/* Walking a BPF hash map (see mapwalk.h). */
#include "probes/mapwalk.h"

#include <bpf/libbpf.h>
#include <string.h>

bool map_walk_next(struct map_walk *w, void *key, size_t ksz, void *val, size_t vsz)
{
	if (ksz > sizeof w->prev)
		return false;
	for (;;) {
		if (bpf_map__get_next_key(w->m, w->started ? w->prev : NULL, key, ksz) != 0)
			return false;
		memcpy(w->prev, key, ksz);
		w->started = true;
		if (!val || bpf_map__lookup_elem(w->m, key, ksz, val, vsz, 0) == 0)
			return true;
	}
}
