// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer harness: the rm face's option parser (user/cli/options.c
 * options_parse). The input is the argument list, NUL-separated (argv[0] is
 * "adaptrm"). options_parse exits on usage errors, --help and --version:
 * exit is wrapped (-Wl,--wrap=exit) to jump back here while a parse runs,
 * and msg_close_stdout (-Wl,--wrap=msg_close_stdout) only flushes, so that
 * stdout stays usable. Its messages go to /dev/null (sanitizer reports are
 * written to fd 2 directly and stay visible). Built and run by
 * scripts/fuzz.sh. */
#include "cli/options.h"

#include <getopt.h>
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

static jmp_buf back;
static volatile int parsing;
static int exit_status;

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status)
{
	if (parsing) {
		exit_status = status;
		longjmp(back, 1);
	}
	__real_exit(status);
}

int __wrap_msg_close_stdout(int status)
{
	fflush(stdout);
	return status;
}

static FILE *null_out;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!null_out && !(null_out = fopen("/dev/null", "w")))
		abort();
	/* argv: "adaptrm", then the NUL-separated words of the input */
	char *buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	argv[argc++] = "adaptrm";
	for (char *p = buf; p < buf + size && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	char *orig[MAX_ARGS + 2];
	memcpy(orig, argv, sizeof orig);

	struct rm_options o;
	FILE *out = stdout, *err = stderr;
	stdout = stderr = null_out;
	optind = 0; /* a full reset of getopt's state */
	exit_status = -1;
	volatile int first = -1;
	if (!setjmp(back)) {
		parsing = 1;
		first = options_parse(&o, argc, argv);
	}
	parsing = 0;
	fflush(null_out);
	stdout = out;
	stderr = err;

	if (first >= 0) {
		/* a parse that returns points at the operands */
		if (first < 1 || first > argc)
			abort();
		if (o.threads < 0 || o.threads > 4096 || o.max_threads < 0 || o.max_threads > 4096)
			abort();
		if (o.getdents_size && (o.getdents_size < 4096 || o.getdents_size > 16u << 20))
			abort();
		/* getopt only permutes: every argument is still there */
		for (int i = first; i < argc; i++)
			if (!argv[i])
				abort();
	}
	/* Each argument keeps a string of its own: two rewritten into one
	 * shared buffer would both read as the last one. */
	for (int i = 1; i < argc; i++)
		for (int j = i + 1; j < argc; j++)
			if (argv[i] == argv[j]) {
				fprintf(stderr, "arguments %d and %d share one buffer: '%s'\n", i,
					j, argv[i]);
				abort();
			}
	/* usage errors exit 1, --help and --version 0 */
	if (first < 0 && exit_status != 0 && exit_status != 1)
		abort();
	options_release();
	free(buf);
	return 0;
}
