// SPDX-License-Identifier: GPL-3.0-or-later
#include <criterion/criterion.h>
#include "lib/units.h"

static uint64_t rate(const char *s)
{
	uint64_t v = 12345;
	cr_assert(units_parse_rate(s, &v), "'%s' should parse", s);
	return v;
}

static void bad(const char *s)
{
	uint64_t v = 12345;
	cr_assert_not(units_parse_rate(s, &v), "'%s' should not parse", s);
	cr_assert_eq(v, 12345, "a failed parse leaves the value alone");
}

Test(units, plain_bytes)
{
	cr_assert_eq(rate("1"), 1);
	cr_assert_eq(rate("1048576"), 1048576);
	cr_assert_eq(rate("512B"), 512);
	cr_assert_eq(rate("512/s"), 512);
}

Test(units, suffixes_are_powers_of_1024)
{
	cr_assert_eq(rate("4K"), 4096);
	cr_assert_eq(rate("4k"), 4096);
	cr_assert_eq(rate("256M"), 256ull << 20);
	cr_assert_eq(rate("256MiB"), 256ull << 20);
	cr_assert_eq(rate("256MB"), 256ull << 20);
	cr_assert_eq(rate("256M/s"), 256ull << 20);
	cr_assert_eq(rate("256MiB/s"), 256ull << 20);
	cr_assert_eq(rate("2g"), 2ull << 30);
	cr_assert_eq(rate("1T"), 1ull << 40);
}

Test(units, zero_garbage_and_absurd_are_refused)
{
	bad("");
	bad("0");
	bad("0M");
	bad("-1");
	bad("+1");
	bad(" 1");
	bad("1 ");
	bad("12Q");
	bad("M");
	bad("1.5G");
	bad("1MiB/h");
	bad("1Mi");
	bad("1/");
	bad("2T");
	bad("1025G");
	bad("99999T");
	bad("18446744073709551616");
	bad("99999999999999999999999999999K");
}

Test(units, format)
{
	char buf[32];
	cr_assert_str_eq(units_format_bytes(0, buf, sizeof buf), "0 B");
	cr_assert_str_eq(units_format_bytes(1023, buf, sizeof buf), "1023 B");
	cr_assert_str_eq(units_format_bytes(1536, buf, sizeof buf), "1.5 KiB");
	cr_assert_str_eq(units_format_bytes(3435973837ull, buf, sizeof buf), "3.2 GiB");
	cr_assert_str_eq(units_format_bytes(256ull << 20, buf, sizeof buf), "256.0 MiB");
}
