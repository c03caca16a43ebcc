/*
 * test_normalize.c - output conversion: normalize values, fp16/bf16
 * rounding, layouts, every kernel set against the portable one, flip.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "aug_internal.h"
#include "aug_testlib.h"

static const float MEAN[3] = { 0.485f, 0.456f, 0.406f };
static const float STD[3] = { 0.229f, 0.224f, 0.225f };

/* An RGBX image holding every byte value in every channel, odd width. */
static struct aug_view all_values(uint32_t w, uint32_t h)
{
	struct aug_view v = { NULL, w, h, (size_t)w * 4 + 12 };

	v.data = malloc(v.stride * h);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint8_t *p = v.data + v.stride * y + x * 4;
			uint32_t i = y * w + x;

			p[0] = (uint8_t)i;
			p[1] = (uint8_t)(i * 7 + 3);
			p[2] = (uint8_t)(255 - i);
			p[3] = 255;
		}
	return v;
}

static struct aug_ctx *ctx_of(enum aug_dtype dt, enum aug_layout lay,
			      enum aug_isa isa)
{
	struct aug_params p;
	struct aug_ctx *c;

	aug_params_default(&p);
	p.dtype = dt;
	p.layout = lay;
	p.isa = isa;
	cr_assert_eq(aug_ctx_create(&p, &c), 0);
	return c;
}

FR_TEST(normalize, f32_chw_is_torchvision_normalize)
{
	struct aug_view v = all_values(37, 11);
	struct aug_ctx *c = ctx_of(AUG_DT_F32, AUG_LAYOUT_CHW, AUG_ISA_AUTO);
	float *out = malloc(sizeof(float) * 3 * 37 * 11);
	const size_t plane = 37 * 11;

	aug_convert(c, &v, out);
	for (uint32_t y = 0; y < 11; y++)
		for (uint32_t x = 0; x < 37; x++)
			for (int ch = 0; ch < 3; ch++) {
				/* ToTensor then Normalize, in double */
				double px = v.data[v.stride * y + x * 4 + ch];
				double want = (px / 255.0 - MEAN[ch]) / STD[ch];
				float got = out[ch * plane + y * 37 + x];

				cr_assert(fabs(got - want) <= 2e-6 * (1 + fabs(want)),
					  "(%u,%u,%d) %.9f vs %.9f", x, y, ch,
					  got, want);
			}
	free(out);
	free(v.data);
	aug_ctx_destroy(c);
}

FR_TEST(normalize, every_isa_matches_portable_for_every_format)
{
	static const enum aug_dtype dts[] = { AUG_DT_F32, AUG_DT_F16,
					      AUG_DT_BF16, AUG_DT_U8 };
	static const enum aug_isa isas[] = { AUG_ISA_SSE41, AUG_ISA_AVX2 };
	struct aug_view v = all_values(223, 17);
	const size_t n = 3 * 223 * 17;

	for (int d = 0; d < 4; d++)
		for (int l = 0; l < 2; l++) {
			struct aug_ctx *c = ctx_of(dts[d], (enum aug_layout)l,
						   AUG_ISA_PORTABLE);
			size_t bytes = n * aug_dtype_size(dts[d]);
			uint8_t *want = malloc(bytes), *got = malloc(bytes);

			aug_convert(c, &v, want);
			aug_ctx_destroy(c);
			for (int i = 0; i < 2; i++) {
				if (!aug_isa_supported(isas[i]))
					continue;
				c = ctx_of(dts[d], (enum aug_layout)l, isas[i]);
				memset(got, 0xa5, bytes);
				aug_convert(c, &v, got);
				cr_assert(memcmp(want, got, bytes) == 0,
					  "dtype %d layout %d isa %s", d, l,
					  aug_isa_name(isas[i]));
				aug_ctx_destroy(c);
			}
			free(want);
			free(got);
		}
	free(v.data);
}

FR_TEST(normalize, layouts_and_dtypes_round_trip)
{
	struct aug_view v = all_values(29, 13);
	const size_t plane = 29 * 13;
	struct aug_ctx *c;
	float *chw = malloc(sizeof(float) * 3 * plane);
	float *hwc = malloc(sizeof(float) * 3 * plane);
	uint16_t *h16 = malloc(2 * 3 * plane), *b16 = malloc(2 * 3 * plane);
	uint8_t *u8 = malloc(3 * plane), *u8c = malloc(3 * plane);

	c = ctx_of(AUG_DT_F32, AUG_LAYOUT_CHW, AUG_ISA_AUTO);
	aug_convert(c, &v, chw);
	aug_ctx_destroy(c);
	c = ctx_of(AUG_DT_F32, AUG_LAYOUT_HWC, AUG_ISA_AUTO);
	aug_convert(c, &v, hwc);
	aug_ctx_destroy(c);
	c = ctx_of(AUG_DT_F16, AUG_LAYOUT_CHW, AUG_ISA_AUTO);
	aug_convert(c, &v, h16);
	aug_ctx_destroy(c);
	c = ctx_of(AUG_DT_BF16, AUG_LAYOUT_CHW, AUG_ISA_AUTO);
	aug_convert(c, &v, b16);
	aug_ctx_destroy(c);
	c = ctx_of(AUG_DT_U8, AUG_LAYOUT_HWC, AUG_ISA_AUTO);
	aug_convert(c, &v, u8);
	aug_ctx_destroy(c);
	c = ctx_of(AUG_DT_U8, AUG_LAYOUT_CHW, AUG_ISA_AUTO);
	aug_convert(c, &v, u8c);
	aug_ctx_destroy(c);
	for (size_t i = 0; i < plane; i++) {
		const uint8_t *px = v.data + v.stride * (i / 29) + (i % 29) * 4;

		for (int ch = 0; ch < 3; ch++) {
			float f = chw[ch * plane + i];
			/* denormalize back to the byte */
			double back = (f * STD[ch] + MEAN[ch]) * 255.0;

			cr_assert(fabs(back - px[ch]) < 1e-3);
			cr_assert_eq(hwc[i * 3 + ch], f);       /* same bits */
			cr_assert_eq(u8[i * 3 + ch], px[ch]);
			cr_assert_eq(u8c[ch * plane + i], px[ch]);
			/* half: 11-bit mantissa, bf16: 8-bit, nearest */
			cr_assert(fabs(aug_f16_to_f32(h16[ch * plane + i]) - f) <=
				  fabsf(f) * 0x1p-11f + 0x1p-25f);
			cr_assert(fabs(aug_bf16_to_f32(b16[ch * plane + i]) - f) <=
				  fabsf(f) * 0x1p-8f);
			/* and the bytes survive f16 */
			double b2 = (aug_f16_to_f32(h16[ch * plane + i]) * STD[ch] +
				     MEAN[ch]) * 255.0;

			cr_assert(fabs(b2 - px[ch]) < 0.5);
		}
	}
	free(chw), free(hwc), free(h16), free(b16), free(u8), free(u8c);
	free(v.data);
}

FR_TEST(normalize, half_and_bfloat_round_to_nearest_even)
{
	static const struct { float f; uint16_t h; } halves[] = {
		{ 0.0f, 0x0000 }, { -0.0f, 0x8000 }, { 1.0f, 0x3c00 },
		{ -2.0f, 0xc000 }, { 65504.0f, 0x7bff }, { 65520.0f, 0x7c00 },
		{ 1e-8f, 0x0000 }, { 0x1p-24f, 0x0001 }, { 0x1p-14f, 0x0400 },
		{ 1.0f + 0x1p-11f, 0x3c00 },           /* tie -> even */
		{ 1.0f + 3 * 0x1p-11f, 0x3c02 },       /* tie -> even (up) */
		{ 0.333333343f, 0x3555 }, { INFINITY, 0x7c00 },
	};
	for (size_t i = 0; i < sizeof(halves) / sizeof(halves[0]); i++)
		cr_assert_eq(aug_f32_to_f16(halves[i].f), halves[i].h,
			     "%g -> %04x, want %04x", halves[i].f,
			     aug_f32_to_f16(halves[i].f), halves[i].h);
	cr_assert(isnan(aug_f16_to_f32(aug_f32_to_f16(NAN))));
	/* every finite half converts back to itself */
	for (uint32_t h = 0; h < 0x10000; h++) {
		if ((h & 0x7c00) == 0x7c00)
			continue;
		cr_assert_eq(aug_f32_to_f16(aug_f16_to_f32((uint16_t)h)), h,
			     "%04x", h);
	}
	cr_assert_eq(aug_f32_to_bf16(1.0f), 0x3f80);
	cr_assert_eq(aug_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);     /* tie even */
	cr_assert_eq(aug_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);
	cr_assert_eq(aug_bf16_to_f32(0xc040), -3.0f);
	cr_assert(isnan(aug_bf16_to_f32(aug_f32_to_bf16(NAN))));
}

FR_TEST(normalize, flip_twice_is_identity)
{
	struct aug_view v = all_values(31, 9);
	uint8_t *orig = malloc(v.stride * 9);

	memcpy(orig, v.data, v.stride * 9);
	aug_flip_inplace(&v);
	cr_assert(memcmp(orig, v.data, 4) != 0);
	cr_assert(memcmp(orig, v.data + 30 * 4, 4) == 0);
	aug_flip_inplace(&v);
	cr_assert(memcmp(orig, v.data, v.stride * 9) == 0);
	free(orig);
	free(v.data);
}

FR_TEST(normalize, train_sample_writes_exactly_the_sample_bytes)
{
	struct aug_membuf j = { 0 };
	static const enum aug_dtype dts[] = { AUG_DT_F32, AUG_DT_F16,
					      AUG_DT_BF16, AUG_DT_U8 };

	cr_assert_eq(tl_make_jpeg(300, 200, 3, AUG_ENC_420, 85, false, &j), 0);
	for (int d = 0; d < 4; d++) {
		struct aug_ctx *c = ctx_of(dts[d], AUG_LAYOUT_CHW, AUG_ISA_AUTO);
		size_t n = aug_ctx_sample_bytes(c, false);
		uint8_t *out = malloc(n + 64);

		cr_assert_eq(n, 3 * 224 * 224 * aug_dtype_size(dts[d]));
		memset(out, 0xa5, n + 64);
		cr_assert_eq(aug_train_sample(c, j.data, j.len, 1, 0, 0, out, NULL), 0);
		for (size_t i = n; i < n + 64; i++)
			cr_assert_eq(out[i], 0xa5, "wrote past the sample");
		free(out);
		aug_ctx_destroy(c);
	}
	aug_membuf_free(&j);
}

FR_TEST(normalize, bad_params_are_refused)
{
	struct aug_params p;
	struct aug_ctx *c = (struct aug_ctx *)&p;

	aug_params_default(&p);
	p.std[1] = 0;
	cr_assert_eq(aug_ctx_create(&p, &c), -EINVAL);
	cr_assert_null(c);
	aug_params_default(&p);
	p.out_w = 0;
	cr_assert_eq(aug_ctx_create(&p, &c), -EINVAL);
	aug_params_default(&p);
	p.rrc.ratio_min = 2, p.rrc.ratio_max = 1;
	cr_assert_eq(aug_ctx_create(&p, &c), -EINVAL);
	aug_params_default(&p);
	p.eval_crop = 300;
	cr_assert_eq(aug_ctx_create(&p, &c), -EINVAL);
	aug_ctx_destroy(NULL);
}
