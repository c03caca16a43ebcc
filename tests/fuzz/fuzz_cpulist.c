/*
 * fuzz_cpulist.c - libFuzzer target for the kernel CPU-list parser
 * (stg_cpulist_parse), checked against a plain reference reading of the
 * same syntax; an accepted list must survive a format/parse round trip.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Number at *p (digits only), saturating at ULLONG_MAX-ish; advances *p. */
static unsigned long long ref_num(const char **p)
{
	unsigned long long v = 0;

	while (isdigit((unsigned char)**p)) {
		unsigned d = (unsigned)(**p - '0');

		v = v > (~0ull - d) / 10 ? ~0ull : v * 10 + d;
		(*p)++;
	}
	return v;
}

/*
 * Reference: "a", "a-b", "a-b:s" separated by commas, whitespace around
 * the list. 0 / -EINVAL / -ERANGE like stg_cpulist_parse.
 */
static int ref_parse(const char *s, cpu_set_t *set)
{
	const char *p = s;

	CPU_ZERO(set);
	while (isspace((unsigned char)*p))
		p++;
	while (*p && !isspace((unsigned char)*p)) {
		unsigned long long lo, hi, stride = 1;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = hi = ref_num(&p);
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = ref_num(&p);
			if (*p == ':') {
				p++;
				if (!isdigit((unsigned char)*p))
					return -EINVAL;
				stride = ref_num(&p);
				if (!stride)
					return -EINVAL;
			}
		}
		if (lo == ~0ull || hi == ~0ull)
			return -ERANGE;
		if (hi < lo)
			return -EINVAL;
		if (hi >= CPU_SETSIZE)
			return -ERANGE;
		for (unsigned long long c = lo; c <= hi; c += stride) {
			CPU_SET(c, set);
			if (stride > hi - c)
				break;
		}
		if (*p == ',') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
		} else if (*p && !isspace((unsigned char)*p)) {
			return -EINVAL;
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -EINVAL : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), text[8192];
	cpu_set_t a, b, r;
	int err, ref, n;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	err = stg_cpulist_parse(s, &a);
	ref = ref_parse(s, &r);
	/* the two may disagree on which error, never on accept/reject */
	if (!err != !ref) {
		fprintf(stderr, "'%s': parse %d, reference %d\n", s, err, ref);
		abort();
	}
	if (!err) {
		if (!CPU_EQUAL(&a, &r)) {
			fprintf(stderr, "'%s': sets differ\n", s);
			abort();
		}
		n = stg_cpulist_format(&a, text, sizeof(text));
		if (n < 0 || stg_cpulist_parse(text, &b) || !CPU_EQUAL(&a, &b))
			abort();
	} else if (err != -EINVAL && err != -ERANGE) {
		abort();
	}

	free(s);
	return 0;
}
