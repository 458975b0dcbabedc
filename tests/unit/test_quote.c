#include <criterion/criterion.h>
#include <locale.h>
#include <string.h>
#include "quote.h"

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
