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

/* FRAME is one of this trace's own BPF programs ("bpf_prog_TAG_NAME", the
 * names bpf/ gives them), not another tool's. */
static inline bool frame_is_own_prog(const char *frame)
{
	static const char *const own[] = { "btf_*",	 "raw_*",      "cpu_sample",
					   "ksym_names", "hist_add",   "switch_ctx",
					   "switch_in",	 "switch_out", NULL };
	size_t len = frame_fn_len(frame);

	/* bpf_prog_ + 16 hex digits of the tag + '_' */
	if (len < 26 || strncmp(frame, "bpf_prog_", 9) || frame[25] != '_')
		return false;
	return frame_match_any(frame + 26, len - 26, own);
}

#endif
