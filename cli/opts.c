/*
 * opts.c - option value parsers shared by all commands.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* Split "12.5Gi" into a finite non-negative number and its suffix. */
static int parse_number(const char *s, double *val, const char **suffix)
{
	char *end;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*val = strtod(s, &end);
	if (end == s || errno || !isfinite(*val) || *val < 0)
		return -EINVAL;
	/* strtod takes hex and "inf"/"nan": only plain decimals are sizes */
	for (const char *p = s; p < end; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return -EINVAL;
	*suffix = end;
	return 0;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *name; int shift; } units[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};
	const char *suffix;
	double v;
	int ret = parse_number(s, &v, &suffix);

	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(suffix, units[i].name))
			continue;
		v = ldexp(v, units[i].shift);
		if (v >= 18446744073709551616.0)
			return -ERANGE;
		*out = (uint64_t)(v + 0.5);
		return 0;
	}
	return -EINVAL;
}

int cli_parse_duration(const char *s, double *sec)
{
	static const struct { const char *name; double mult; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "m", 60 },
		{ "min", 60 }, { "h", 3600 },
	};
	const char *suffix;
	double v;
	int ret = parse_number(s, &v, &suffix);

	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(suffix, units[i].name))
			continue;
		if (v * units[i].mult <= 0)
			return -EINVAL;
		*sec = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int cli_parse_ulong(const char *s, unsigned long lo, unsigned long hi,
		    unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "feedrate %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'feedrate %s --help'.\n", cmd);
	return FR_EXIT_USAGE;
}

int cli_parse_params(const char *s, double *out)
{
	static const struct { const char *name; double mult; } units[] = {
		{ "", 1 }, { "k", 1e3 }, { "m", 1e6 }, { "b", 1e9 },
		{ "g", 1e9 }, { "t", 1e12 },
	};
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v) || end == s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].name))
			continue;
		v *= units[i].mult;
		if (!(v >= 1) || v > 1e16)
			return -ERANGE;
		*out = v;
		return 0;
	}
	return -EINVAL;
}
