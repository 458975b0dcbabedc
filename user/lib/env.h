// SPDX-License-Identifier: GPL-3.0-or-later
/* Every environment variable adaptrm reads, in one table (env.c) with its
 * meaning; the man page's ENVIRONMENT section lists the same. Values are read
 * when asked (tests change them between cases), never cached here. */
#ifndef ADAPTRM_ENV_H
#define ADAPTRM_ENV_H
#include <stdbool.h>

enum env_var {
	ENV_CTL_BPF,	      /* controller's probes: 1 load at once, 0 never */
	ENV_CTL_START,	      /* controller's first worker count (experiments) */
	ENV_DIR_SHARE,	      /* the engine's directory-sharing policy */
	ENV_REVERSE,	      /* unlink each getdents64 batch last-first: 1/0 */
	ENV_SHARE_TRIAL,      /* 1: try sharing on every filesystem type */
	ENV_SORT_TRIAL,	      /* 1: try inode order on every filesystem type */
	ENV_AG_ORDER,	      /* 0: no allocation-group order of directories on xfs */
	ENV_BPF_DEBUG,	      /* libbpf's messages on stderr */
	ENV_BPF_RAW_TP,	      /* 1: raw_tp programs instead of tp_btf */
	ENV_KALLSYMS,	      /* 1: name kernel callers from /proc/kallsyms */
	ENV_TRACE_NO,	      /* probe groups to leave out (overhead measurements) */
	ENV_LANE_WATCHDOG_MS, /* the watchdog's threshold (tests) */
	ENV_HEAVY_US,	      /* the mean unlink time that shares a slice's rest (tests) */
	ENV_DIST_EAGER,	      /* adaptrm-mpi: ask for work all the time (tests) */
	ENV_DIST_BUDGET,      /* adaptrm-mpi: 0 turns the shared budget off */
	ENV_TMPDIR,	      /* where --prune-empty spools its directories */
	ENV_XDG_CACHE_HOME,   /* where profiles are kept */
	ENV_XDG_STATE_HOME,   /* where --background keeps its index and log */
	ENV_HOME,
	ENV_PATH,    /* where --trace -- COMMAND is looked up */
	ENV_COLUMNS, /* the width the --trace report wraps at */
	ENV_COUNT
};

struct env_desc {
	const char *name;
	const char *meaning; /* one line, for the man page and --help-env */
	bool testing;	     /* for tests and experiments, not for users */
};
extern const struct env_desc env_table[ENV_COUNT];

/* The value, or NULL when unset. */
const char *env_str(enum env_var v);
/* Set and starting with '1': 1; set to anything else: 0; unset: UNSET. */
int env_flag(enum env_var v, int unset);
/* A decimal integer, or UNSET when unset or not a number. */
int env_int(enum env_var v, int unset);
#endif
