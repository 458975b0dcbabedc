// SPDX-License-Identifier: GPL-3.0-or-later
/* Matching kernel frame names ("fn" or "fn+0xoff") against name tables:
 * shared by the wait classifier (waitclass.c) and the on-CPU one
 * (cpuclass.c). */
#ifndef ADAPTRM_PROBES_FRAMES_H
#define ADAPTRM_PROBES_FRAMES_H
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The length of FRAME's function name, without "+0xoff". */
static inline size_t frame_fn_len(const char *frame)
{
	const char *plus = strchr(frame, '+');
	return plus ? (size_t)(plus - frame) : strlen(frame);
}

/* NAME (its first LEN characters) equals PAT, or starts with it when PAT
 * ends in '*'. */
static inline bool frame_match(const char *name, size_t len, const char *pat)
{
	size_t pl = strlen(pat);

	if (pl && pat[pl - 1] == '*')
		return len >= pl - 1 && !strncmp(name, pat, pl - 1);
	return len == pl && !strncmp(name, pat, pl);
}

/* NAME matches one of the NULL-terminated PATS. */
static inline bool frame_match_any(const char *name, size_t len, const char *const *pats)
{
	for (; *pats; pats++)
		if (frame_match(name, len, *pats))
			return true;
	return false;
}

#endif
