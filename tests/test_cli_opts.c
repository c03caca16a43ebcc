/*
 * test_cli_opts.c - the option value parsers every command shares.
 */
#include <errno.h>
#include <stdint.h>

#include "cli.h"
#include "harness.h"

FR_TEST(cli_size, accepts_iec_suffixes_in_any_case)
{
	static const struct { const char *in; uint64_t want; } cases[] = {
		{ "0", 0 }, { "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 },
		{ "4KiB", 4096 }, { "4kb", 4096 }, { "256M", 256ull << 20 },
		{ "1.5G", 3ull << 29 }, { "2T", 2ull << 40 }, { "7b", 7 },
		{ "0.5k", 512 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;

		cr_assert_eq(wl_parse_size(cases[i].in, &v), 0, "%s", cases[i].in);
		cr_assert_eq(v, cases[i].want, "%s -> %llu", cases[i].in,
			     (unsigned long long)v);
	}
}

FR_TEST(cli_size, rejects_malformed_and_huge_values)
{
	static const char *const bad[] = {
		"", "k", "-1", "+4", " 4", "4 k", "4x", "0x10", "inf", "nan",
		"1e3", "4kk", "1..2",
	};
	uint64_t v = 99;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(wl_parse_size(bad[i], &v), -EINVAL, "'%s'", bad[i]);
	cr_assert_eq(wl_parse_size("16777216T", &v), -ERANGE);
	cr_assert_eq(v, 99, "a refused value must not be stored");
}

FR_TEST(cli_duration, converts_units_to_seconds)
{
	static const struct { const char *in; double want; } cases[] = {
		{ "30", 30 }, { "30s", 30 }, { "250ms", 0.25 }, { "5m", 300 },
		{ "2min", 120 }, { "1h", 3600 }, { "0.5", 0.5 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v = -1;

		cr_assert_eq(wl_parse_duration(cases[i].in, &v), 0, "%s",
			     cases[i].in);
		cr_assert_float_eq(v, cases[i].want, 1e-9, "%s", cases[i].in);
	}
}

FR_TEST(cli_duration, rejects_zero_negative_and_unknown_units)
{
	static const char *const bad[] = { "0", "0s", "-5", "5d", "s", "" };
	double v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(wl_parse_duration(bad[i], &v), -EINVAL, "'%s'",
			     bad[i]);
}

FR_TEST(cli_ulong, enforces_bounds_and_digits)
{
	unsigned long v = 0;

	cr_assert_eq(wl_parse_ulong("8", 1, 64, &v), 0);
	cr_assert_eq(v, 8);
	cr_assert_eq(wl_parse_ulong("0", 1, 64, &v), -ERANGE);
	cr_assert_eq(wl_parse_ulong("65", 1, 64, &v), -ERANGE);
	cr_assert_eq(wl_parse_ulong("99999999999999999999999", 0, ~0ul, &v),
		     -ERANGE);
	cr_assert_eq(wl_parse_ulong("-1", 0, 64, &v), -EINVAL);
	cr_assert_eq(wl_parse_ulong("8x", 0, 64, &v), -EINVAL);
	cr_assert_eq(wl_parse_ulong("", 0, 64, &v), -EINVAL);
	cr_assert_eq(v, 8);
}
