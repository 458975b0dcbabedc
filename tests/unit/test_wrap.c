// SPDX-License-Identifier: GPL-3.0-or-later
/* Long lines broken at spaces, continuations under their text, and the
 * width: COLUMNS, else 100 off a terminal. */
#include <criterion/criterion.h>
#include "lib/wrap.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *wrapped(const char *text, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	wrap_text(f, text, width);
	fclose(f);
	return buf;
}

Test(wrap, short_lines_pass_unchanged)
{
	char *s = wrapped("a b\n\n  c\n", 40);
	cr_assert_str_eq(s, "a b\n\n  c\n");
	free(s);
	s = wrapped("no newline", 40);
	cr_assert_str_eq(s, "no newline\n");
	free(s);
}

Test(wrap, a_verdict_line_hangs_under_its_text)
{
	char *s = wrapped("  1. [ 74%] Running in the kernel: twenty ms of work in the kernel\n", 40);
	cr_assert_str_eq(s, "  1. [ 74%] Running in the kernel:\n"
			    "            twenty ms of work in the\n"
			    "            kernel\n");
	free(s);
}

Test(wrap, a_label_and_a_plain_line_hang_past_it)
{
	char *s = wrapped("    why: alpha beta gamma delta epsilon zeta\n", 40);
	cr_assert_str_eq(s, "    why: alpha beta gamma delta epsilon\n"
			    "         zeta\n");
	free(s);
	s = wrapped("  plain words that go on and on past the edge\n", 40);
	cr_assert_str_eq(s, "  plain words that go on and on past the\n"
			    "    edge\n");
	free(s);
}

Test(wrap, every_line_fits_and_no_word_is_lost)
{
	const char *text = "  3. [  9%] User-space CPU: the deleter ran its own code in user space "
			   "for 2.42 ms between its system calls; a compiled deleter needs less.\n";
	for (int w = WRAP_MIN_WIDTH; w <= 120; w += 7) {
		char *s = wrapped(text, w);
		size_t words = 0, back = 0;
		for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
			cr_assert_leq(strlen(line), (size_t)w, "%d: %s", w, line);
			for (char *p = line; *p; p++)
				back += *p != ' ' && (p == line || p[-1] == ' ');
		}
		for (const char *p = text; *p && *p != '\n'; p++)
			words += *p != ' ' && (p == text || p[-1] == ' ');
		cr_assert_eq(back, words, "width %d", w);
		free(s);
	}
}

Test(wrap, a_word_wider_than_the_room_stays_whole)
{
	char *s = wrapped("x aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa y\n", 40);
	cr_assert_str_eq(s, "x\n  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n  y\n");
	free(s);
}

Test(wrap, the_width_is_columns_else_100_off_a_terminal)
{
	int null = open("/dev/null", 0);
	setenv("COLUMNS", "72", 1);
	cr_assert_eq(wrap_width(null), 72);
	setenv("COLUMNS", "5", 1);
	cr_assert_eq(wrap_width(null), WRAP_MIN_WIDTH);
	unsetenv("COLUMNS");
	cr_assert_eq(wrap_width(null), 100);
	close(null);
}
