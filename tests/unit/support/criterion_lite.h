// SPDX-License-Identifier: GPL-3.0-or-later
/* The Criterion macros the unit tests use, with a plain in-process runner,
 * where Criterion's runner cannot start: under TSan (its inheritable arena
 * collides with TSan's shadow memory, Snaipe/Criterion#274: "Could not
 * initialize inheritable arena"), and under qemu-user for a cross build (its
 * workers exec the test binary again, which needs binfmt_misc). The test
 * source stays the same; the Makefile compiles it with -DCRITERION_LITE and
 * without -lcriterion when SAN=tsan, and with support/lite/ ahead on the
 * include path (its criterion/criterion.h is this file) for ARCH=arm64.
 *
 * Tests run one after another in this process; a failed assertion prints
 * file:line and the message, runs the suite's fini and goes on with the next
 * test; the exit status is 1 if any failed. */
#ifndef CRITERION_LITE_H
#define CRITERION_LITE_H

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct lite_suite {
	void (*init)(void);
	void (*fini)(void);
	double timeout; /* seconds a test may take under Criterion (0: none) */
};

/* The TSan build runs several times slower than Criterion's plain one: a
 * suite's timeout is stretched by this much here. */
#define LITE_TIMEOUT_SCALE 10

struct lite_test {
	const char *name;
	const struct lite_suite *suite, *own; /* the test's own init and fini first */
	void (*fn)(void);
};

#define LITE_MAX_TESTS 256
static struct lite_test lite_tests[LITE_MAX_TESTS];
static int lite_ntests;
static jmp_buf lite_jmp;

enum { LITE_FAILED = 1, LITE_SKIPPED = 2 };

static inline void lite_register(const char *name, const struct lite_suite *s,
				 const struct lite_suite *own, void (*fn)(void))
{
	if (lite_ntests == LITE_MAX_TESTS) {
		fprintf(stderr, "criterion_lite: more than %d tests\n", LITE_MAX_TESTS);
		abort();
	}
	lite_tests[lite_ntests++] = (struct lite_test){ name, s, own, fn };
}

__attribute__((format(printf, 4, 5))) static inline void lite_fail(const char *file, int line,
								   const char *expr,
								   const char *fmt, ...)
{
	fprintf(stderr, "%s:%d: assertion failed: %s", file, line, expr);
	if (fmt[1]) { /* fmt is " " followed by the test's message */
		va_list ap;
		va_start(ap, fmt);
		fputc(':', stderr);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	longjmp(lite_jmp, LITE_FAILED);
}

/* A suite without TestSuite is the weak symbol's NULL: no init nor fini. */
#define TestSuite(suite, ...) const struct lite_suite lite_suite_##suite = { __VA_ARGS__ }

#define Test(suite, name, ...) \
	extern const struct lite_suite lite_suite_##suite __attribute__((weak)); \
	static const struct lite_suite lite_own_##suite##_##name = { __VA_ARGS__ }; \
	static void lite_fn_##suite##_##name(void); \
	__attribute__((constructor)) static void lite_reg_##suite##_##name(void) \
	{ \
		lite_register(#suite "::" #name, &lite_suite_##suite, &lite_own_##suite##_##name, \
			      lite_fn_##suite##_##name); \
	} \
	static void lite_fn_##suite##_##name(void)

#define cr_assert(cond, ...) \
	do { \
		if (!(cond)) \
			lite_fail(__FILE__, __LINE__, #cond, " " __VA_ARGS__); \
	} while (0)
#define cr_assert_not(cond, ...) cr_assert(!(cond), __VA_ARGS__)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_assert_geq(a, b, ...) cr_assert((a) >= (b), __VA_ARGS__)
#define cr_assert_not_null(p, ...) cr_assert((p) != NULL, __VA_ARGS__)
#define cr_assert_null(p, ...) cr_assert((p) == NULL, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) cr_assert((a) != (b), __VA_ARGS__)
#define cr_assert_leq(a, b, ...) cr_assert((a) <= (b), __VA_ARGS__)
#define cr_assert_lt(a, b, ...) cr_assert((a) < (b), __VA_ARGS__)
#define cr_assert_gt(a, b, ...) cr_assert((a) > (b), __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) cr_assert(strcmp((a), (b)) == 0, __VA_ARGS__)
#define cr_assert_str_neq(a, b, ...) cr_assert(strcmp((a), (b)) != 0, __VA_ARGS__)
#define cr_assert_float_eq(a, b, eps, ...) \
	cr_assert(__builtin_fabs((double)(a) - (double)(b)) <= (eps), __VA_ARGS__)
#define cr_assert_fail(...) lite_fail(__FILE__, __LINE__, "cr_assert_fail", " " __VA_ARGS__)
/* An expectation stops the test here, where Criterion's goes on: stricter. */
#define cr_expect cr_assert
#define cr_expect_not cr_assert_not
#define cr_expect_eq cr_assert_eq
#define cr_expect_neq cr_assert_neq
#define cr_expect_geq cr_assert_geq
#define cr_expect_leq cr_assert_leq
#define cr_expect_gt cr_assert_gt
#define cr_expect_lt cr_assert_lt
#define cr_expect_str_eq cr_assert_str_eq
#define cr_expect_str_neq cr_assert_str_neq
#define cr_expect_float_eq cr_assert_float_eq
#define cr_log_error(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))
#define cr_skip_test(...) \
	do { \
		fprintf(stderr, "skipped: " __VA_ARGS__); \
		fputc('\n', stderr); \
		longjmp(lite_jmp, LITE_SKIPPED); \
	} while (0)

static const char *lite_current;

/* A test ran over its suite's timeout: it hangs, so the run ends here,
 * naming it, and fails (only async-signal-safe calls). */
static void lite_timed_out(int sig)
{
	static const char head[] = "TIMEOUT ";
	(void)sig;
	(void)!write(2, head, sizeof head - 1);
	(void)!write(2, lite_current, strlen(lite_current));
	(void)!write(2, "\n", 1);
	_exit(1);
}

/* One test: init, body, fini; returns 0, LITE_FAILED or LITE_SKIPPED. */
static int lite_run(const struct lite_test *t)
{
	/* volatile: read after a longjmp back into this frame */
	volatile int inited = 0;
	lite_current = t->name;
	signal(SIGALRM, lite_timed_out);
	double limit = t->own->timeout > 0 ? t->own->timeout : t->suite ? t->suite->timeout : 0;
	alarm((unsigned)(limit * LITE_TIMEOUT_SCALE));
	int rc = setjmp(lite_jmp);
	void (*init)(void) = t->own->init ? t->own->init : t->suite ? t->suite->init : NULL;
	void (*fini)(void) = t->own->fini ? t->own->fini : t->suite ? t->suite->fini : NULL;
	if (rc == 0) {
		if (init)
			init();
		inited = 1;
		t->fn();
	}
	if (inited && fini)
		fini();
	alarm(0);
	return rc;
}

#ifdef LITE_FORK_EACH
#include <errno.h>
#include <sys/wait.h>

/* One test in a child of its own, as Criterion runs it: tests that keep state
 * in statics (a mkdtemp template, a stored profile) start fresh, and a crash
 * fails that test only. */
static int lite_run_apart(const struct lite_test *t)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return lite_run(t);
	if (pid == 0)
		_exit(lite_run(t));
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return LITE_FAILED;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "%s: killed by signal %d\n", t->name, WTERMSIG(st));
	return LITE_FAILED;
}
#else
#define lite_run_apart lite_run
#endif

int main(void)
{
	int failed = 0, skipped = 0;
	for (int i = 0; i < lite_ntests; i++) {
		int rc = lite_run_apart(&lite_tests[i]);
		failed += rc == LITE_FAILED;
		skipped += rc == LITE_SKIPPED;
		fprintf(stderr, "%s %s\n",
			rc == LITE_FAILED  ? "FAIL" :
			rc == LITE_SKIPPED ? "SKIP" :
					     "PASS",
			lite_tests[i].name);
	}
	fprintf(stderr, "criterion_lite: %d tests, %d failed, %d skipped\n", lite_ntests, failed,
		skipped);
	return failed ? 1 : 0;
}

#endif
