// SPDX-License-Identifier: GPL-3.0-or-later
#include "lib/msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

const char *program_name = "adaptrm";
const char *program_short = "adaptrm";

/* As gnulib's set_program_name: argv[0] as given, full path included, so a
 * script's messages name the rm it ran; only libtool's "/.libs/" directory and
 * its "lt-" prefix are taken off, as there. */
void msg_init(const char *argv0)
{
	if (!argv0 || !*argv0)
		return;
	const char *slash = strrchr(argv0, '/');
	const char *base = slash ? slash + 1 : argv0;
	if (base - argv0 >= 7 && !strncmp(base - 7, "/.libs/", 7)) {
		argv0 = base;
		if (!strncmp(base, "lt-", 3))
			argv0 = base = base + 3;
	}
	program_name = argv0;
	program_short = base;
}

static void vmsg(int errnum, const char *fmt, va_list ap)
{
	/* stdout may hold -v lines: flush them first so the streams interleave
	 * in the order things happened (as GNU rm does). */
	flockfile(stdout);
	fflush(stdout);
	flockfile(stderr);
	fprintf(stderr, "%s: ", program_name);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
	funlockfile(stderr);
	funlockfile(stdout);
}

void warn_errno(int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(errnum, fmt, ap);
	va_end(ap);
}

void die(int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(errnum, fmt, ap);
	va_end(ap);
	exit(1);
}

/* The error a write of stdout failed with, for close_stdout's message when
 * stdio no longer holds it (the failed buffer was dropped). */
static _Atomic int stdout_errno;

void msg_stdout_failed(int err)
{
	stdout_errno = err;
}

int msg_close_stdout(int status)
{
	bool pending = __fpending(stdout) != 0;
	bool prev_fail = ferror(stdout) != 0;
	bool close_fail = fclose(stdout) != 0;
	if (prev_fail || (close_fail && (pending || errno != EBADF))) {
		/* EPIPE too, as gnulib's close_stdout: it is seen only where
		 * SIGPIPE is ignored or blocked (else it killed us first) */
		int err = close_fail ? errno : stdout_errno;
		warn_errno(err, "write error");
		status = 1;
	}
	/* As gnulib's close_stdout: a failed write of stderr (--stats,
	 * --explain, a message into a full disk) fails the run, silently,
	 * since stderr is where it would be told. A stderr closed from the
	 * start that was never written is no failure. */
	pending = __fpending(stderr) != 0;
	prev_fail = ferror(stderr) != 0;
	close_fail = fclose(stderr) != 0;
	if (prev_fail || (close_fail && (pending || errno != EBADF)))
		status = 1;
	return status;
}
