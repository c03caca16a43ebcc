/*
 * test_resize.c - the antialiased bilinear resize against a
 * double-precision reference, every kernel set against the portable one,
 * the flip folded into the horizontal pass, and DCT-scaled decode against
 * full decode + resize.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "aug_internal.h"
#include "aug_testlib.h"

static const enum aug_isa all_isas[] = { AUG_ISA_PORTABLE, AUG_ISA_SSE41,
					 AUG_ISA_AVX2 };

static struct aug_ctx *ctx_for(enum aug_isa isa)
{
	struct aug_params p;
	struct aug_ctx *c;

	aug_params_default(&p);
	p.isa = isa;
	cr_assert_eq(aug_ctx_create(&p, &c), 0, "isa %s", aug_isa_name(isa));
	cr_assert_eq(aug_ctx_isa(c), isa);
	return c;
}

/* Random RGBX picture (smooth + noise) with X = 255. */
static uint8_t *make_rgbx(uint32_t w, uint32_t h, uint32_t seed)
{
	uint8_t *rgb = tl_make_rgb(w, h, seed);
	uint8_t *p = malloc((size_t)w * h * 4 + 64);

	for (size_t i = 0; i < (size_t)w * h; i++) {
		memcpy(p + i * 4, rgb + i * 3, 3);
		p[i * 4 + 3] = 255;
	}
	free(rgb);
	return p;
}

struct rcase {
	uint32_t sw, sh;          /* source */
	double bx, by, bw, bh;    /* box */
	uint32_t ow, oh;          /* output */
};

static const struct rcase cases[] = {
	{ 500, 375, 0, 0, 500, 375, 224, 224 },        /* downscale */
	{ 333, 211, 17, 9, 301, 187, 223, 97 },        /* odd sizes */
	{ 61, 47, 3, 5, 37, 29, 224, 224 },            /* upscale */
	{ 97, 89, 0, 0, 97, 89, 97, 89 },              /* identity */
	{ 1999, 17, 0, 0, 1999, 17, 13, 224 },         /* down x, up y */
	{ 640, 480, 10.5, 3.25, 300.75, 200.5, 224, 224 }, /* fractional */
	{ 3, 2, 0, 0, 3, 2, 224, 224 },                /* tiny: padded */
	{ 1, 1, 0, 0, 1, 1, 5, 7 },                    /* one pixel */
	{ 800, 600, 0, 0, 800, 600, 31, 29 },          /* strong shrink */
};

FR_TEST(resize, within_one_of_double_reference_on_every_isa)
{
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		const struct rcase *k = &cases[ci];
		uint8_t *src = make_rgbx(k->sw, k->sh, (uint32_t)ci);
		uint8_t *ref = malloc((size_t)k->ow * k->oh * 4);
		uint8_t *out = malloc((size_t)k->ow * k->oh * 4);
		struct aug_view sv = { src, k->sw, k->sh, (size_t)k->sw * 4 };
		struct aug_view dv = { out, k->ow, k->oh, (size_t)k->ow * 4 };

		tl_ref_resize(src, k->sw, k->bx, k->by, k->bw, k->bh, k->ow,
			      k->oh, ref);
		for (size_t ii = 0; ii < 3; ii++) {
			struct aug_ctx *c;
			int maxerr = 0;
			long exact = 0;

			if (!aug_isa_supported(all_isas[ii]))
				continue;
			c = ctx_for(all_isas[ii]);
			cr_assert_eq(aug_resize(c, &sv, k->bx, k->by, k->bw, k->bh,
						&dv, false), 0);
			for (size_t i = 0; i < (size_t)k->ow * k->oh * 4; i++) {
				int e = abs((int)out[i] - (int)ref[i]);

				if (i % 4 == 3)
					continue;
				maxerr = e > maxerr ? e : maxerr;
				exact += e == 0;
			}
			cr_assert_leq(maxerr, 1, "case %zu isa %s: max error %d",
				      ci, aug_isa_name(all_isas[ii]), maxerr);
			/* and not merely within 1: nearly all exact */
			cr_assert_geq(exact, (long)((size_t)k->ow * k->oh * 3 * 95 / 100),
				      "case %zu: only %ld exact", ci, exact);
			aug_ctx_destroy(c);
		}
		free(src);
		free(ref);
		free(out);
	}
}

FR_TEST(resize, every_isa_matches_portable_bit_for_bit)
{
	uint32_t s = 99;

	for (int t = 0; t < 40; t++) {
		uint32_t sw = 1 + tl_lcg(&s) % 700, sh = 1 + tl_lcg(&s) % 500;
		uint32_t ow = 1 + tl_lcg(&s) % 300, oh = 1 + tl_lcg(&s) % 300;
		double bw = sw * (0.2 + 0.8 * (tl_lcg(&s) % 1000) / 1000.0);
		double bh = sh * (0.2 + 0.8 * (tl_lcg(&s) % 1000) / 1000.0);
		double bx = (sw - bw) * (tl_lcg(&s) % 1000) / 1000.0;
		double by = (sh - bh) * (tl_lcg(&s) % 1000) / 1000.0;
		bool flip = t & 1;
		uint8_t *src = make_rgbx(sw, sh, (uint32_t)t);
		size_t n = (size_t)ow * oh * 4;
		uint8_t *want = malloc(n), *got = malloc(n);
		struct aug_view sv = { src, sw, sh, (size_t)sw * 4 };
		struct aug_view dv = { want, ow, oh, (size_t)ow * 4 };
		struct aug_ctx *c = ctx_for(AUG_ISA_PORTABLE);

		if (t % 5 == 0) {
			/* integer boxes, as the train transform uses */
			bx = floor(bx), by = floor(by);
			bw = floor(bw) > 0 ? floor(bw) : 1;
			bh = floor(bh) > 0 ? floor(bh) : 1;
		}
		cr_assert_eq(aug_resize(c, &sv, bx, by, bw, bh, &dv, flip), 0);
		aug_ctx_destroy(c);
		for (size_t ii = 1; ii < 3; ii++) {
			if (!aug_isa_supported(all_isas[ii]))
				continue;
			c = ctx_for(all_isas[ii]);
			dv.data = got;
			cr_assert_eq(aug_resize(c, &sv, bx, by, bw, bh, &dv, flip), 0);
			cr_assert(memcmp(want, got, n) == 0,
				  "%s differs: %ux%u box %.2f,%.2f %.2fx%.2f -> %ux%u",
				  aug_isa_name(all_isas[ii]), sw, sh, bx, by, bw,
				  bh, ow, oh);
			aug_ctx_destroy(c);
		}
		free(src);
		free(want);
		free(got);
	}
}

FR_TEST(resize, folded_flip_equals_flipping_the_result)
{
	uint8_t *src = make_rgbx(321, 243, 4);
	uint8_t *a = malloc(224 * 224 * 4), *b = malloc(224 * 224 * 4);
	struct aug_view sv = { src, 321, 243, 321 * 4 };
	struct aug_view va = { a, 224, 224, 224 * 4 }, vb = { b, 224, 224, 224 * 4 };

	for (size_t ii = 0; ii < 3; ii++) {
		struct aug_ctx *c;

		if (!aug_isa_supported(all_isas[ii]))
			continue;
		c = ctx_for(all_isas[ii]);
		cr_assert_eq(aug_resize(c, &sv, 20, 11, 250, 199, &va, false), 0);
		cr_assert_eq(aug_resize(c, &sv, 20, 11, 250, 199, &vb, true), 0);
		aug_flip_inplace(&va);
		cr_assert(memcmp(a, b, 224 * 224 * 4) == 0, "%s",
			  aug_isa_name(all_isas[ii]));
		aug_ctx_destroy(c);
	}
	free(src);
	free(a);
	free(b);
}

FR_TEST(resize, flat_image_stays_flat)
{
	uint8_t *src = malloc(517 * 311 * 4), *out = malloc(224 * 224 * 4);
	struct aug_view sv = { src, 517, 311, 517 * 4 };
	struct aug_view dv = { out, 224, 224, 224 * 4 };
	struct aug_params p;
	struct aug_ctx *c;

	aug_params_default(&p);
	cr_assert_eq(aug_ctx_create(&p, &c), 0);
	for (size_t i = 0; i < 517 * 311; i++)
		memcpy(src + i * 4, (const uint8_t[]){ 7, 128, 255, 255 }, 4);
	cr_assert_eq(aug_resize(c, &sv, 0.3, 0.7, 500.1, 300.2, &dv, false), 0);
	for (size_t i = 0; i < 224 * 224; i++)
		cr_assert(out[i * 4] == 7 && out[i * 4 + 1] == 128 &&
			  out[i * 4 + 2] == 255, "pixel %zu", i);
	aug_ctx_destroy(c);
	free(src);
	free(out);
}

FR_TEST(resize, rejects_boxes_outside_the_source)
{
	uint8_t src[16 * 16 * 4] = { 0 }, out[8 * 8 * 4];
	struct aug_view sv = { src, 16, 16, 64 };
	struct aug_view dv = { out, 8, 8, 32 };
	struct aug_ctx *c = ctx_for(AUG_ISA_PORTABLE);

	cr_assert_eq(aug_resize(c, &sv, 0, 0, 17, 16, &dv, false), -EINVAL);
	cr_assert_eq(aug_resize(c, &sv, -1, 0, 4, 4, &dv, false), -EINVAL);
	cr_assert_eq(aug_resize(c, &sv, 0, 0, 0, 4, &dv, false), -EINVAL);
	cr_assert_eq(aug_resize(c, &sv, 8, 8, 8, 8, &dv, false), 0);
	aug_ctx_destroy(c);
}

FR_TEST(resize, coefficients_sum_to_one_and_stay_in_the_box)
{
	struct aug_axis ax = { 0 };
	struct aug_axis_key k = {
		.box0 = 37, .boxw = 411, .clamp_lo = 37, .clamp_hi = 448,
		.out_total = 224, .out_first = 0, .out_n = 224,
		.tap_mult = AUG_HTAP_MULT,
	};

	cr_assert_eq(aug_axis_compute(&ax, &k), 0);
	cr_assert_eq(ax.taps % AUG_HTAP_MULT, 0);
	cr_assert_geq(ax.lo, 37);
	cr_assert_leq(ax.read_hi, 448);
	for (uint32_t i = 0; i < ax.out_n; i++) {
		int sum = 0;

		for (uint32_t t = 0; t < ax.taps; t++) {
			cr_assert_geq(ax.k[i * ax.taps + t], 0);
			sum += ax.k[i * ax.taps + t];
		}
		cr_assert_eq(sum, 1 << AUG_COEF_BITS, "output %u sums to %d", i, sum);
	}
	aug_axis_free(&ax);
}

/*
 * DCT-scaled decode then resize, against full decode then resize, on the
 * train transform's output (uint8 HWC, no flip). Stated error: mean
 * absolute difference <= 1.0 level and 99th percentile <= 6 levels on
 * these photo-like images (measured: 0.26 and 3); the scaled IDCT is a
 * different low-pass than the triangle filter, so edges differ a little.
 */
FR_TEST(resize, dct_scaled_decode_is_close_to_full_decode)
{
	struct aug_params p;
	struct aug_ctx *full, *scaled;
	struct aug_membuf j = { 0 };
	size_t n = 224 * 224 * 3;
	uint8_t *a = malloc(n), *b = malloc(n);
	long hist[256] = { 0 }, total = 0, used = 0;
	double sum = 0;

	aug_params_default(&p);
	p.dtype = AUG_DT_U8;
	p.layout = AUG_LAYOUT_HWC;
	p.flip_p = 0;
	p.rrc.scale_min = 0.5;            /* big crops: scaling kicks in */
	p.dct_scale = false;
	cr_assert_eq(aug_ctx_create(&p, &full), 0);
	p.dct_scale = true;
	cr_assert_eq(aug_ctx_create(&p, &scaled), 0);
	cr_assert_eq(tl_make_jpeg(1200, 900, 8, AUG_ENC_420, 90, false, &j), 0);
	for (uint64_t id = 0; id < 20; id++) {
		struct aug_stats sa, sb;

		cr_assert_eq(aug_train_sample(full, j.data, j.len, 1, 0, id, a,
					      &sa), 0);
		cr_assert_eq(aug_train_sample(scaled, j.data, j.len, 1, 0, id, b,
					      &sb), 0);
		cr_assert_eq(sa.scale_denom, 1);
		cr_assert_eq(memcmp(&sa.crop, &sb.crop, sizeof(sa.crop)), 0);
		if (sb.scale_denom == 1)
			continue;
		used++;
		for (size_t i = 0; i < n; i++) {
			int e = abs((int)a[i] - (int)b[i]);

			hist[e]++;
			sum += e;
			total++;
		}
	}
	cr_assert_geq(used, 10, "only %ld samples used a DCT scale", used);
	long acc = 0;
	int p99 = 0;

	for (int e = 0; e < 256; e++) {
		acc += hist[e];
		if (acc < total * 99 / 100)
			p99 = e + 1;
	}
	cr_log_info("dct-scaled vs full decode: mean abs %.3f, p99 %d levels, "
		    "%ld of 20 samples scaled", sum / total, p99, used);
	cr_assert_leq(sum / total, 1.0, "mean abs error %.3f", sum / total);
	cr_assert_leq(p99, 6, "p99 error %d", p99);
	aug_ctx_destroy(full);
	aug_ctx_destroy(scaled);
	aug_membuf_free(&j);
	free(a);
	free(b);
}

/*
 * The train transform (ROI decode) equals full decode + crop + resize of
 * the same crop, exactly: ROI decode is exact and the resize only sees
 * the crop.
 */
FR_TEST(resize, train_sample_equals_full_decode_crop_resize)
{
	struct aug_params p;
	struct aug_ctx *roi, *whole;
	struct aug_membuf j = { 0 };
	size_t n = 224 * 224 * 3;
	uint8_t *a = malloc(n), *b = malloc(n);

	aug_params_default(&p);
	p.dtype = AUG_DT_U8;
	p.layout = AUG_LAYOUT_HWC;
	p.dct_scale = false;
	cr_assert_eq(aug_ctx_create(&p, &roi), 0);
	p.roi_decode = false;
	cr_assert_eq(aug_ctx_create(&p, &whole), 0);
	cr_assert_eq(tl_make_jpeg(500, 375, 9, AUG_ENC_420, 90, false, &j), 0);
	for (uint64_t id = 0; id < 30; id++) {
		struct aug_stats sa, sb;

		cr_assert_eq(aug_train_sample(roi, j.data, j.len, 5, 1, id, a, &sa), 0);
		cr_assert_eq(aug_train_sample(whole, j.data, j.len, 5, 1, id, b, &sb), 0);
		cr_assert(sa.decoded.w * sa.decoded.h <= sa.crop.w * sa.crop.h);
		cr_assert_eq(sb.decoded.w, 500);
		cr_assert(memcmp(a, b, n) == 0, "sample %llu differs",
			  (unsigned long long)id);
	}
	aug_ctx_destroy(roi);
	aug_ctx_destroy(whole);
	aug_membuf_free(&j);
	free(a);
	free(b);
}

FR_TEST(resize, tiny_and_thin_images_go_through_both_transforms)
{
	static const uint32_t dims[][2] = {
		{ 1, 1 }, { 2, 3 }, { 7, 5 }, { 17, 1 }, { 1, 300 }, { 3, 2000 },
	};
	struct aug_ctx *c;
	void *out;

	cr_assert_eq(aug_ctx_create(NULL, &c), 0);
	out = malloc(aug_ctx_sample_bytes(c, false));
	for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
		struct aug_membuf j = { 0 };
		struct aug_stats s;

		cr_assert_eq(tl_make_jpeg(dims[i][0], dims[i][1], (uint32_t)i,
					  AUG_ENC_420, 90, false, &j), 0);
		for (uint64_t id = 0; id < 20; id++) {
			cr_assert_eq(aug_train_sample(c, j.data, j.len, 3, 0, id,
						      out, &s), 0,
				     "%ux%u", dims[i][0], dims[i][1]);
			cr_assert(s.crop.w >= 1 && s.crop.x + s.crop.w <= dims[i][0]);
		}
		cr_assert_eq(aug_eval_sample(c, j.data, j.len, out, &s), 0);
		aug_membuf_free(&j);
	}
	free(out);
	aug_ctx_destroy(c);
}
