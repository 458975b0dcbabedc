// SPDX-License-Identifier: GPL-3.0-or-later
/* The environment variables adaptrm reads (see env.h). The only getenv() in
 * user/: `make lint` checks it. */
#include "lib/env.h"

#include <stdlib.h>

const struct env_desc env_table[ENV_COUNT] = {
	[ENV_CTL_BPF] = { "ADAPTRM_CTL_BPF",
			  "1: the controller loads its eBPF probes at once; 0: never (user-space signals only)",
			  false },
	[ENV_CTL_START] = { "ADAPTRM_CTL_START",
			    "the controller's first worker count instead of the profile or prior",
			    true },
	[ENV_DIR_SHARE] = { "ADAPTRM_DIR_SHARE",
			    "workers that may unlink in one directory at once (1: one per directory); 0: by filesystem type",
			    true },
	[ENV_REVERSE] = { "ADAPTRM_REVERSE",
			  "1: unlink each getdents64 batch last-first everywhere; 0: never", true },
	[ENV_SHARE_TRIAL] = { "ADAPTRM_SHARE_TRIAL",
			      "1: the controller tries directory sharing on every filesystem type",
			      true },
	[ENV_SORT_TRIAL] = { "ADAPTRM_SORT_TRIAL",
			     "1: the controller tries inode order on every filesystem type", true },
	[ENV_AG_ORDER] = { "ADAPTRM_AG_ORDER",
			   "0: on xfs, workers take directories in any order, not each its own allocation groups'",
			   true },
	[ENV_BPF_DEBUG] = { "ADAPTRM_BPF_DEBUG", "set: print libbpf's messages on stderr", false },
	[ENV_BPF_RAW_TP] = { "ADAPTRM_BPF_RAW_TP", "1: attach raw_tp programs instead of tp_btf",
			     true },
	[ENV_KALLSYMS] = { "ADAPTRM_KALLSYMS",
			   "1: name kernel callers from /proc/kallsyms, not from BPF's ksym iterator",
			   true },
	[ENV_TRACE_NO] = { "ADAPTRM_TRACE_NO",
			   "probe groups to leave out, comma-separated (runq,offcpu,oncpu,locks,ext4,...):"
			   " to measure what each costs",
			   true },
	[ENV_LANE_WATCHDOG_MS] = { "ADAPTRM_LANE_WATCHDOG_MS",
				   "milliseconds inside one unlinkat before the large-file lane switches on"
				   " (default 250); 0: on from the start",
				   true },
	[ENV_HEAVY_US] = { "ADAPTRM_HEAVY_US",
			   "microseconds a slice's unlinks take on average before its rest is shared"
			   " with an idle worker (default 100); 0: every slice is split",
			   true },
	[ENV_DIST_EAGER] = { "ADAPTRM_DIST_EAGER",
			     "adaptrm-mpi: 1 makes every rank ask its peers for work all the time,"
			     " not only when idle (forced steals, re-steals)",
			     true },
	[ENV_DIST_BUDGET] = { "ADAPTRM_DIST_BUDGET",
			      "adaptrm-mpi: 0 turns the shared budget off: every rank's controller"
			      " then tunes alone (to measure what the budget does)",
			      true },
	[ENV_TMPDIR] = { "TMPDIR", "where --prune-empty spools the directories it may prune (/tmp)",
			 false },
	[ENV_XDG_CACHE_HOME] = { "XDG_CACHE_HOME",
				 "profiles are kept in $XDG_CACHE_HOME/adaptrm (absolute paths only)",
				 false },
	[ENV_XDG_STATE_HOME] = { "XDG_STATE_HOME",
				 "--background keeps its index of holding places and the deleter's log"
				 " in $XDG_STATE_HOME/adaptrm (absolute paths only)",
				 false },
	[ENV_HOME] = { "HOME", "without XDG_CACHE_HOME, profiles are kept in $HOME/.cache/adaptrm",
		       false },
	[ENV_PATH] = { "PATH", "where --trace -- COMMAND is looked up, as execvp does", false },
	[ENV_COLUMNS] = { "COLUMNS",
			  "the width the --trace report wraps at (else the terminal's, or 100)",
			  false },
};

const char *env_str(enum env_var v)
{
	return getenv(env_table[v].name);
}

int env_flag(enum env_var v, int unset)
{
	const char *s = env_str(v);
	return !s ? unset : s[0] == '1';
}

int env_int(enum env_var v, int unset)
{
	const char *s = env_str(v);
	char *end;
	if (!s || !*s)
		return unset;
	long n = strtol(s, &end, 10);
	return *end ? unset : (int)n;
}
