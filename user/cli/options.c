#include "cli/options.h"
#include "engine/engine.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/version.h"

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
};

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
};
#define N_OWN (sizeof(own_opts) / sizeof(own_opts[0]))

enum { WHEN_NEVER, WHEN_ONCE, WHEN_ALWAYS };

/* gnulib argmatch: an exact word, or a prefix of words that all mean the same.
 * Returns the WHEN_ value, -1 if invalid, -2 if ambiguous. */
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
		if (len && !strncmp(words[i].word, arg, len)) {
			if (found >= 0 && found != words[i].val)
				return -2;
			found = words[i].val;
		}
	}
	return found;
}

static void try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", program_invoked);
}

void options_usage(int status)
{
	if (status != 0) {
		try_help();
		exit(status);
	}
	printf("Usage: %s [OPTION]... [FILE]...\n", program_invoked);
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
      --progress        show a live progress line on stderr (default when\n\
                          stderr is a terminal and -v is not given)\n\
      --no-progress     never show the progress line\n\
      --stats           print a summary: files, directories, time, rate,\n\
                          threads, syscalls\n\
      --explain         print each controller decision with its evidence\n\
      --json=FILE       write the controller's time series as JSON\n\
      --no-profile      neither read nor store the learned tuning profile\n\
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
	printf("  %s -- -foo\n\n  %s ./-foo\n\n", program_invoked, program_invoked);
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

static unsigned long parse_count(const char *opt, const char *arg, unsigned long max)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || v > max || arg[0] == '-')
		goto bad;
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
	default: goto bad;
	}
	if (*end || v > max)
		goto bad;
	return v;
bad:
	warn_errno(0, "invalid argument '%s' for '--%s'", arg, opt);
	try_help();
	exit(1);
}

/* Rewrite "--ab[=x]" to GNU's full option name when GNU rm would read it as
 * exactly one of its options; returns a static buffer or ARG unchanged. */
static char *prefer_gnu_abbrev(char *arg)
{
	static char buf[64];
	if (arg[0] != '-' || arg[1] != '-' || arg[2] == '\0')
		return arg;
	const char *name = arg + 2;
	size_t len = strcspn(name, "=");
	for (size_t i = 0; i < N_GNU; i++)
		if (strlen(gnu_opts[i].name) == len && !strncmp(gnu_opts[i].name, name, len))
			return arg;
	for (size_t i = 0; i < N_OWN; i++)
		if (strlen(own_opts[i].name) == len && !strncmp(own_opts[i].name, name, len))
			return arg;
	const char *match = NULL;
	int n = 0;
	for (size_t i = 0; i < N_GNU; i++)
		if (!strncmp(gnu_opts[i].name, name, len))
			match = gnu_opts[i].name, n++;
	if (n != 1)
		return arg;
	if (!strcmp(match, "no-preserve-root")) {
		warn_errno(0, "you may not abbreviate the --no-preserve-root option");
		exit(1);
	}
	snprintf(buf, sizeof(buf), "--%s%s", match, name + len);
	return buf;
}

int options_parse(struct rm_options *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->interactive = INTERACTIVE_SOMETIMES;
	o->preserve_root = PRESERVE_ROOT;
	o->progress = -1;
	o->sort_policy = SORT_AUTO;
	o->stdin_tty = isatty(STDIN_FILENO);

	struct option all[N_GNU + N_OWN + 1];
	memcpy(all, gnu_opts, sizeof(gnu_opts));
	memcpy(all + N_GNU, own_opts, sizeof(own_opts));
	memset(&all[N_GNU + N_OWN], 0, sizeof(all[0]));

	/* GNU-first abbreviations; stop at "--" (operands after it stay as given). */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		argv[i] = prefer_gnu_abbrev(argv[i]);

	int c;
	while ((c = getopt_long(argc, argv, "dfirvIR", all, NULL)) != -1) {
		switch (c) {
		case 'd': o->remove_empty_dirs = true; break;
		case 'f':
			o->interactive = INTERACTIVE_NEVER;
			o->ignore_missing = true;
			o->prompt_once = false;
			break;
		case 'i':
			o->interactive = INTERACTIVE_ALWAYS;
			o->ignore_missing = false;
			o->prompt_once = false;
			break;
		case 'I':
			o->interactive = INTERACTIVE_SOMETIMES;
			o->ignore_missing = false;
			o->prompt_once = true;
			break;
		case 'r':
		case 'R': o->recursive = true; break;
		case 'v': o->verbose = true; break;
		case OPT_INTERACTIVE: {
			int which = optarg ? argmatch_when(optarg) : WHEN_ALWAYS;
			if (which < 0) {
				warn_errno(0, "%s argument %s for '--interactive'",
					   which == -2 ? "ambiguous" : "invalid", quote_n(0, optarg));
				fputs("Valid arguments are:\n"
				      "  - 'never', 'no', 'none'\n"
				      "  - 'once'\n"
				      "  - 'always', 'yes'\n",
				      stderr);
				try_help();
				exit(1);
			}
			if (which == WHEN_NEVER) {
				o->interactive = INTERACTIVE_NEVER;
				o->prompt_once = false;
			} else if (which == WHEN_ONCE) {
				o->interactive = INTERACTIVE_SOMETIMES;
				o->ignore_missing = false;
				o->prompt_once = true;
			} else {
				o->interactive = INTERACTIVE_ALWAYS;
				o->ignore_missing = false;
				o->prompt_once = false;
			}
			break;
		}
		case OPT_ONE_FILE_SYSTEM: o->one_file_system = true; break;
		case OPT_NO_PRESERVE_ROOT:
			if (strcmp(argv[optind - 1], "--no-preserve-root") != 0) {
				warn_errno(0, "you may not abbreviate the --no-preserve-root option");
				exit(1);
			}
			o->preserve_root = PRESERVE_ROOT_NONE;
			break;
		case OPT_PRESERVE_ROOT:
			if (optarg) {
				if (strcmp(optarg, "all") != 0) {
					warn_errno(0, "unrecognized --preserve-root argument: %s",
						   quote_n(0, optarg));
					exit(1);
				}
				o->preserve_root = PRESERVE_ROOT_ALL;
			} else {
				o->preserve_root = PRESERVE_ROOT;
			}
			break;
		case OPT_PRESUME_INPUT_TTY: o->stdin_tty = true; break;
		case OPT_HELP: options_usage(0);
		case OPT_VERSION: version_print(); exit(msg_close_stdout(0));
		case OPT_THREADS:
			o->threads = (int)parse_count("threads", optarg, 4096);
			if (o->threads < 1) {
				warn_errno(0, "invalid argument '%s' for '--threads'", optarg);
				try_help();
				exit(1);
			}
			break;
		case OPT_MAX_THREADS:
			o->max_threads = (int)parse_count("max-threads", optarg, 4096);
			if (o->max_threads < 1) {
				warn_errno(0, "invalid argument '%s' for '--max-threads'", optarg);
				try_help();
				exit(1);
			}
			break;
		case OPT_STATS: o->stats = true; break;
		case OPT_PROGRESS: o->progress = 1; break;
		case OPT_NO_PROGRESS: o->progress = 0; break;
		case OPT_SORT:
			assert(optarg); /* required_argument */
			if (!strcmp(optarg, "auto"))
				o->sort_policy = SORT_AUTO;
			else if (!strcmp(optarg, "never"))
				o->sort_policy = SORT_NEVER;
			else if (!strcmp(optarg, "always"))
				o->sort_policy = SORT_ALWAYS;
			else {
				warn_errno(0, "invalid argument '%s' for '--sort'", optarg);
				fputs("Valid arguments are:\n  - 'auto'\n  - 'never'\n  - 'always'\n",
				      stderr);
				try_help();
				exit(1);
			}
			break;
		case OPT_SORT_THRESHOLD:
			o->sort_threshold = (unsigned)parse_count("sort-threshold", optarg, UINT_MAX);
			break;
		case OPT_GETDENTS_SIZE:
			o->getdents_size = (unsigned)parse_count("getdents-size", optarg, 16u << 20);
			if (o->getdents_size < 4096) {
				warn_errno(0,
					   "invalid argument '%s' for '--getdents-size' "
					   "(at least 4096)",
					   optarg);
				try_help();
				exit(1);
			}
			break;
		case OPT_EXPLAIN: o->explain = true; break;
		case OPT_NO_PROFILE: o->no_profile = true; break;
		case OPT_JSON: o->json_path = optarg; break;
		default:
			/* getopt printed its message; GNU adds a hint for '-foo' files */
			for (int i = 1; i < argc; i++) {
				if (argv[i][0] == '-' && argv[i][1] && access(argv[i], F_OK) == 0) {
					struct strbuf sb = STRBUF_INIT;
					quote_maybe_append(&sb, argv[i], strlen(argv[i]));
					fprintf(stderr, "Try '%s ./%s' to remove the file %s.\n",
						program_invoked, sb_str(&sb), quote_n(1, argv[i]));
					sb_free(&sb);
					break;
				}
			}
			options_usage(1);
		}
	}
	return optind;
}
