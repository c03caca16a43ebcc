/*
 * aug_convert.c - output conversion (normalize, dtype, layout), flip, the
 * half/bfloat16 conversions and the portable kernel set.
 */
#include <string.h>

#include "aug_internal.h"

uint16_t aug_f32_to_f16(float f)
{
	uint32_t x, ax, sign;

	memcpy(&x, &f, sizeof(x));
	sign = (x >> 16) & 0x8000u;
	ax = x & 0x7fffffffu;
	if (ax >= 0x7f800000u)                   /* inf, NaN (kept quiet) */
		return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
	if (ax >= 0x477ff000u)                   /* rounds past 65504 */
		return (uint16_t)(sign | 0x7c00u);
	if (ax < 0x38800000u) {                  /* half subnormal or zero */
		/* adding 0.5 leaves the float's last bit worth 2^-24, one
		 * half subnormal step, so the FPU does the rounding */
		float a, h = 0.5f;
		uint32_t b, hb;

		memcpy(&a, &ax, sizeof(a));
		a += h;
		memcpy(&b, &a, sizeof(b));
		memcpy(&hb, &h, sizeof(hb));
		return (uint16_t)(sign | (b - hb));
	}
	ax += 0xfffu + ((ax >> 13) & 1u);        /* round to nearest even */
	ax -= (uint32_t)(127 - 15) << 23;        /* rebias the exponent */
	return (uint16_t)(sign | (ax >> 13));
}

float aug_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
	float f;

	if (exp == 0x1f) {
		x = sign | 0x7f800000u | (man << 13);
	} else if (exp == 0) {
		/* subnormal: man * 2^-24 is exact in float */
		f = (float)man * 0x1.0p-24f;
		return sign ? -f : f;
	} else {
		x = sign | ((exp + 127 - 15) << 23) | (man << 13);
	}
	memcpy(&f, &x, sizeof(f));
	return f;
}

uint16_t aug_f32_to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof(x));
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);  /* quiet NaN */
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

float aug_bf16_to_f32(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;

	memcpy(&f, &x, sizeof(f));
	return f;
}

size_t aug_dtype_size(enum aug_dtype dt)
{
	switch (dt) {
	case AUG_DT_F32:
		return 4;
	case AUG_DT_F16:
	case AUG_DT_BF16:
		return 2;
	case AUG_DT_U8:
		return 1;
	}
	return 0;
}

void aug_flip_inplace(const struct aug_view *img)
{
	for (uint32_t y = 0; y < img->height; y++) {
		uint8_t *row = img->data + img->stride * y;

		for (uint32_t a = 0, b = img->width; a + 1 < b; a++, b--) {
			uint8_t t[4];

			memcpy(t, row + a * 4, 4);
			memcpy(row + a * 4, row + (b - 1) * 4, 4);
			memcpy(row + (b - 1) * 4, t, 4);
		}
	}
}

/* ---- portable conversion kernels ---- */

static void f32_chw_c(const uint8_t *src, size_t sstride, uint32_t w,
		      uint32_t h, const float *scale, const float *bias,
		      float *out)
{
	const size_t plane = (size_t)w * h;

	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;
		float *o = out + (size_t)w * y;

		for (uint32_t x = 0; x < w; x++)
			for (int c = 0; c < 3; c++)
				o[c * plane + x] = (float)s[x * 4 + c] * scale[c] +
						   bias[c];
	}
}

static void f16_chw_c(const uint8_t *src, size_t sstride, uint32_t w,
		      uint32_t h, const float *scale, const float *bias,
		      uint16_t *out)
{
	const size_t plane = (size_t)w * h;

	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;
		uint16_t *o = out + (size_t)w * y;

		for (uint32_t x = 0; x < w; x++)
			for (int c = 0; c < 3; c++)
				o[c * plane + x] = aug_f32_to_f16(
					(float)s[x * 4 + c] * scale[c] + bias[c]);
	}
}

static void bf16_chw_c(const uint8_t *src, size_t sstride, uint32_t w,
		       uint32_t h, const float *scale, const float *bias,
		       uint16_t *out)
{
	const size_t plane = (size_t)w * h;

	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;
		uint16_t *o = out + (size_t)w * y;

		for (uint32_t x = 0; x < w; x++)
			for (int c = 0; c < 3; c++)
				o[c * plane + x] = aug_f32_to_bf16(
					(float)s[x * 4 + c] * scale[c] + bias[c]);
	}
}

static void u8_hwc_c(const uint8_t *src, size_t sstride, uint32_t w,
		     uint32_t h, uint8_t *out)
{
	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;

		for (uint32_t x = 0; x < w; x++, out += 3) {
			out[0] = s[x * 4];
			out[1] = s[x * 4 + 1];
			out[2] = s[x * 4 + 2];
		}
	}
}

const struct aug_kernels aug_kernels_portable = {
	.isa = AUG_ISA_PORTABLE,
	.hpass = aug_hpass_c,
	.vpass = aug_vpass_c,
	.f32_chw = f32_chw_c,
	.f16_chw = f16_chw_c,
	.bf16_chw = bf16_chw_c,
	.u8_hwc = u8_hwc_c,
};

/*
 * Any dtype/layout: the kernel set's function for the common cases, a
 * plain loop for the rest (HWC floats, CHW uint8).
 */
void aug_convert_with(const struct aug_kernels *k, enum aug_dtype dt,
		      enum aug_layout lay, const float *scale,
		      const float *bias, const struct aug_view *src, void *out)
{
	const uint32_t w = src->width, h = src->height;
	const size_t plane = (size_t)w * h;

	if (lay == AUG_LAYOUT_CHW && dt != AUG_DT_U8) {
		if (dt == AUG_DT_F32)
			(k->f32_chw ? k->f32_chw : f32_chw_c)(src->data,
				src->stride, w, h, scale, bias, out);
		else if (dt == AUG_DT_F16)
			(k->f16_chw ? k->f16_chw : f16_chw_c)(src->data,
				src->stride, w, h, scale, bias, out);
		else
			(k->bf16_chw ? k->bf16_chw : bf16_chw_c)(src->data,
				src->stride, w, h, scale, bias, out);
		return;
	}
	if (lay == AUG_LAYOUT_HWC && dt == AUG_DT_U8) {
		(k->u8_hwc ? k->u8_hwc : u8_hwc_c)(src->data, src->stride, w,
						   h, out);
		return;
	}
	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src->data + src->stride * y;

		for (uint32_t x = 0; x < w; x++) {
			for (int c = 0; c < 3; c++) {
				size_t i = lay == AUG_LAYOUT_CHW ?
					c * plane + (size_t)w * y + x :
					((size_t)w * y + x) * 3 + c;
				float v = (float)s[x * 4 + c] * scale[c] + bias[c];

				switch (dt) {
				case AUG_DT_F32:
					((float *)out)[i] = v;
					break;
				case AUG_DT_F16:
					((uint16_t *)out)[i] = aug_f32_to_f16(v);
					break;
				case AUG_DT_BF16:
					((uint16_t *)out)[i] = aug_f32_to_bf16(v);
					break;
				case AUG_DT_U8:
					((uint8_t *)out)[i] = s[x * 4 + c];
					break;
				}
			}
		}
	}
}
