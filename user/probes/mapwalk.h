// SPDX-License-Identifier: GPL-3.0-or-later
/* Walking a BPF hash map from user space: each entry's key, and its value,
 * in turn (bpf_map__get_next_key, then bpf_map__lookup_elem). The one loop
 * every reader of the probes' hashes shares:
 *
 *	struct map_walk w = { .m = map };
 *	while (map_walk_next(&w, &key, sizeof key, &val, sizeof val))
 *		...
 */
#ifndef ADAPTRM_PROBES_MAPWALK_H
#define ADAPTRM_PROBES_MAPWALK_H
#include <stdbool.h>
#include <stddef.h>

struct bpf_map;

struct map_walk {
	const struct bpf_map *m;
	bool started;
	unsigned char prev[64]; /* the last key, where the next walk step starts */
};

/* The next entry's key into KEY (KSZ bytes, at most 64) and, unless VAL is
 * NULL, its value into VAL (VSZ bytes); an entry removed between the two is
 * skipped. False at the end. */
bool map_walk_next(struct map_walk *w, void *key, size_t ksz, void *val, size_t vsz);

#endif
