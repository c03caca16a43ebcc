/*
 * keys.c - the key engine (keys.h): a value checked and stored as its row
 * says, and what a row accepts in words, for the refusal and for help.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "keys.h"
#include "workloads.h"

const struct wl_key_value wl_demand_values[] = {
	{ "train", WL_DEMAND_TRAIN, ~0u },
	{ "tuned", WL_DEMAND_TRAIN, ~0u },      /* train's older name */
	{ "mlperf", WL_DEMAND_MLPERF, ~0u },
	{ "ceiling", WL_DEMAND_CEILING, ~0u }, { 0 } };

const struct wl_key *wl_key_find(const struct wl_key *t, size_t n,
				 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

bool wl_key_value_find(const struct wl_key *k, unsigned ctx,
		       const char *name, int *v)
{
	for (const struct wl_key_value *x = k->values; x && x->name; x++)
		if (((x->uses >> ctx) & 1) && !strcmp(x->name, name)) {
			*v = x->v;
			return true;
		}
	return false;
}

static bool in_range(const struct wl_key *k, double v)
{
	if (k->gt ? !(v > k->lo) : !(v >= k->lo))
		return false;
	return !(k->hi > 0) || v <= k->hi;
}

/* A whole number V into DST of SIZE bytes (4 or 8). */
static int store_uint(void *dst, size_t size, uint64_t v)
{
	if (size == sizeof(uint64_t)) {
		*(uint64_t *)dst = v;
		return 0;
	}
	assert(size == sizeof(uint32_t));
	if (v > UINT32_MAX)
		return -ERANGE;
	*(uint32_t *)dst = (uint32_t)v;
	return 0;
}

/* A number of K's type: a duration (0 with any unit where the row takes
 * 0), a decimal, a count. */
static int take_real(const struct wl_key *k, const char *s, double *v)
{
	const char *end;
	int err = 0;

	if (k->type == WL_K_TIME) {
		if (wl_parse_duration(s, v)) {
			if (k->gt || k->lo > 0 || wl_parse_warmup(s, v))
				return -EINVAL;
			*v = 0;         /* wl_parse_warmup's zero */
		}
	} else if (k->type == WL_K_BYTES) {
		if (wl_parse_bytes(s, v))
			return -EINVAL;
	} else if (k->type == WL_K_REAL) {
		if (wl_parse_number(s, v, &end) || *end)
			return -EINVAL;
	} else {
		err = wl_parse_params(s, v);
	}
	return err ? err : in_range(k, *v) ? 0 : -ERANGE;
}

/* A comma-separated list of K's values into the bools at DST. */
static int take_enum_list(const struct wl_key *k, unsigned ctx,
			  const char *s, bool *on)
{
	int v, max = 0;

	for (const struct wl_key_value *x = k->values; x->name; x++)
		max = x->v > max ? x->v : max;
	memset(on, 0, (size_t)(max + 1) * sizeof(on[0]));
	do {
		const size_t len = strcspn(s, ",");
		char item[64];

		if (!len || len >= sizeof(item))
			return -EINVAL;
		memcpy(item, s, len);
		item[len] = '\0';
		if (!wl_key_value_find(k, ctx, item, &v))
			return -EINVAL;
		on[v] = true;
		s += len;
	} while (*s++ == ',');
	return 0;
}

/* WL_K_REALS and WL_K_DIMS: n numbers, each in range. */
static int take_many(const struct wl_key *k, const char *s, void *dst)
{
	uint64_t u[8];
	double d[8];
	unsigned n = k->n;

	assert(k->n <= 8);
	if (k->type == WL_K_REALS ? wl_parse_reals(s, d, n) :
	    wl_parse_dims(s, u, k->n, &n) ||
	    (k->exact ? n != k->n : n != 1 && n != k->n))
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (k->type == WL_K_DIMS)
			d[i] = (double)u[i];
		if (!in_range(k, d[i]) ||
		    (k->type == WL_K_REALS && k->exact && i &&
		     d[i] < d[i - 1]))
			return -ERANGE;
	}
	for (unsigned i = 0; i < k->n; i++) {
		if (k->type == WL_K_REALS)
			((double *)dst)[i] = d[i];
		else
			((uint64_t *)dst)[i] = u[n == 1 ? 0 : i];
	}
	return 0;
}

int wl_key_take(const struct wl_key *k, unsigned ctx, const char *arg,
		void *dst, size_t size)
{
	const bool list = (k->lists >> ctx) & 1;
	struct wl_key_counts *c = dst;
	uint64_t u;
	double d;
	int v, err;

	if (k->type != WL_K_FLAG && (!arg || !*arg))
		return -EINVAL;
	switch (k->type) {
	case WL_K_FLAG:
		*(bool *)dst = true;
		return 0;
	case WL_K_TEXT:
		*(const char **)dst = arg;
		return 0;
	case WL_K_UINT:
		if (list)
			return wl_parse_count_list(arg, (unsigned long)k->lo,
						   (unsigned long)k->hi, c->v,
						   WL_KEY_COUNTS_MAX, &c->n);
		if (wl_parse_u64(arg, &u))
			return -EINVAL;
		return in_range(k, (double)u) ? store_uint(dst, size, u) :
		       -ERANGE;
	case WL_K_SIZE:
		if ((err = wl_parse_size(arg, &u)))
			return err;
		if (!in_range(k, (double)u) || (k->step && u % k->step))
			return -ERANGE;
		return store_uint(dst, size, u);
	case WL_K_BYTES:
	case WL_K_TIME:
	case WL_K_REAL:
	case WL_K_COUNT:
		if ((err = take_real(k, arg, &d)))
			return err;
		*(double *)dst = d;
		return 0;
	case WL_K_ENUM:
		if (list)
			return take_enum_list(k, ctx, arg, dst);
		if (!wl_key_value_find(k, ctx, arg, &v))
			return -EINVAL;
		*(int *)dst = v;
		return 0;
	case WL_K_BOOL:
		return wl_parse_bool(arg, dst);
	case WL_K_REALS:
	case WL_K_DIMS:
		return take_many(k, arg, dst);
	case WL_K_CUSTOM:
		return k->parse(k, ctx, list, arg, dst);
	}
	return -EINVAL;
}

int wl_key_percent(const struct wl_key *k, unsigned ctx, bool list,
		   const char *arg, void *dst)
{
	const char *end;
	double v;

	(void)ctx, (void)list;
	if (wl_parse_number(arg, &v, &end) || (*end && strcmp(end, "%")) ||
	    !(k->gt ? v > k->lo : v >= k->lo) || !(v < k->hi))
		return -EINVAL;
	*(double *)dst = v / 100;
	return 0;
}

int wl_key_warmup(const struct wl_key *k, unsigned ctx, bool list,
		  const char *arg, void *dst)
{
	(void)k, (void)ctx, (void)list;
	return wl_parse_warmup(arg, dst);
}

/* A plain decimal number in K's range into *V. */
static int real_in(const struct wl_key *k, const char *s, double *v)
{
	const char *end;

	return wl_parse_number(s, v, &end) || *end || !in_range(k, *v) ?
	       -EINVAL : 0;
}

int wl_key_named_real(const struct wl_key *k, unsigned ctx, bool list,
		      const char *arg, void *dst)
{
	struct wl_key_named *p = dst;
	const char *eq = strrchr(arg, '=');
	double v;

	(void)ctx;
	if (!list)
		return real_in(k, arg, dst);
	if (!eq || eq == arg || real_in(k, eq + 1, &v) ||
	    p->n == WL_KEY_NAMED_MAX)
		return -EINVAL;
	p->name[p->n] = arg;
	p->v[p->n++] = v;
	return 0;
}

/* V as K's type writes it: 64M, 30s, 1.5. */
static const char *num_text(const struct wl_key *k, double v, char *buf,
			    size_t len)
{
	static const char units[] = "KMGT";
	const unsigned long long u = (unsigned long long)v;
	const bool size = k->type == WL_K_SIZE || k->type == WL_K_BYTES;
	int i = 3;

	if (k->type == WL_K_TIME) {
		snprintf(buf, len, "%gs", v);
		return buf;
	}
	while (size && u && i >= 0 && u % (1ull << (10 * (i + 1))))
		i--;
	if (!size || !u || i < 0 || v != (double)u)
		snprintf(buf, len, "%.10g", v);
	else
		snprintf(buf, len, "%llu%c", u >> (10 * (i + 1)), units[i]);
	return buf;
}

/* K's values for CTX: "a, b or c" (LIST: "a, b, c"). */
static void values_text(const struct wl_key *k, unsigned ctx, bool list,
			char *buf, size_t len)
{
	size_t n = 0, i = 0, used = 0;

	for (const struct wl_key_value *x = k->values; x->name; x++)
		n += (x->uses >> ctx) & 1;
	buf[0] = '\0';
	for (const struct wl_key_value *x = k->values; x->name; x++) {
		if (!((x->uses >> ctx) & 1))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%s", i ? (i + 1 == n && !list ?
					 " or " : ", ") : "", x->name);
		i++;
	}
}

/* K's range: "1..4096", "> 0, at most 1", ">= 1". */
static void range_text(const struct wl_key *k, char *buf, size_t len)
{
	char lo[32], hi[32];

	num_text(k, k->lo, lo, sizeof(lo));
	num_text(k, k->hi, hi, sizeof(hi));
	if (k->hi > 0 && !k->gt)
		snprintf(buf, len, "%s..%s", lo, hi);
	else if (k->hi > 0)
		snprintf(buf, len, "> %s, at most %s", lo, hi);
	else
		snprintf(buf, len, "%s %s", k->gt ? ">" : ">=", lo);
}

const char *wl_key_want(const struct wl_key *k, unsigned ctx, char *buf,
			size_t len)
{
	const bool list = (k->lists >> ctx) & 1;
	const char *lst = list ? "a comma-separated list of " : "";
	char r[96], v[256];

	range_text(k, r, sizeof(r));
	if (k->values) {
		values_text(k, ctx, list, v, sizeof(v));
		snprintf(buf, len, "%s%s", lst, v);
	} else if (k->names) {
		k->names(v, sizeof(v));
		snprintf(buf, len, "one of %s", v);
	} else if (k->want) {
		snprintf(buf, len, "%s", k->want);
	} else if (k->type == WL_K_SIZE || k->type == WL_K_BYTES) {
		snprintf(buf, len, "a size (e.g. 4K, 64M, 1.5G), %s%s", r,
			 k->step ? ", a multiple of 4K" : "");
	} else if (k->type == WL_K_TIME) {
		snprintf(buf, len, "a duration (e.g. 30s, 5m), %s", r);
	} else if (k->type == WL_K_COUNT) {
		snprintf(buf, len, "a count such as 7B, 350M or 1281167");
	} else if (k->type == WL_K_TEXT) {
		snprintf(buf, len, "a value");
	} else if (k->type == WL_K_BOOL) {
		snprintf(buf, len, "yes or no");
	} else if (k->type == WL_K_REALS || k->type == WL_K_DIMS) {
		snprintf(buf, len, "%s%s, each %s", k->type == WL_K_DIMS &&
			 !k->exact ? "N or " : "", k->arg, r);
	} else {
		snprintf(buf, len, "%s%s", list ? "a comma-separated list of "
			 "counts " : "", r);
	}
	return buf;
}

const char *wl_key_refusal(const struct wl_key *k, unsigned ctx,
			   const char *arg, char *buf, size_t len)
{
	char want[512];

	snprintf(buf, len, "wants %s, not '%.40s%s'", wl_key_want(k, ctx,
		 want, sizeof(want)), arg, strlen(arg) > 40 ? "..." : "");
	return buf;
}

bool wl_key_default_text(const struct wl_key *k, unsigned ctx, char *buf,
			 size_t len)
{
	for (size_t i = 0; i < 3 && k->defs[i].uses; i++) {
		const struct wl_key_default *d = &k->defs[i];
		const char *at = d->text ? strstr(d->text, "%s") : NULL;
		char num[32];

		if (!((d->uses >> ctx) & 1))
			continue;
		num_text(k, d->def, num, sizeof(num));
		if (!d->text)
			snprintf(buf, len, "%s", num);
		else if (at)            /* the number in the text */
			snprintf(buf, len, "%.*s%s%s", (int)(at - d->text),
				 d->text, num, at + 2);
		else
			snprintf(buf, len, "%s", d->text);
		return true;
	}
	return false;
}

bool wl_key_default_store(const struct wl_key *k, unsigned ctx, void *dst,
			  size_t size)
{
	for (size_t i = 0; i < 3 && k->defs[i].uses; i++) {
		const struct wl_key_default *d = &k->defs[i];
		int v;

		if (!((d->uses >> ctx) & 1) || ((k->lists >> ctx) & 1))
			continue;
		switch (k->type) {
		case WL_K_UINT:
		case WL_K_SIZE:
			return !d->text && !store_uint(dst, size,
						       (uint64_t)d->def);
		case WL_K_BYTES:
		case WL_K_TIME:
		case WL_K_REAL:
		case WL_K_COUNT:
			if (d->text)
				return false;
			*(double *)dst = d->def;
			return true;
		case WL_K_ENUM:
			if (!d->text || !wl_key_value_find(k, ctx, d->text, &v))
				return false;
			*(int *)dst = v;
			return true;
		default:
			return false;
		}
	}
	return false;
}
