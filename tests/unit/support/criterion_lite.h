/* The few Criterion macros the engine tests use, with a plain in-process
 * runner, for the ThreadSanitizer build only: Criterion's runner cannot start
 * under TSan (its inheritable arena collides with TSan's shadow memory,
 * Snaipe/Criterion#274: "Could not initialize inheritable arena"). The test
 * source stays the same; the Makefile compiles it with -DCRITERION_LITE and
 * without -lcriterion when SAN=tsan.
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
	const struct lite_suite *suite;
	void (*fn)(void);
};

#define LITE_MAX_TESTS 64
static struct lite_test lite_tests[LITE_MAX_TESTS];
static int lite_ntests;
static jmp_buf lite_jmp;

enum { LITE_FAILED = 1, LITE_SKIPPED = 2 };

static inline void lite_register(const char *name, const struct lite_suite *s, void (*fn)(void))
{
	if (lite_ntests == LITE_MAX_TESTS) {
		fprintf(stderr, "criterion_lite: more than %d tests\n", LITE_MAX_TESTS);
		abort();
	}
	lite_tests[lite_ntests++] = (struct lite_test){ name, s, fn };
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

#define TestSuite(suite, ...) static const struct lite_suite lite_suite_##suite = { __VA_ARGS__ }

#define Test(suite, name) \
	static void lite_fn_##suite##_##name(void); \
	__attribute__((constructor)) static void lite_reg_##suite##_##name(void) \
	{ \
		lite_register(#suite "::" #name, &lite_suite_##suite, lite_fn_##suite##_##name); \
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
	alarm((unsigned)(t->suite->timeout * LITE_TIMEOUT_SCALE));
	int rc = setjmp(lite_jmp);
	if (rc == 0) {
		if (t->suite->init)
			t->suite->init();
		inited = 1;
		t->fn();
	}
	if (inited && t->suite->fini)
		t->suite->fini();
	alarm(0);
	return rc;
}

int main(void)
{
	int failed = 0, skipped = 0;
	for (int i = 0; i < lite_ntests; i++) {
		int rc = lite_run(&lite_tests[i]);
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
