// SPDX-License-Identifier: GPL-3.0-or-later
#include <criterion/criterion.h>
#include <locale.h>
#include <string.h>
#include "lib/quote.h"

static const char *q(const char *s)
{
	static struct strbuf sb;
	sb_reset(&sb);
	quote_append(&sb, s, strlen(s));
	return sb_str(&sb);
}

Test(quote, plain_and_spaces)
{
	cr_assert_str_eq(q("f"), "'f'");
	cr_assert_str_eq(q("a b"), "'a b'");
	cr_assert_str_eq(q(""), "''");
}

Test(quote, single_quote_uses_double_quotes)
{
	cr_assert_str_eq(q("it's"), "\"it's\"");
}

Test(quote, control_characters)
{
	cr_assert_str_eq(q("nl\nx"), "'nl'$'\\n''x'");
	cr_assert_str_eq(q("x\ty"), "'x'$'\\t''y'");
}

Test(quote, non_ascii_in_c_locale)
{
	setlocale(LC_ALL, "C");
	cr_assert_str_eq(q("caf\xc3\xa9"), "'caf'$'\\303\\251'");
}

/* Each name and what quoting it gives, checked with F. */
struct quoted {
	const char *in, *out;
};
#define CHECK_ALL(f, cases) \
	for (size_t i = 0; i < sizeof(cases) / sizeof((cases)[0]); i++) \
	cr_assert_str_eq(f((cases)[i].in), (cases)[i].out, "quoting case %zu", i)

/* Outputs observed from GNU rm 9.1 (gnulib quotearg), byte for byte. */
Test(quote, quote_next_to_escape_island)
{
	static const struct quoted cases[] = {
		{ "\x01'", "''$'\\001'\\'''" },
		{ "a\x01'b", "'a'$'\\001'\\''b'" },
		{ "a\tb'", "'a'$'\\t''b'\\'''" },
		{ "a'b\x01"
		  "c'd",
		  "'a'\\''b'$'\\001''c'\\''d'" },
	};
	setlocale(LC_ALL, "C");
	CHECK_ALL(q, cases);
}

Test(quote, gnulib_restart_prefix)
{
	/* A quote, then a trailing escape island: gnulib keeps an empty ''
	 * in front, invisible when the name starts with the quote. */
	static const struct quoted cases[] = {
		{ "a'b\x01", "'''a'\\''b'$'\\001'" }, { "it's \x01", "'''it'\\''s '$'\\001'" },
		{ "a'b\t", "'''a'\\''b'$'\\t'" },     { "'b\x01", "''\\''b'$'\\001'" },
		{ "'x\ty", "''\\''x'$'\\t''y'" },
	};
	setlocale(LC_ALL, "C");
	CHECK_ALL(q, cases);
}

Test(quote, quote_with_shell_specials_stays_single_quoted)
{
	cr_assert_str_eq(q("a'b c$"), "'a'\\''b c$'");
	cr_assert_str_eq(q("'"), "\"'\"");
}

static const char *ql(const char *s)
{
	static struct strbuf sb;
	sb_reset(&sb);
	quote_locale_append(&sb, s, strlen(s));
	return sb_str(&sb);
}

/* gnulib's quote() as GNU rm 9.1 prints an --interactive value. */
Test(quote, locale_quotes_in_c_locale)
{
	static const struct quoted cases[] = {
		{ "foo", "'foo'" },
		{ "it's", "'it\\'s'" },
		{ "b\\s", "'b\\\\s'" },
		{ "t\tab\x01", "'t\\tab\\001'" },
		{ "caf\xc3\xa9", "'caf\\303\\251'" },
	};
	setlocale(LC_ALL, "C");
	CHECK_ALL(ql, cases);
}

#define LQ "\xe2\x80\x98" /* the left quote, U+2018 */
#define RQ "\xe2\x80\x99" /* the right quote, U+2019 */
Test(quote, locale_quotes_in_utf8)
{
	static const struct quoted cases[] = {
		{ "foo", LQ "foo" RQ },
		{ "it's", LQ "it's" RQ },
		{ "q" RQ "r", LQ "q\\" RQ "r" RQ },
		{ "caf\xc3\xa9\xff", LQ "caf\xc3\xa9\\377" RQ },
		{ "\xc2\x85\xe2\x80", LQ "\\302\\205\\342\\200" RQ },
	};
	if (!setlocale(LC_ALL, "C.UTF-8"))
		cr_skip_test("no C.UTF-8 locale");
	CHECK_ALL(ql, cases);
	setlocale(LC_ALL, "C");
}
