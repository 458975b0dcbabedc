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

/* Outputs observed from GNU rm 9.1 (gnulib quotearg), byte for byte. */
Test(quote, quote_next_to_escape_island)
{
	setlocale(LC_ALL, "C");
	cr_assert_str_eq(q("\x01'"), "''$'\\001'\\'''");
	cr_assert_str_eq(q("a\x01'b"), "'a'$'\\001'\\''b'");
	cr_assert_str_eq(q("a\tb'"), "'a'$'\\t''b'\\'''");
	cr_assert_str_eq(q("a'b\x01"
			   "c'd"),
			 "'a'\\''b'$'\\001''c'\\''d'");
}

Test(quote, gnulib_restart_prefix)
{
	setlocale(LC_ALL, "C");
	/* a quote, then a trailing escape island: gnulib keeps an empty '' in front */
	cr_assert_str_eq(q("a'b\x01"), "'''a'\\''b'$'\\001'");
	cr_assert_str_eq(q("it's \x01"), "'''it'\\''s '$'\\001'");
	cr_assert_str_eq(q("a'b\t"), "'''a'\\''b'$'\\t'");
	/* ... invisible when the name starts with the quote */
	cr_assert_str_eq(q("'b\x01"), "''\\''b'$'\\001'");
	cr_assert_str_eq(q("'x\ty"), "''\\''x'$'\\t''y'");
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
	setlocale(LC_ALL, "C");
	cr_assert_str_eq(ql("foo"), "'foo'");
	cr_assert_str_eq(ql("it's"), "'it\\'s'");
	cr_assert_str_eq(ql("b\\s"), "'b\\\\s'");
	cr_assert_str_eq(ql("t\tab\x01"), "'t\\tab\\001'");
	cr_assert_str_eq(ql("caf\xc3\xa9"), "'caf\\303\\251'");
}

Test(quote, locale_quotes_in_utf8)
{
	if (!setlocale(LC_ALL, "C.UTF-8"))
		cr_skip_test("no C.UTF-8 locale");
	cr_assert_str_eq(ql("foo"), "\xe2\x80\x98"
				    "foo\xe2\x80\x99");
	cr_assert_str_eq(ql("it's"), "\xe2\x80\x98it's\xe2\x80\x99");
	cr_assert_str_eq(ql("q\xe2\x80\x99r"), "\xe2\x80\x98q\\\xe2\x80\x99r\xe2\x80\x99");
	cr_assert_str_eq(ql("caf\xc3\xa9\xff"), "\xe2\x80\x98"
						"caf\xc3\xa9\\377\xe2\x80\x99");
	cr_assert_str_eq(ql("\xc2\x85\xe2\x80"), "\xe2\x80\x98\\302\\205\\342\\200\xe2\x80\x99");
	setlocale(LC_ALL, "C");
}
