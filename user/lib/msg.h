// SPDX-License-Identifier: GPL-3.0-or-later
/* GNU-style diagnostics: "PROG: message[: strerror]" on stderr, one line per
 * call, safe to call from any worker thread. PROG is argv[0] as given, as GNU
 * rm prints it, so that adaptrm installed as `rm` speaks as `rm`. */
#ifndef ADAPTRM_MSG_H
#define ADAPTRM_MSG_H


/* argv[0] as given: every message and prompt, Usage and Try '... --help' */
extern const char *program_name;
/* its last component: --version's first line and the face's choice */
extern const char *program_short;

void msg_init(const char *argv0);
void warn_errno(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void die(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* GNU close_stdout: flush and close stdout; on a write error (closed fd,
 * full disk, a closed pipe with SIGPIPE ignored) print "PROG: write error:
 * ..." and return 1, else STATUS. Then stderr: a write of it that failed
 * returns 1 too, without a message. */
int msg_close_stdout(int status);
/* A write of stdout failed with ERR (from any thread): msg_close_stdout
 * names it if stdio no longer does. */
void msg_stdout_failed(int err);

#endif
