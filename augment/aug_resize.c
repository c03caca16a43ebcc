/*
 * aug_resize.c - separable bilinear resize with antialiasing, in fixed
 * point with precomputed coefficient tables (cached per context), and the
 * portable kernels.
 *
 * The filter is PIL's (and torchvision's antialias=True): a triangle whose
 * support is max(scale, 1) input pixels, so shrinking averages every input
 * pixel under an output pixel instead of sampling two. Weights are
 * normalized per output and quantized to Q14 with the rounding error put
 * on the largest weight, so they sum to exactly 1.0 and a flat area stays
 * flat. The horizontal pass writes int16 with 7 fractional bits, the
 * vertical pass rounds to 8 bits: the only visible rounding is the last
 * one, so the result is within 1 of the exact (double) filter.
 *
 * DESIGN: a resizer belongs to the one thread that owns its context; the
 * coefficient cache and scratch are not shared.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aug_internal.h"

#define AXIS_CACHE 32

struct cache_entry {
	bool used;
	uint64_t stamp;
	struct aug_axis_key key;
	struct aug_axis ax;
};

struct aug_resizer {
	const struct aug_kernels *k;
	uint64_t clock;
	struct cache_entry cache[AXIS_CACHE];
	int16_t *mid;             /* horizontal pass output */
	size_t mid_cap;
	uint8_t *pad;             /* zero-padded copy of a too-small source */
	size_t pad_cap;
};

void aug_axis_free(struct aug_axis *ax)
{
	free(ax->first);
	free(ax->k);
	free(ax->w);
	memset(ax, 0, sizeof(*ax));
}

static double tri(double x)
{
	x = fabs(x);
	return x < 1.0 ? 1.0 - x : 0.0;
}

/* Window of output i: inputs [*lo, *hi) under the filter, clamped. */
static double axis_window(const struct aug_axis_key *key, double scale,
			  double fs, uint32_t i, int32_t *lo, int32_t *hi)
{
	const double support = fs;          /* triangle support 1 * fs */
	const double c = key->box0 + (key->out_first + i + 0.5) * scale;
	int32_t a = (int32_t)floor(c - support + 0.5);
	int32_t b = (int32_t)floor(c + support + 0.5);

	*lo = a < key->clamp_lo ? key->clamp_lo : a;
	*hi = b > key->clamp_hi ? key->clamp_hi : b;
	return c;
}

int aug_axis_compute(struct aug_axis *ax, const struct aug_axis_key *key)
{
	const double scale = key->boxw / key->out_total;
	const double fs = scale > 1.0 ? scale : 1.0, inv_fs = 1.0 / fs;
	const int32_t span = key->clamp_hi - key->clamp_lo;
	uint32_t maxn = 1, taps;

	if (key->out_n == 0 || key->out_total == 0 || span <= 0 ||
	    !(key->boxw > 0) || key->tap_mult == 0 ||
	    key->out_first + key->out_n > key->out_total)
		return -EINVAL;
	/*
	 * Taps = the widest window really met, not PIL's worst case
	 * 2 * ceil(support) + 1: a 1.27x shrink needs 3 taps, not 5, which
	 * after padding is one vector step instead of two.
	 */
	for (uint32_t i = 0; i < key->out_n; i++) {
		int32_t lo, hi;

		axis_window(key, scale, fs, i, &lo, &hi);
		if (hi - lo > (int32_t)maxn)
			maxn = (uint32_t)(hi - lo);
	}
	taps = (maxn + key->tap_mult - 1) / key->tap_mult * key->tap_mult;
	if (ax->cap_out < key->out_n) {
		int32_t *f = realloc(ax->first, sizeof(*f) * key->out_n);

		if (!f)
			return -ENOMEM;
		ax->first = f;
		ax->cap_out = key->out_n;
	}
	if (ax->cap_k < (size_t)key->out_n * taps) {
		int16_t *k = realloc(ax->k, sizeof(*k) * key->out_n * taps);

		if (!k)
			return -ENOMEM;
		ax->k = k;
		ax->cap_k = (size_t)key->out_n * taps;
	}
	if (ax->cap_w < maxn) {
		double *w = realloc(ax->w, sizeof(*w) * maxn);

		if (!w)
			return -ENOMEM;
		ax->w = w;
		ax->cap_w = maxn;
	}
	ax->out_n = key->out_n;
	ax->taps = taps;
	ax->lo = INT32_MAX;
	ax->hi = INT32_MIN;
	ax->read_hi = INT32_MIN;
	memset(ax->k, 0, sizeof(*ax->k) * key->out_n * taps);

	for (uint32_t i = 0; i < key->out_n; i++) {
		int16_t *k = ax->k + (size_t)i * taps;
		double ww = 0.0, center;
		int32_t lo, hi, first, off = 0, sum = 0, big = 0, n;

		center = axis_window(key, scale, fs, i, &lo, &hi);
		for (int32_t x = lo; x < hi; x++)
			ww += ax->w[x - lo] = tri((x - center + 0.5) * inv_fs);
		if (hi <= lo || ww <= 0.0) {
			/* nothing under the filter: nearest clamped pixel */
			lo = (int32_t)floor(center);
			if (lo < key->clamp_lo)
				lo = key->clamp_lo;
			if (lo >= key->clamp_hi)
				lo = key->clamp_hi - 1;
			hi = lo + 1;
			ax->w[0] = ww = 1.0;
		}
		n = hi - lo;
		/* keep reads inside [clamp_lo, clamp_hi) when taps allow */
		first = lo;
		if (first + (int32_t)taps > key->clamp_hi &&
		    key->clamp_hi - (int32_t)taps >= key->clamp_lo) {
			first = key->clamp_hi - (int32_t)taps;
			off = lo - first;
		}
		for (int32_t j = 0; j < n; j++) {
			int32_t q = (int32_t)floor(ax->w[j] / ww *
						   (1 << AUG_COEF_BITS) + 0.5);

			k[off + j] = (int16_t)q;
			sum += q;
			if (q > k[off + big])
				big = j;
		}
		k[off + big] = (int16_t)(k[off + big] +
					 ((1 << AUG_COEF_BITS) - sum));
		ax->first[i] = first;
		if (first < ax->lo)
			ax->lo = first;
		if (hi > ax->hi)
			ax->hi = hi;
		if (first + (int32_t)taps > ax->read_hi)
			ax->read_hi = first + (int32_t)taps;
	}
	if (ax->read_hi < ax->hi)
		ax->read_hi = ax->hi;
	return 0;
}

/* ---- portable kernels ---- */

void aug_hpass_c(const uint8_t *src, size_t sstride, uint32_t rows,
		 const struct aug_axis *ax, int32_t base, int16_t *dst,
		 size_t dstride, bool flip)
{
	const uint32_t taps = ax->taps, n = ax->out_n;

	for (uint32_t r = 0; r < rows; r++) {
		const uint8_t *s = src + sstride * r;
		int16_t *d = (int16_t *)(void *)((uint8_t *)dst + dstride * r);

		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *p = s + (size_t)(ax->first[i] - base) * 4;
			const int16_t *k = ax->k + (size_t)i * taps;
			int32_t a[4] = { 0, 0, 0, 0 };
			uint32_t o = flip ? n - 1 - i : i;

			for (uint32_t t = 0; t < taps; t++) {
				const int32_t kt = k[t];

				a[0] += p[t * 4] * kt;
				a[1] += p[t * 4 + 1] * kt;
				a[2] += p[t * 4 + 2] * kt;
				a[3] += p[t * 4 + 3] * kt;
			}
			for (int c = 0; c < 4; c++)
				d[o * 4 + c] = (int16_t)((a[c] +
					(1 << (AUG_COEF_BITS - AUG_MID_FRAC - 1)))
					>> (AUG_COEF_BITS - AUG_MID_FRAC));
		}
	}
}

void aug_vpass_c(const int16_t *src, size_t sstride,
		 const struct aug_axis *ay, int32_t base, uint32_t n16,
		 uint8_t *dst, size_t dstride)
{
	const uint32_t taps = ay->taps;
	const int sh = AUG_COEF_BITS + AUG_MID_FRAC;

	for (uint32_t j = 0; j < ay->out_n; j++) {
		const int16_t *k = ay->k + (size_t)j * taps;
		const uint8_t *rows = (const uint8_t *)src +
			sstride * (size_t)(ay->first[j] - base);
		uint8_t *d = dst + dstride * j;

		/* row by row into a block of sums: contiguous, vectorizable */
		for (uint32_t e0 = 0; e0 < n16; e0 += 256) {
			const uint32_t m = n16 - e0 < 256 ? n16 - e0 : 256;
			int32_t acc[256];

			memset(acc, 0, sizeof(acc));
			for (uint32_t t = 0; t < taps; t++) {
				const int16_t *row = (const int16_t *)(const void *)
					(rows + sstride * t) + e0;
				const int32_t kt = k[t];

				for (uint32_t e = 0; e < m; e++)
					acc[e] += row[e] * kt;
			}
			for (uint32_t e = 0; e < m; e++) {
				int32_t a = (acc[e] + (1 << (sh - 1))) >> sh;

				d[e0 + e] = (uint8_t)(a < 0 ? 0 : a > 255 ? 255 : a);
			}
		}
	}
}

/* ---- the resizer ---- */

int aug_resizer_create(const struct aug_kernels *k, struct aug_resizer **out)
{
	struct aug_resizer *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->k = k;
	*out = r;
	return 0;
}

void aug_resizer_destroy(struct aug_resizer *r)
{
	if (!r)
		return;
	for (int i = 0; i < AXIS_CACHE; i++)
		aug_axis_free(&r->cache[i].ax);
	free(r->mid);
	free(r->pad);
	free(r);
}

static bool key_eq(const struct aug_axis_key *a, const struct aug_axis_key *b)
{
	return a->box0 == b->box0 && a->boxw == b->boxw &&
	       a->clamp_lo == b->clamp_lo && a->clamp_hi == b->clamp_hi &&
	       a->out_total == b->out_total && a->out_first == b->out_first &&
	       a->out_n == b->out_n && a->tap_mult == b->tap_mult;
}

const struct aug_axis *aug_resizer_axis(struct aug_resizer *r,
					const struct aug_axis_key *key,
					int *err)
{
	struct cache_entry *victim = &r->cache[0];

	r->clock++;
	for (int i = 0; i < AXIS_CACHE; i++) {
		struct cache_entry *e = &r->cache[i];

		if (e->used && key_eq(&e->key, key)) {
			e->stamp = r->clock;
			return &e->ax;
		}
		if (!e->used || (victim->used && e->stamp < victim->stamp))
			victim = e;
	}
	victim->used = false;
	*err = aug_axis_compute(&victim->ax, key);
	if (*err)
		return NULL;
	victim->used = true;
	victim->key = *key;
	victim->stamp = r->clock;
	return &victim->ax;
}

int aug_resizer_run(struct aug_resizer *r, const struct aug_view *src,
		    int32_t x0, int32_t y0, const struct aug_axis *ax,
		    const struct aug_axis *ay, const struct aug_view *dst,
		    bool flip)
{
	const uint8_t *s = src->data;
	size_t sstride = src->stride, mstride;
	uint32_t rows;
	int err;

	if (dst->width != ax->out_n || dst->height != ay->out_n ||
	    ax->lo < x0 || ay->lo < y0 ||
	    ax->hi > x0 + (int64_t)src->width ||
	    ay->hi > y0 + (int64_t)src->height)
		return -EINVAL;
	if (ax->read_hi > x0 + (int64_t)src->width ||
	    ay->read_hi > y0 + (int64_t)src->height) {
		/* taps wider than the source: zero-padded copy */
		uint32_t pw = (uint32_t)(ax->read_hi - ax->lo);
		uint32_t ph = (uint32_t)(ay->read_hi - ay->lo);
		size_t pstride = (size_t)pw * 4;

		err = aug_scratch_reserve((void **)&r->pad, &r->pad_cap,
					  pstride * ph);
		if (err)
			return err;
		memset(r->pad, 0, pstride * ph);
		for (int32_t y = ay->lo; y < ay->hi; y++)
			memcpy(r->pad + pstride * (size_t)(y - ay->lo),
			       s + sstride * (size_t)(y - y0) +
			       (size_t)(ax->lo - x0) * 4,
			       (size_t)(ax->hi - ax->lo) * 4);
		s = r->pad;
		sstride = pstride;
		x0 = ax->lo;
		y0 = ay->lo;
	}
	rows = (uint32_t)(ay->read_hi - ay->lo);
	mstride = ((size_t)ax->out_n * 4 * sizeof(int16_t) + 63) & ~(size_t)63;
	err = aug_scratch_reserve((void **)&r->mid, &r->mid_cap,
				  mstride * rows + 64);
	if (err)
		return err;
	r->k->hpass(s + sstride * (size_t)(ay->lo - y0), sstride, rows, ax,
		    x0, r->mid, mstride, flip);
	r->k->vpass(r->mid, mstride, ay, ay->lo, ax->out_n * 4, dst->data,
		    dst->stride);
	return 0;
}
