// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/options.h"
#include "engine/engine.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/units.h"
#include "lib/version.h"
#include "lib/xalloc.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_INTERACTIVE = CHAR_MAX + 1,
	OPT_ONE_FILE_SYSTEM,
	OPT_NO_PRESERVE_ROOT,
	OPT_PRESERVE_ROOT,
	OPT_PRESUME_INPUT_TTY,
	OPT_HELP,
	OPT_VERSION,
	/* adaptrm's own */
	OPT_THREADS,
	OPT_MAX_THREADS,
	OPT_STATS,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_SORT,
	OPT_SORT_THRESHOLD,
	OPT_GETDENTS_SIZE,
	OPT_EXPLAIN,
	OPT_NO_PROFILE,
	OPT_JSON,
	OPT_FREE_RATE,
	OPT_MAX_OPS,
	OPT_FROM_LIST,
	OPT_PRUNE_EMPTY,
	OPT_BACKGROUND,
	OPT_PENDING,
	OPT_WAIT,
	OPT_RESUME,
	OPT_UNRECOGNIZED,
};

/* The option a word GNU rm would not recognize becomes when invoked as rm
 * ("--UNRECOGNIZED=WORD"); nobody types its name. */
#define UNRECOGNIZED "\001unrecognized"

/* GNU rm's long options, in rm.c's order. An abbreviation that GNU rm reads
 * as one of these means that one here too, even where one of adaptrm's own
 * options shares the prefix (`--p` is --preserve-root, as in GNU rm). */
static const struct option gnu_opts[] = {
	{ "dir", no_argument, NULL, 'd' },
	{ "force", no_argument, NULL, 'f' },
	{ "interactive", optional_argument, NULL, OPT_INTERACTIVE },
	{ "one-file-system", no_argument, NULL, OPT_ONE_FILE_SYSTEM },
	{ "no-preserve-root", no_argument, NULL, OPT_NO_PRESERVE_ROOT },
	{ "preserve-root", optional_argument, NULL, OPT_PRESERVE_ROOT },
	{ "-presume-input-tty", no_argument, NULL, OPT_PRESUME_INPUT_TTY },
	{ "recursive", no_argument, NULL, 'r' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
};
#define N_GNU (sizeof(gnu_opts) / sizeof(gnu_opts[0]))

static const struct option own_opts[] = {
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "max-threads", required_argument, NULL, OPT_MAX_THREADS },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "sort-threshold", required_argument, NULL, OPT_SORT_THRESHOLD },
	{ "getdents-size", required_argument, NULL, OPT_GETDENTS_SIZE },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	{ "no-profile", no_argument, NULL, OPT_NO_PROFILE },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "free-rate", required_argument, NULL, OPT_FREE_RATE },
	{ "max-ops", required_argument, NULL, OPT_MAX_OPS },
	{ "from-list", required_argument, NULL, OPT_FROM_LIST },
	{ "prune-empty", no_argument, NULL, OPT_PRUNE_EMPTY },
	{ "background", no_argument, NULL, OPT_BACKGROUND },
	{ "pending", no_argument, NULL, OPT_PENDING },
	{ "wait", no_argument, NULL, OPT_WAIT },
	{ "resume", no_argument, NULL, OPT_RESUME },
	{ UNRECOGNIZED, required_argument, NULL, OPT_UNRECOGNIZED },
};
#define N_OWN (sizeof(own_opts) / sizeof(own_opts[0]))

/* --interactive=WHEN; WHEN_FORCE is -f (never asks, ignores missing files). */
enum { WHEN_NEVER, WHEN_ONCE, WHEN_ALWAYS, WHEN_FORCE };

/* gnulib argmatch: an exact word, or a prefix of words that all mean the same
 * (the empty word is a prefix of them all, so ambiguous). Returns the WHEN_ value, -1 if invalid, -2 if ambiguous. */
static int argmatch_when(const char *arg)
{
	static const struct {
		const char *word;
		int val;
	} words[] = {
		{ "never", WHEN_NEVER }, { "no", WHEN_NEVER },	    { "none", WHEN_NEVER },
		{ "once", WHEN_ONCE },	 { "always", WHEN_ALWAYS }, { "yes", WHEN_ALWAYS },
	};
	size_t len = strlen(arg);
	int found = -1;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(words[i].word, arg))
			return words[i].val;
		if (!strncmp(words[i].word, arg, len)) {
			if (found >= 0 && found != words[i].val)
				return -2;
			found = words[i].val;
		}
	}
	return found;
}

static void try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", program_name);
}

void options_usage(int status)
{
	if (status != 0) {
		try_help();
		exit(status);
	}
	printf("Usage: %s [OPTION]... [FILE]...\n", program_name);
	fputs("\
Remove (unlink) the FILE(s), deleting directory trees in parallel and tuning\n\
the number of threads to the filesystem while it runs.\n\
\n\
  -f, --force           ignore nonexistent files and arguments, never prompt\n\
  -i                    prompt before every removal\n\
  -I                    prompt once before removing more than three files, or\n\
                          when removing recursively; less intrusive than -i,\n\
                          while still giving protection against most mistakes\n\
      --interactive[=WHEN]  prompt according to WHEN: never, once (-I), or\n\
                          always (-i); without WHEN, prompt always\n\
      --one-file-system  when removing a hierarchy recursively, skip any\n\
                          directory that is on a file system different from\n\
                          that of the corresponding command line argument\n\
      --no-preserve-root  do not treat '/' specially\n\
      --preserve-root[=all]  do not remove '/' (default);\n\
                              with 'all', reject any command line argument\n\
                              on a separate device from its parent\n\
  -r, -R, --recursive   remove directories and their contents recursively\n\
  -d, --dir             remove empty directories\n\
  -v, --verbose         explain what is being done\n\
      --help            display this help and exit\n\
      --version         output version information and exit\n\
\n\
adaptrm options:\n\
      --threads=N       use exactly N worker threads (default: adaptive)\n\
      --max-threads=N   let the adaptive controller use at most N threads\n\
      --sort=WHEN       delete big directories in inode order: auto (by\n\
                          filesystem type), always, never\n\
      --sort-threshold=N  sort only directories with more than N entries\n\
      --getdents-size=BYTES  directory read buffer size (default 64 KiB)\n\
      --free-rate=RATE  free at most RATE bytes per second (K, M, G, T:\n\
                          powers of 1024; e.g. 256M): files over 64 MiB are\n\
                          unlinked, then freed from the end in 64 MiB steps,\n\
                          paced, unless someone else still has them open;\n\
                          the rest of the tree goes at full speed\n\
      --max-ops=N       at most N unlinks and rmdirs per second in all (with\n\
                          adaptrm-mpi: over all ranks), to keep a purge\n\
                          polite on a shared server\n\
      --progress        show a live progress line on stderr (default when\n\
                          stderr is a terminal and -v is not given)\n\
      --no-progress     never show the progress line\n\
      --stats           print a summary: files, directories, time, rate,\n\
                          threads, syscalls, space freed\n\
      --explain         print each controller decision with its evidence\n\
      --json=FILE       write the controller's time series as JSON\n\
      --no-profile      neither read nor store the learned tuning profile\n\
      --from-list=FILE  unlink the paths FILE lists instead of operands (- is\n\
                          standard input; NUL-separated if FILE holds a NUL,\n\
                          else one per line); a listed directory is removed\n\
                          only by --prune-empty, only when empty\n\
      --prune-empty     with --from-list: then remove the directories left\n\
                          empty, bottom-up, below the listed paths' deepest\n\
                          common ancestor\n\
      --background      with -r: rename each tree into a holding place on\n\
                          its filesystem and return; a detached, polite\n\
                          deleter deletes it (the space is freed then)\n\
      --pending         list what is held and not yet deleted\n\
      --wait [PATH]...  wait until what is held (below PATH) is deleted\n\
      --resume          start deleters for what a kill or crash left held\n\
\n\
Other modes:\n\
  adaptrm --trace [--json FILE] -- COMMAND [ARG]...   trace a command's deletion\n\
  adaptrm --trace -p PID                              trace a running process\n\
  adaptrm --trace -rf DIR...                          trace adaptrm's own delete\n\
  adaptrm --trace --compare A.json B.json             compare two saved traces\n\
  adaptrm --profiles                                  list stored tuning profiles\n\
--trace also takes --interval SEC (a per-interval table) and --no-callers\n\
(no kernel stacks of contended locks); see adaptrm --trace --help.\n\
\n\
By default, rm does not remove directories.  Use the --recursive (-r or -R)\n\
option to remove each listed directory, too, along with all of its contents.\n\
\n\
To remove a file whose name starts with a '-', for example '-foo',\n\
use one of these commands:\n",
	      stdout);
	printf("  %s -- -foo\n\n  %s ./-foo\n\n", program_name, program_name);
	fputs("\
Note that if you use rm to remove a file, it might be possible to recover\n\
some of its contents, given sufficient expertise and/or time.  For greater\n\
assurance that the contents are truly unrecoverable, consider using shred(1).\n\
\n\
Unlike GNU rm, entries inside one directory are removed in parallel, so the\n\
order of -v lines among siblings may differ from GNU rm's (children are\n\
still listed before their directory, operands in command-line order).\n",
	      stdout);
	exit(msg_close_stdout(0));
}

/* argmatch's message, with its quotes: "invalid argument ‘x’ for ‘--opt’". */
static void invalid_argument(const char *what, const char *opt, const char *arg, const char *note)
{
	char name[64];
	snprintf(name, sizeof name, "--%s", opt);
	warn_errno(0, "%s argument %s for %s%s", what, quote_locale_n(0, arg),
		   quote_locale_n(1, name), note);
}

/* argmatch_valid: the words, one line per meaning, in locale quotes. */
static void valid_arguments(const char *const *words, const int *vals, size_t n)
{
	fputs("Valid arguments are:", stderr);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, i && vals[i] == vals[i - 1] ? ", %s" : "\n  - %s",
			quote_locale_n(0, words[i]));
	putc('\n', stderr);
}

static __attribute__((noreturn)) void bad_argument(const char *opt, const char *arg, const char *note)
{
	invalid_argument("invalid", opt, arg, note);
	try_help();
	exit(1);
}

/* A count: digits with an optional K or M suffix, at most MAX. */
static unsigned long parse_count(const char *opt, const char *arg, unsigned long max)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || v > max || arg[0] == '-')
		bad_argument(opt, arg, "");
	switch (*end) {
	case '\0': break;
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	default: bad_argument(opt, arg, "");
	}
	if (*end || v > max)
		bad_argument(opt, arg, "");
	return v;
}

/* parse_count, and at least MIN: below it the message names the minimum
 * when it is above 1 ("(at least 4096)"). */
static unsigned long parse_count_min(const char *arg, unsigned long min, unsigned long max,
				     const char *opt)
{
	unsigned long v = parse_count(opt, arg, max);
	if (v < min) {
		char note[40] = "";
		if (min > 1)
			snprintf(note, sizeof note, " (at least %lu)", min);
		bad_argument(opt, arg, note);
	}
	return v;
}

/* --free-rate=RATE: bytes per second, at most 1 TiB/s (lib/units.h). */
static uint64_t parse_free_rate(const char *arg)
{
	uint64_t rate;
	if (!units_parse_rate(arg, &rate))
		bad_argument("free-rate", arg, "");
	return rate;
}

/* The arguments options_parse rewrote, each with the word it replaced: argv
 * and optarg point into them, so they live until options_release (or the
 * process's end). */
static struct rewrite {
	char *word;
	char *orig;
} * rewritten;
static size_t nrewritten;

/* "--NAME" followed by TAIL, in place of ORIG. */
static char *rewrite(char *orig, const char *name, const char *tail)
{
	size_t size = strlen(name) + strlen(tail) + 3;
	char *word = xmalloc(size);
	snprintf(word, size, "--%s%s", name, tail);
	rewritten = xrealloc(rewritten, (nrewritten + 1) * sizeof *rewritten);
	rewritten[nrewritten++] = (struct rewrite){ word, orig };
	return word;
}

/* The word the user typed where WORD now stands (WORD itself if it was
 * not rewritten, NULL for NULL). */
static char *original_word(char *word)
{
	for (size_t i = 0; i < nrewritten; i++)
		if (rewritten[i].word == word)
			return rewritten[i].orig;
	return word;
}

void options_release(void)
{
	while (nrewritten > 0)
		free(rewritten[--nrewritten].word);
	free(rewritten);
	rewritten = NULL;
}

static bool is_exact(const struct option *opts, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len))
			return true;
	return false;
}

/* Rewrite "--ab[=x]" to GNU's full option name when GNU rm would read it as
 * exactly one of its options. Invoked as rm, a word GNU rm would not
 * recognize (an abbreviation of adaptrm's own options only) becomes the
 * UNRECOGNIZED option, for getopt to report in its turn as GNU's does; only
 * adaptrm's options spelled in full are read there. Returns ARG or a new
 * word. */
static char *resolve_as_gnu(char *arg, bool rm_face)
{
	if (arg[0] != '-' || arg[1] != '-' || arg[2] == '\0')
		return arg;
	const char *name = arg + 2;
	size_t len = strcspn(name, "=");
	if (is_exact(gnu_opts, N_GNU, name, len) || is_exact(own_opts, N_OWN, name, len))
		return arg;
	const char *match = NULL;
	int n = 0;
	for (size_t i = 0; i < N_GNU; i++)
		if (!strncmp(gnu_opts[i].name, name, len))
			match = gnu_opts[i].name, n++;
	if (n == 1)
		return rewrite(arg, match, name + len);
	if (n == 0 && rm_face)
		return rewrite(arg, UNRECOGNIZED "=", arg);
	return arg;
}

/* -f, -i, -I and --interactive=WHEN, as GNU rm sets them: -f also ignores
 * missing files, --interactive=never leaves that as it was, the others
 * clear it. */
static void set_interactive(struct rm_options *o, int when)
{
	o->interactive = when == WHEN_ALWAYS ? INTERACTIVE_ALWAYS :
			 when == WHEN_ONCE   ? INTERACTIVE_SOMETIMES :
					       INTERACTIVE_NEVER;
	o->prompt_once = when == WHEN_ONCE;
	if (when != WHEN_NEVER)
		o->ignore_missing = when == WHEN_FORCE;
}

/* --interactive[=WHEN] -> WHEN_*, or exit 1 with argmatch's message. */
static int parse_when(const char *arg)
{
	int which = arg ? argmatch_when(arg) : WHEN_ALWAYS;
	if (which >= 0)
		return which;
	static const char *const words[] = { "never", "no", "none", "once", "always", "yes" };
	static const int vals[] = { WHEN_NEVER, WHEN_NEVER,  WHEN_NEVER,
				    WHEN_ONCE,	WHEN_ALWAYS, WHEN_ALWAYS };
	invalid_argument(which == -2 ? "ambiguous" : "invalid", "interactive", arg, "");
	valid_arguments(words, vals, sizeof(words) / sizeof(words[0]));
	try_help();
	exit(1);
}

/* --sort=WHEN -> SORT_*, or exit 1. */
static int parse_sort(const char *arg)
{
	assert(arg); /* required_argument */
	if (!strcmp(arg, "auto"))
		return SORT_AUTO;
	if (!strcmp(arg, "never"))
		return SORT_NEVER;
	if (!strcmp(arg, "always"))
		return SORT_ALWAYS;
	static const char *const words[] = { "auto", "never", "always" };
	static const int vals[] = { SORT_AUTO, SORT_NEVER, SORT_ALWAYS };
	invalid_argument("invalid", "sort", arg, "");
	valid_arguments(words, vals, 3);
	try_help();
	exit(1);
}

/* --preserve-root[=all] -> PRESERVE_ROOT*, or exit 1. */
static enum preserve_root parse_preserve_root(const char *arg)
{
	if (!arg)
		return PRESERVE_ROOT;
	if (strcmp(arg, "all") != 0) {
		warn_errno(0, "unrecognized --preserve-root argument: %s", quote_n(0, arg));
		exit(1);
	}
	return PRESERVE_ROOT_ALL;
}

/* --no-preserve-root only spelled out in full (ARG is the word getopt read). */
static void check_no_preserve_root(const char *arg)
{
	if (strcmp(arg, "--no-preserve-root") != 0) {
		warn_errno(0, "you may not abbreviate the --no-preserve-root option");
		exit(1);
	}
}

/* getopt printed its message; GNU adds a hint for '-foo' files, then exits. */
static __attribute__((noreturn)) void bad_option(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *word = original_word(argv[i]);
		if (word[0] == '-' && word[1] && access(word, F_OK) == 0) {
			struct strbuf sb = STRBUF_INIT;
			quote_maybe_append(&sb, word, strlen(word));
			fprintf(stderr, "Try '%s ./%s' to remove the file %s.\n", program_name,
				sb_str(&sb), quote_n(1, word));
			sb_free(&sb);
			break;
		}
	}
	options_usage(1);
}

/* WORD, which GNU rm does not know, in getopt's words. */
static __attribute__((noreturn)) void unrecognized(const char *word, int argc, char **argv)
{
	fprintf(stderr, "%s: unrecognized option '%s'\n", program_name, word);
	bad_option(argc, argv);
}

/* Resolve the long options before getopt reads them, up to "--" (the
 * operands after it stay as given). */
static void resolve_args(int argc, char **argv)
{
	bool rm_face = !strcmp(program_short, "rm");
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		argv[i] = resolve_as_gnu(argv[i], rm_face);
}

/* Operands that looked like options (after POSIXLY_CORRECT's first operand)
 * are given back as typed. */
static void restore_operands(int first, int argc, char **argv)
{
	for (int i = first; i < argc; i++)
		argv[i] = original_word(argv[i]);
}

static void set_defaults(struct rm_options *o)
{
	memset(o, 0, sizeof(*o));
	o->interactive = INTERACTIVE_SOMETIMES;
	o->preserve_root = PRESERVE_ROOT;
	o->progress = -1;
	o->sort_policy = SORT_AUTO;
	o->stdin_tty = isatty(STDIN_FILENO);
}

int options_parse(struct rm_options *o, int argc, char **argv)
{
	set_defaults(o);
	struct option all[N_GNU + N_OWN + 1];
	memcpy(all, gnu_opts, sizeof(gnu_opts));
	memcpy(all + N_GNU, own_opts, sizeof(own_opts));
	memset(&all[N_GNU + N_OWN], 0, sizeof(all[0]));

	resolve_args(argc, argv);

	int c;
	while ((c = getopt_long(argc, argv, "dfirvIR", all, NULL)) != -1) {
		/* a separate argument may have looked like an option */
		optarg = original_word(optarg);
		switch (c) {
		case 'd': o->remove_empty_dirs = true; break;
		case 'f': set_interactive(o, WHEN_FORCE); break;
		case 'i': set_interactive(o, WHEN_ALWAYS); break;
		case 'I': set_interactive(o, WHEN_ONCE); break;
		case 'r':
		case 'R': o->recursive = true; break;
		case 'v': o->verbose = true; break;
		case OPT_INTERACTIVE: set_interactive(o, parse_when(optarg)); break;
		case OPT_ONE_FILE_SYSTEM: o->one_file_system = true; break;
		case OPT_NO_PRESERVE_ROOT:
			check_no_preserve_root(original_word(argv[optind - 1]));
			o->preserve_root = PRESERVE_ROOT_NONE;
			break;
		case OPT_PRESERVE_ROOT: o->preserve_root = parse_preserve_root(optarg); break;
		case OPT_PRESUME_INPUT_TTY: o->stdin_tty = true; break;
		case OPT_HELP: options_usage(0);
		case OPT_VERSION: version_print(); exit(msg_close_stdout(0));
		case OPT_THREADS:
			o->threads = (int)parse_count_min(optarg, 1, 4096, "threads");
			break;
		case OPT_MAX_THREADS:
			o->max_threads = (int)parse_count_min(optarg, 1, 4096, "max-threads");
			break;
		case OPT_STATS: o->stats = true; break;
		case OPT_PROGRESS: o->progress = 1; break;
		case OPT_NO_PROGRESS: o->progress = 0; break;
		case OPT_SORT: o->sort_policy = parse_sort(optarg); break;
		case OPT_SORT_THRESHOLD:
			o->sort_threshold =
				(unsigned)parse_count_min(optarg, 0, UINT_MAX, "sort-threshold");
			break;
		case OPT_GETDENTS_SIZE:
			o->getdents_size =
				(unsigned)parse_count_min(optarg, 4096, 16u << 20, "getdents-size");
			break;
		case OPT_EXPLAIN: o->explain = true; break;
		case OPT_NO_PROFILE: o->no_profile = true; break;
		case OPT_JSON: o->json_path = optarg; break;
		case OPT_FREE_RATE: o->free_rate = parse_free_rate(optarg); break;
		case OPT_MAX_OPS:
			o->max_ops = parse_count_min(optarg, 1, 1000000000ul, "max-ops");
			break;
		case OPT_FROM_LIST: o->from_list = optarg; break;
		case OPT_PRUNE_EMPTY: o->prune_empty = true; break;
		case OPT_BACKGROUND: o->background = true; break;
		case OPT_PENDING: o->pending_held = true; break;
		case OPT_WAIT: o->wait_held = true; break;
		case OPT_RESUME: o->resume_held = true; break;
		case OPT_UNRECOGNIZED: unrecognized(optarg, argc, argv);
		default: bad_option(argc, argv);
		}
	}
	restore_operands(optind, argc, argv);
	return optind;
}
