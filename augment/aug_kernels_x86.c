/*
 * aug_kernels_x86.c - SSE4.1 and AVX2 kernel sets (resize passes and
 * output conversion), chosen at run time.
 *
 * Every function carries its own target attribute, so this file builds
 * with the project's baseline flags and the binary runs on any x86-64;
 * aug_kernels_get() checks the CPU with __builtin_cpu_supports (libgcc's
 * cpuid cache, which works in a fully static binary) before handing a set
 * out. The integer arithmetic is the portable kernels' exactly (integer
 * sums do not depend on their order), and float conversion is a multiply
 * then an add (no FMA in these targets), so every set gives the same bits.
 */
#include <string.h>

#include "aug_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

#define SSE41 __attribute__((target("sse4.1")))
#define AVX2 __attribute__((target("avx2,f16c")))

#define ROUND_H (1 << (AUG_COEF_BITS - AUG_MID_FRAC - 1))
#define SHIFT_H (AUG_COEF_BITS - AUG_MID_FRAC)
#define SHIFT_V (AUG_COEF_BITS + AUG_MID_FRAC)
#define ROUND_V (1 << (SHIFT_V - 1))

static inline int32_t load_pair(const int16_t *k)
{
	int32_t v;

	memcpy(&v, k, sizeof(v));
	return v;
}

/* ---- SSE4.1 ---- */

SSE41 static void hpass_sse41(const uint8_t *src, size_t sstride,
			      uint32_t rows, const struct aug_axis *ax,
			      int32_t base, int16_t *dst, size_t dstride,
			      bool flip)
{
	/* two RGBX pixels -> r0 r1 g0 g1 b0 b1 x0 x1 as int16 */
	const __m128i pairs = _mm_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1,
					    2, -1, 6, -1, 3, -1, 7, -1);
	const __m128i rnd = _mm_set1_epi32(ROUND_H);
	const uint32_t taps = ax->taps, n = ax->out_n;

	for (uint32_t r = 0; r < rows; r++) {
		const uint8_t *s = src + sstride * r;
		uint8_t *d = (uint8_t *)dst + dstride * r;

		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *p = s + (size_t)(ax->first[i] - base) * 4;
			const int16_t *k = ax->k + (size_t)i * taps;
			__m128i acc = _mm_setzero_si128();
			uint32_t o = flip ? n - 1 - i : i;

			for (uint32_t t = 0; t < taps; t += 2) {
				__m128i px = _mm_loadl_epi64(
					(const __m128i *)(const void *)(p + t * 4));
				__m128i c = _mm_set1_epi32(load_pair(k + t));

				px = _mm_shuffle_epi8(px, pairs);
				acc = _mm_add_epi32(acc, _mm_madd_epi16(px, c));
			}
			acc = _mm_srai_epi32(_mm_add_epi32(acc, rnd), SHIFT_H);
			_mm_storel_epi64((__m128i *)(void *)(d + (size_t)o * 8),
					 _mm_packs_epi32(acc, acc));
		}
	}
}

SSE41 static void vpass_sse41(const int16_t *src, size_t sstride,
			      const struct aug_axis *ay, int32_t base,
			      uint32_t n16, uint8_t *dst, size_t dstride)
{
	const __m128i rnd = _mm_set1_epi32(ROUND_V);
	const uint32_t taps = ay->taps;

	for (uint32_t j = 0; j < ay->out_n; j++) {
		const int16_t *k = ay->k + (size_t)j * taps;
		const uint8_t *rows = (const uint8_t *)src +
			sstride * (size_t)(ay->first[j] - base);
		uint8_t *d = dst + dstride * j;
		uint32_t e = 0;

		for (; e + 8 <= n16; e += 8) {
			__m128i lo = _mm_setzero_si128(), hi = lo;

			for (uint32_t t = 0; t < taps; t += 2) {
				const uint8_t *ra = rows + sstride * t + e * 2;
				__m128i a = _mm_loadu_si128((const __m128i *)(const void *)ra);
				__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(ra + sstride));
				__m128i c = _mm_set1_epi32(load_pair(k + t));

				lo = _mm_add_epi32(lo, _mm_madd_epi16(
					_mm_unpacklo_epi16(a, b), c));
				hi = _mm_add_epi32(hi, _mm_madd_epi16(
					_mm_unpackhi_epi16(a, b), c));
			}
			lo = _mm_srai_epi32(_mm_add_epi32(lo, rnd), SHIFT_V);
			hi = _mm_srai_epi32(_mm_add_epi32(hi, rnd), SHIFT_V);
			lo = _mm_packs_epi32(lo, hi);
			_mm_storel_epi64((__m128i *)(void *)(d + e),
					 _mm_packus_epi16(lo, lo));
		}
		for (; e < n16; e++) {
			int32_t a = 0;

			for (uint32_t t = 0; t < taps; t++)
				a += ((const int16_t *)(const void *)
				      (rows + sstride * t))[e] * k[t];
			a = (a + ROUND_V) >> SHIFT_V;
			d[e] = (uint8_t)(a < 0 ? 0 : a > 255 ? 255 : a);
		}
	}
}

SSE41 static void u8_hwc_sse41(const uint8_t *src, size_t sstride,
			       uint32_t w, uint32_t h, uint8_t *out)
{
	const __m128i drop = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12,
					   13, 14, -1, -1, -1, -1);
	const size_t total = (size_t)w * h * 3;
	size_t o = 0;

	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;
		uint32_t x = 0;

		/* a 16-byte store writes 4 bytes past the 12 it means */
		for (; x + 4 <= w && o + 16 <= total; x += 4, o += 12) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + x * 4));

			_mm_storeu_si128((__m128i *)(void *)(out + o),
					 _mm_shuffle_epi8(v, drop));
		}
		for (; x < w; x++, o += 3) {
			out[o] = s[x * 4];
			out[o + 1] = s[x * 4 + 1];
			out[o + 2] = s[x * 4 + 2];
		}
	}
}

SSE41 static void f32_chw_sse41(const uint8_t *src, size_t sstride,
				uint32_t w, uint32_t h, const float *scale,
				const float *bias, float *out)
{
	const size_t plane = (size_t)w * h;
	const __m128i m = _mm_set1_epi32(0xff);
	const __m128 s0 = _mm_set1_ps(scale[0]), s1 = _mm_set1_ps(scale[1]),
		     s2 = _mm_set1_ps(scale[2]), b0 = _mm_set1_ps(bias[0]),
		     b1 = _mm_set1_ps(bias[1]), b2 = _mm_set1_ps(bias[2]);

	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;
		float *o = out + (size_t)w * y;
		uint32_t x = 0;

		for (; x + 4 <= w; x += 4) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + x * 4));
			__m128 r = _mm_cvtepi32_ps(_mm_and_si128(v, m));
			__m128 g = _mm_cvtepi32_ps(_mm_and_si128(_mm_srli_epi32(v, 8), m));
			__m128 b = _mm_cvtepi32_ps(_mm_and_si128(_mm_srli_epi32(v, 16), m));

			_mm_storeu_ps(o + x, _mm_add_ps(_mm_mul_ps(r, s0), b0));
			_mm_storeu_ps(o + plane + x, _mm_add_ps(_mm_mul_ps(g, s1), b1));
			_mm_storeu_ps(o + 2 * plane + x, _mm_add_ps(_mm_mul_ps(b, s2), b2));
		}
		for (; x < w; x++)
			for (int c = 0; c < 3; c++)
				o[c * plane + x] = (float)s[x * 4 + c] * scale[c] +
						   bias[c];
	}
}

const struct aug_kernels aug_kernels_sse41 = {
	.isa = AUG_ISA_SSE41,
	.hpass = hpass_sse41,
	.vpass = vpass_sse41,
	.f32_chw = f32_chw_sse41,
	.f16_chw = NULL,
	.bf16_chw = NULL,
	.u8_hwc = u8_hwc_sse41,
};

/* ---- AVX2 ---- */

/* 4 RGBX pixels: lane 0 pairs pixels 0,1, lane 1 pairs pixels 2,3 */
#define HPAIRS_AVX2 _mm256_setr_epi8( \
	0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1, \
	8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1)

/* Coefficients t..t+3 of one output: lane 0 (k0,k1) x4, lane 1 (k2,k3) x4 */
AVX2 static inline __m256i hcoef4(const int16_t *k)
{
	return _mm256_permutevar8x32_epi32(
		_mm256_castsi128_si256(_mm_loadl_epi64(
			(const __m128i *)(const void *)k)),
		_mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
}

/* Products of 4 source pixels at p with the coefficient vector c */
AVX2 static inline __m256i hmadd4(const uint8_t *p, __m256i c)
{
	__m256i v = _mm256_broadcastsi128_si256(
		_mm_loadu_si128((const __m128i *)(const void *)p));

	return _mm256_madd_epi16(_mm256_shuffle_epi8(v, HPAIRS_AVX2), c);
}

/*
 * Two rows at a time share each coefficient vector, and two outputs at a
 * time share the lane reduction, rounding and the store: the sums of
 * outputs a and b are regrouped as [a.lane0 | b.lane0] + [a.lane1 |
 * b.lane1], then both rows of both outputs are packed at once.
 */
AVX2 static void hpass_avx2(const uint8_t *src, size_t sstride,
			    uint32_t rows, const struct aug_axis *ax,
			    int32_t base, int16_t *dst, size_t dstride,
			    bool flip)
{
	const __m256i rnd = _mm256_set1_epi32(ROUND_H);
	const uint32_t taps = ax->taps, n = ax->out_n;
	uint32_t r = 0;

	for (; r + 2 <= rows; r += 2) {
		const uint8_t *s0 = src + sstride * r, *s1 = s0 + sstride;
		uint8_t *d0 = (uint8_t *)dst + dstride * r, *d1 = d0 + dstride;
		uint32_t i = 0;

		for (; i + 2 <= n; i += 2) {
			const size_t oa = (size_t)(ax->first[i] - base) * 4;
			const size_t ob = (size_t)(ax->first[i + 1] - base) * 4;
			const int16_t *ka = ax->k + (size_t)i * taps;
			const int16_t *kb = ka + taps;
			__m256i a0 = _mm256_setzero_si256(), a1 = a0, b0 = a0,
				b1 = a0, x0, x1;
			size_t at;

			for (uint32_t t = 0; t < taps; t += 4) {
				const __m256i ca = hcoef4(ka + t), cb = hcoef4(kb + t);

				a0 = _mm256_add_epi32(a0, hmadd4(s0 + oa + t * 4, ca));
				a1 = _mm256_add_epi32(a1, hmadd4(s1 + oa + t * 4, ca));
				b0 = _mm256_add_epi32(b0, hmadd4(s0 + ob + t * 4, cb));
				b1 = _mm256_add_epi32(b1, hmadd4(s1 + ob + t * 4, cb));
			}
			/* row 0: [a | b] sums, row 1 likewise */
			x0 = _mm256_add_epi32(_mm256_permute2x128_si256(a0, b0, 0x20),
					      _mm256_permute2x128_si256(a0, b0, 0x31));
			x1 = _mm256_add_epi32(_mm256_permute2x128_si256(a1, b1, 0x20),
					      _mm256_permute2x128_si256(a1, b1, 0x31));
			x0 = _mm256_srai_epi32(_mm256_add_epi32(x0, rnd), SHIFT_H);
			x1 = _mm256_srai_epi32(_mm256_add_epi32(x1, rnd), SHIFT_H);
			/* qwords: a.row0, a.row1 | b.row0, b.row1 */
			x0 = _mm256_packs_epi32(x0, x1);
			if (!flip) {
				/* a then b, at columns i, i+1 */
				x0 = _mm256_permute4x64_epi64(x0, _MM_SHUFFLE(3, 1, 2, 0));
				at = (size_t)i * 8;
			} else {
				/* b then a, at columns n-2-i, n-1-i */
				x0 = _mm256_permute4x64_epi64(x0, _MM_SHUFFLE(1, 3, 0, 2));
				at = (size_t)(n - 2 - i) * 8;
			}
			_mm_storeu_si128((__m128i *)(void *)(d0 + at),
					 _mm256_castsi256_si128(x0));
			_mm_storeu_si128((__m128i *)(void *)(d1 + at),
					 _mm256_extracti128_si256(x0, 1));
		}
		for (; i < n; i++) {
			const size_t off = (size_t)(ax->first[i] - base) * 4;
			const int16_t *k = ax->k + (size_t)i * taps;
			__m256i a0 = _mm256_setzero_si256(), a1 = a0;
			__m128i x0, x1;
			uint32_t o = flip ? n - 1 - i : i;

			for (uint32_t t = 0; t < taps; t += 4) {
				const __m256i c = hcoef4(k + t);

				a0 = _mm256_add_epi32(a0, hmadd4(s0 + off + t * 4, c));
				a1 = _mm256_add_epi32(a1, hmadd4(s1 + off + t * 4, c));
			}
			x0 = _mm_add_epi32(_mm256_castsi256_si128(a0),
					   _mm256_extracti128_si256(a0, 1));
			x1 = _mm_add_epi32(_mm256_castsi256_si128(a1),
					   _mm256_extracti128_si256(a1, 1));
			x0 = _mm_srai_epi32(_mm_add_epi32(x0,
				_mm_set1_epi32(ROUND_H)), SHIFT_H);
			x1 = _mm_srai_epi32(_mm_add_epi32(x1,
				_mm_set1_epi32(ROUND_H)), SHIFT_H);
			x0 = _mm_packs_epi32(x0, x1);
			_mm_storel_epi64((__m128i *)(void *)(d0 + (size_t)o * 8), x0);
			_mm_storeh_pd((double *)(void *)(d1 + (size_t)o * 8),
				      _mm_castsi128_pd(x0));
		}
	}
	if (r < rows)
		hpass_sse41(src + sstride * r, sstride, rows - r, ax, base,
			    (int16_t *)(void *)((uint8_t *)dst + dstride * r),
			    dstride, flip);
}

AVX2 static void vpass_avx2(const int16_t *src, size_t sstride,
			    const struct aug_axis *ay, int32_t base,
			    uint32_t n16, uint8_t *dst, size_t dstride)
{
	const __m256i rnd = _mm256_set1_epi32(ROUND_V);
	const uint32_t taps = ay->taps;

	for (uint32_t j = 0; j < ay->out_n; j++) {
		const int16_t *k = ay->k + (size_t)j * taps;
		const uint8_t *rows = (const uint8_t *)src +
			sstride * (size_t)(ay->first[j] - base);
		uint8_t *d = dst + dstride * j;
		uint32_t e = 0;

		for (; e + 16 <= n16; e += 16) {
			__m256i lo = _mm256_setzero_si256(), hi = lo;

			for (uint32_t t = 0; t < taps; t += 2) {
				const uint8_t *ra = rows + sstride * t + e * 2;
				__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)ra);
				__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(ra + sstride));
				__m256i c = _mm256_set1_epi32(load_pair(k + t));

				lo = _mm256_add_epi32(lo, _mm256_madd_epi16(
					_mm256_unpacklo_epi16(a, b), c));
				hi = _mm256_add_epi32(hi, _mm256_madd_epi16(
					_mm256_unpackhi_epi16(a, b), c));
			}
			lo = _mm256_srai_epi32(_mm256_add_epi32(lo, rnd), SHIFT_V);
			hi = _mm256_srai_epi32(_mm256_add_epi32(hi, rnd), SHIFT_V);
			lo = _mm256_packs_epi32(lo, hi);
			lo = _mm256_packus_epi16(lo, lo);
			lo = _mm256_permute4x64_epi64(lo, _MM_SHUFFLE(3, 1, 2, 0));
			_mm_storeu_si128((__m128i *)(void *)(d + e),
					 _mm256_castsi256_si128(lo));
		}
		for (; e < n16; e++) {
			int32_t a = 0;

			for (uint32_t t = 0; t < taps; t++)
				a += ((const int16_t *)(const void *)
				      (rows + sstride * t))[e] * k[t];
			a = (a + ROUND_V) >> SHIFT_V;
			d[e] = (uint8_t)(a < 0 ? 0 : a > 255 ? 255 : a);
		}
	}
}

/* Normalize constants in registers (no arrays: they would live on the
 * stack and every use would be a load and a store). */
struct norm_avx2 {
	__m256 s0, s1, s2, b0, b1, b2;
};

AVX2 static inline struct norm_avx2 norm_setup(const float *scale,
						const float *bias)
{
	return (struct norm_avx2){
		_mm256_set1_ps(scale[0]), _mm256_set1_ps(scale[1]),
		_mm256_set1_ps(scale[2]), _mm256_set1_ps(bias[0]),
		_mm256_set1_ps(bias[1]), _mm256_set1_ps(bias[2]),
	};
}

/* 8 RGBX pixels -> 8 normalized floats per channel */
#define NORM8(p, n, r, g, b) do { \
	const __m256i m_ = _mm256_set1_epi32(0xff); \
	__m256i v_ = _mm256_loadu_si256((const __m256i *)(const void *)(p)); \
	r = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps( \
		_mm256_and_si256(v_, m_)), (n).s0), (n).b0); \
	g = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps( \
		_mm256_and_si256(_mm256_srli_epi32(v_, 8), m_)), (n).s1), (n).b1); \
	b = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps( \
		_mm256_and_si256(_mm256_srli_epi32(v_, 16), m_)), (n).s2), (n).b2); \
} while (0)

AVX2 static void f32_chw_avx2(const uint8_t *src, size_t sstride,
			      uint32_t w, uint32_t h, const float *scale,
			      const float *bias, float *out)
{
	const size_t plane = (size_t)w * h;
	const struct norm_avx2 n = norm_setup(scale, bias);

	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;
		float *o = out + (size_t)w * y;
		uint32_t x = 0;

		for (; x + 8 <= w; x += 8) {
			__m256 r, g, b;

			NORM8(s + x * 4, n, r, g, b);
			_mm256_storeu_ps(o + x, r);
			_mm256_storeu_ps(o + plane + x, g);
			_mm256_storeu_ps(o + 2 * plane + x, b);
		}
		for (; x < w; x++)
			for (int c = 0; c < 3; c++)
				o[c * plane + x] = (float)s[x * 4 + c] * scale[c] +
						   bias[c];
	}
}

AVX2 static inline __m128i to_f16(__m256 v)
{
	return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

AVX2 static void f16_chw_avx2(const uint8_t *src, size_t sstride,
			      uint32_t w, uint32_t h, const float *scale,
			      const float *bias, uint16_t *out)
{
	const size_t plane = (size_t)w * h;
	const struct norm_avx2 n = norm_setup(scale, bias);

	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;
		uint16_t *o = out + (size_t)w * y;
		uint32_t x = 0;

		for (; x + 8 <= w; x += 8) {
			__m256 r, g, b;

			NORM8(s + x * 4, n, r, g, b);
			_mm_storeu_si128((__m128i *)(void *)(o + x), to_f16(r));
			_mm_storeu_si128((__m128i *)(void *)(o + plane + x), to_f16(g));
			_mm_storeu_si128((__m128i *)(void *)(o + 2 * plane + x),
					 to_f16(b));
		}
		for (; x < w; x++)
			for (int c = 0; c < 3; c++)
				o[c * plane + x] = aug_f32_to_f16(
					(float)s[x * 4 + c] * scale[c] + bias[c]);
	}
}

/* round to nearest even on the top 16 bits (values here are finite) */
AVX2 static inline __m128i to_bf16(__m256 v)
{
	__m256i b = _mm256_castps_si256(v);
	__m256i lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16),
				       _mm256_set1_epi32(1));

	b = _mm256_add_epi32(b, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
	b = _mm256_srli_epi32(b, 16);
	b = _mm256_packus_epi32(b, b);
	b = _mm256_permute4x64_epi64(b, _MM_SHUFFLE(3, 1, 2, 0));
	return _mm256_castsi256_si128(b);
}

AVX2 static void bf16_chw_avx2(const uint8_t *src, size_t sstride,
			       uint32_t w, uint32_t h, const float *scale,
			       const float *bias, uint16_t *out)
{
	const size_t plane = (size_t)w * h;
	const struct norm_avx2 n = norm_setup(scale, bias);

	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + sstride * y;
		uint16_t *o = out + (size_t)w * y;
		uint32_t x = 0;

		for (; x + 8 <= w; x += 8) {
			__m256 r, g, b;

			NORM8(s + x * 4, n, r, g, b);
			_mm_storeu_si128((__m128i *)(void *)(o + x), to_bf16(r));
			_mm_storeu_si128((__m128i *)(void *)(o + plane + x), to_bf16(g));
			_mm_storeu_si128((__m128i *)(void *)(o + 2 * plane + x),
					 to_bf16(b));
		}
		for (; x < w; x++)
			for (int c = 0; c < 3; c++)
				o[c * plane + x] = aug_f32_to_bf16(
					(float)s[x * 4 + c] * scale[c] + bias[c]);
	}
}

const struct aug_kernels aug_kernels_avx2 = {
	.isa = AUG_ISA_AVX2,
	.hpass = hpass_avx2,
	.vpass = vpass_avx2,
	.f32_chw = f32_chw_avx2,
	.f16_chw = f16_chw_avx2,
	.bf16_chw = bf16_chw_avx2,
	.u8_hwc = u8_hwc_sse41,
};

int aug_isa_supported(enum aug_isa isa)
{
	unsigned eax, ebx, ecx, edx;

	__builtin_cpu_init();
	switch (isa) {
	case AUG_ISA_AUTO:
	case AUG_ISA_PORTABLE:
		return 1;
	case AUG_ISA_SSE41:
		return __builtin_cpu_supports("ssse3") &&
		       __builtin_cpu_supports("sse4.1");
	case AUG_ISA_AVX2:
		/* F16C from CPUID leaf 1 (ECX bit 29): clang before 15
		 * does not know "f16c" in __builtin_cpu_supports */
		return __builtin_cpu_supports("avx2") &&
		       __get_cpuid(1, &eax, &ebx, &ecx, &edx) &&
		       (ecx & bit_F16C);
	}
	return 0;
}

#else /* not x86 */

const struct aug_kernels aug_kernels_sse41 = { .isa = AUG_ISA_SSE41 };
const struct aug_kernels aug_kernels_avx2 = { .isa = AUG_ISA_AVX2 };

int aug_isa_supported(enum aug_isa isa)
{
	return isa == AUG_ISA_AUTO || isa == AUG_ISA_PORTABLE;
}

#endif

/* Kernel sets, best first; each is checked against the CPU before use. */
static const struct aug_kernels *const kernel_sets[] = {
	&aug_kernels_avx2,
	&aug_kernels_sse41,
	&aug_kernels_portable,
};

const struct aug_kernels *aug_kernels_get(enum aug_isa isa)
{
	for (size_t i = 0; i < sizeof(kernel_sets) / sizeof(kernel_sets[0]); i++) {
		const struct aug_kernels *k = kernel_sets[i];

		if ((isa == AUG_ISA_AUTO || isa == k->isa) &&
		    aug_isa_supported(k->isa))
			return k;
	}
	return NULL;
}

const char *aug_isa_name(enum aug_isa isa)
{
	switch (isa) {
	case AUG_ISA_AUTO:
		return "auto";
	case AUG_ISA_PORTABLE:
		return "portable";
	case AUG_ISA_SSE41:
		return "sse4.1";
	case AUG_ISA_AVX2:
		return "avx2";
	}
	return "?";
}
