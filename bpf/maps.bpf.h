// SPDX-License-Identifier: GPL-2.0-or-later
/* Map helpers shared by the BPF programs. */
#ifndef ADAPTRM_MAPS_BPF_H
#define ADAPTRM_MAPS_BPF_H
#include <bpf/bpf_helpers.h>
#include "kernel_defs.bpf.h"

/* The value of KEY in the hash MAP, inserting a copy of INIT first if KEY is
 * absent. Another CPU may insert the same key between the lookup and the
 * insert: BPF_NOEXIST then fails with -EEXIST, and the second lookup finds
 * that CPU's value. NULL only when the insert fails otherwise (the map is
 * full: the caller decides whether to count that) or the key was deleted
 * again before the second lookup. */
static __always_inline void *bpf_map_lookup_or_try_init(void *map, const void *key, const void *init)
{
	void *val = bpf_map_lookup_elem(map, key);
	long err;

	if (val)
		return val;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -EEXIST)
		return NULL;
	return bpf_map_lookup_elem(map, key);
}

#endif
