/*
 * keyvals.c - the value parsers of the key engine (keys.h): sizes,
 * durations, counts, numbers, lists, dimensions, yes/no.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keys.h"

/* Split "12.5Gi" into a finite non-negative number and its suffix. */
static int split_number(const char *s, double *val, const char **suffix)
{
	char *end;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*val = strtod(s, &end);
	if (end == s || errno || !isfinite(*val) || *val < 0)
		return -EINVAL;
	/* strtod takes hex and "inf"/"nan": only plain decimals here */
	for (const char *p = s; p < end; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return -EINVAL;
	*suffix = end;
	return 0;
}

int wl_parse_bytes(const char *s, double *out)
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
	int ret = split_number(s, &v, &suffix);

	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(suffix, units[i].name))
			continue;
		*out = ldexp(v, units[i].shift);
		return 0;
	}
	return -EINVAL;
}

int wl_parse_size(const char *s, uint64_t *out)
{
	double v;
	int ret = wl_parse_bytes(s, &v);

	if (ret)
		return ret;
	if (v >= 18446744073709551616.0)
		return -ERANGE;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

static const struct { const char *name; double mult; } time_units[] = {
	{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "m", 60 }, { "min", 60 },
	{ "h", 3600 },
};
#define NTIME_UNITS (sizeof(time_units) / sizeof(time_units[0]))

int wl_parse_duration(const char *s, double *sec)
{
	const char *suffix;
	double v;
	int ret = split_number(s, &v, &suffix);

	if (ret)
		return ret;
	for (size_t i = 0; i < NTIME_UNITS; i++) {
		if (strcasecmp(suffix, time_units[i].name))
			continue;
		if (v * time_units[i].mult <= 0)
			return -EINVAL;
		*sec = v * time_units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int wl_parse_warmup(const char *s, double *out)
{
	const char *p = s;
	bool digit = false;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	if (!wl_parse_duration(s, out))
		return 0;
	/* a zero: digits '0' and at most one '.', then a unit */
	for (bool dot = false; *p == '0' || (*p == '.' && !dot); p++) {
		if (*p == '.')
			dot = true;
		else
			digit = true;
	}
	for (size_t i = 0; digit && i < NTIME_UNITS; i++)
		if (!strcasecmp(p, time_units[i].name)) {
			*out = -1;
			return 0;
		}
	return -EINVAL;
}

int wl_parse_ulong(const char *s, unsigned long lo, unsigned long hi,
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

int wl_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

int wl_parse_params(const char *s, double *out)
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

static int cmp_unsigned(const void *a, const void *b)
{
	const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

int wl_parse_count_list(const char *s, unsigned long lo, unsigned long hi,
			unsigned *out, unsigned max, unsigned *n)
{
	char buf[512], *save = NULL, *tok;
	unsigned k = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long v;

		if (k >= max || wl_parse_ulong(tok, lo, hi, &v))
			return -EINVAL;
		out[k++] = (unsigned)v;
	}
	if (!k)
		return -EINVAL;
	qsort(out, k, sizeof(out[0]), cmp_unsigned);
	*n = 0;
	for (unsigned i = 0; i < k; i++)
		if (!*n || out[*n - 1] != out[i])
			out[(*n)++] = out[i];
	return 0;
}

/* A plain decimal at S (exponent allowed; no sign, hex, inf or nan). */
static int plain(const char *s, double *out, const char **end)
{
	const char *t = s;
	char *e;

	if (!isdigit((unsigned char)*s) &&
	    !(*s == '.' && isdigit((unsigned char)s[1])))
		return -EINVAL;
	while (*t && strchr("0123456789.eE+-", *t))
		t++;
	errno = 0;
	*out = strtod(s, &e);
	if (errno || e != t || !isfinite(*out))
		return -EINVAL;
	*end = e;
	return 0;
}

int wl_parse_number(const char *s, double *out, const char **end)
{
	double d;

	if (!s || plain(s, out, end))
		return -EINVAL;
	if (**end != '/')
		return 0;
	if (plain(*end + 1, &d, end) || d == 0)
		return -EINVAL;
	*out /= d;
	return isfinite(*out) ? 0 : -EINVAL;
}

int wl_parse_reals(const char *s, double *out, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const char *end;

		while (isspace((unsigned char)*s))
			s++;
		if (wl_parse_number(s, &out[i], &end))
			return -EINVAL;
		s = end;
		while (isspace((unsigned char)*s))
			s++;
		if (i + 1 < n && *s == ',')
			s++;
	}
	return *s ? -EINVAL : 0;
}

int wl_parse_dims(const char *s, uint64_t *out, unsigned max, unsigned *n)
{
	*n = 0;
	for (;;) {
		uint64_t v = 0;
		const char *d = s;

		for (; *s >= '0' && *s <= '9'; s++) {
			if (v > UINT32_MAX)
				return -EINVAL;
			v = v * 10 + (uint64_t)(*s - '0');
		}
		if (s == d || *n >= max)
			return -EINVAL;
		out[(*n)++] = v;
		if (!*s)
			return 0;
		if (*s != 'x' && *s != 'X')
			return -EINVAL;
		s++;
	}
}

int wl_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}
