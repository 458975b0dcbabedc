// SPDX-License-Identifier: GPL-3.0-or-later
/* Command-line options of the rm face: GNU rm's, then adaptrm's own. */
#ifndef ADAPTRM_OPTIONS_H
#define ADAPTRM_OPTIONS_H
#include <stdbool.h>
#include <stdint.h>

enum interactive_mode {
	INTERACTIVE_NEVER,     /* -f, --interactive=never */
	INTERACTIVE_SOMETIMES, /* default: ask about write-protected files on a tty */
	INTERACTIVE_ALWAYS,    /* -i */
};

enum preserve_root {
	PRESERVE_ROOT_NONE,
	PRESERVE_ROOT,	   /* default: refuse '/' */
	PRESERVE_ROOT_ALL, /* also refuse operands on another device than their parent */
};

struct rm_options {
	/* GNU rm */
	bool recursive;
	bool remove_empty_dirs; /* -d */
	bool ignore_missing;	/* -f */
	bool verbose;
	bool one_file_system;
	bool prompt_once; /* -I */
	bool stdin_tty;	  /* stdin is a terminal, or ---presume-input-tty */
	enum interactive_mode interactive;
	enum preserve_root preserve_root;

	/* adaptrm */
	int threads;	 /* --threads=N; 0 = automatic */
	int max_threads; /* --max-threads=N: the controller's cap */
	bool stats;	 /* --stats */
	int progress;	 /* --progress 1, --no-progress 0, default -1 (if stderr is a tty) */
	int sort_policy; /* --sort=auto|never|always */
	unsigned sort_threshold; /* --sort-threshold=N */
	unsigned getdents_size;	 /* --getdents-size=BYTES */
	bool explain;		 /* --explain */
	bool no_profile;	 /* --no-profile */
	const char *json_path;	 /* --json=FILE */
	uint64_t free_rate;	 /* --free-rate=RATE, bytes per second (0: none) */
	uint64_t max_ops;	 /* --max-ops=N: unlinks and rmdirs per second (0: any) */
	const char *from_list;	 /* --from-list=FILE: the paths to unlink ("-": stdin) */
	bool prune_empty;	 /* --prune-empty: then the directories left empty */
	bool background;	 /* --background: hold trees for the detached deleter */
	bool pending_held;	 /* --pending: list what is held */
	bool wait_held;		 /* --wait [PATH]...: until it is deleted */
	bool resume_held;	 /* --resume: start deleters for what is left */
};

/* Parse ARGV. Returns the index of the first operand; exits on usage errors,
 * --help and --version. */
int options_parse(struct rm_options *o, int argc, char **argv);
/* Free the arguments options_parse rewrote (argv and O's strings then point
 * to freed memory: for a caller that parses many argument lists). */
void options_release(void);
__attribute__((noreturn)) void options_usage(int status);

#endif
