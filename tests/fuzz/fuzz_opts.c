/*
 * fuzz_opts.c - libFuzzer target for the option value parsers: sizes,
 * durations, bounded integers. Checks each contract: the return codes,
 * and that an accepted duration is finite and positive.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	unsigned long lo, hi, ul;
	uint64_t bytes;
	double sec;
	int err;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	err = wl_parse_size(s, &bytes);
	if (err && err != -EINVAL && err != -ERANGE)
		abort();

	err = wl_parse_duration(s, &sec);
	if (err && err != -EINVAL && err != -ERANGE)
		abort();
	if (!err && !(isfinite(sec) && sec > 0)) {
		fprintf(stderr, "duration '%s' -> %g\n", s, sec);
		abort();
	}

	/* bounds from the input's length, so both ends get exercised */
	lo = size % 7;
	hi = size % 2 ? 1000 : ~0ul;
	err = wl_parse_ulong(s, lo, hi, &ul);
	if (err && err != -EINVAL && err != -ERANGE)
		abort();
	if (!err && (ul < lo || ul > hi))
		abort();
	free(s);
	return 0;
}
