/*
 * aug_volume.c - a 3-D training sample from an array in memory (formats/
 * located it: fmt_npy.h): a random crop with flips on each axis, float
 * output; and cosmoflow's log(1 + x).
 *
 * DESIGN: an aug_vol belongs to one worker thread: it keeps the crop
 * scratch. The crop runs in two passes: rows are copied (reversed when
 * flipped on W) in the array's own dtype into the scratch, aligned, with
 * whole rows or planes of zeros where the crop leaves the volume; then one
 * contiguous conversion to float. Neither pass branches per voxel. For
 * f32 arrays the rows go straight into the output. Results depend only on
 * the bytes and the crop, never on the thread. The log1p table is built
 * once (pthread_once) and only read after.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "aug_internal.h"

struct aug_vol {
	uint8_t *scratch;       /* crop in the array's dtype */
	size_t scratch_cap;
};

int aug_vol_create(struct aug_vol **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void aug_vol_destroy(struct aug_vol *v)
{
	if (!v)
		return;
	free(v->scratch);
	free(v);
}

/* Grows *BUF to at least N bytes (never shrinks). */
static int grow(uint8_t **buf, size_t *cap, size_t n)
{
	uint8_t *p;

	if (n <= *cap)
		return 0;
	p = realloc(*buf, n);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

/* A uniform integer in [0, n] (Lemire's multiply, no rejection: the bias
 * is below 2^-40 for any volume). */
static uint64_t below_incl(struct aug_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)aug_rng_next(r) * (n + 1)) >>
			  64);
}

void aug_vol_crop_draw(const uint64_t dims[3], const uint32_t size[3],
		       bool flip, uint64_t seed, uint64_t epoch, uint64_t id,
		       struct aug_vol_crop *out)
{
	struct aug_rng r;

	aug_rng_seed(&r, seed, epoch, id);
	for (unsigned k = 0; k < 3; k++) {
		const uint64_t d = dims[k], s = size[k];

		out->size[k] = size[k];
		out->start[k] = d >= s ? (int64_t)below_incl(&r, d - s) :
				-(int64_t)below_incl(&r, s - d);
	}
	for (unsigned k = 0; k < 3; k++)
		out->flip[k] = flip && aug_rng_uniform(&r) < 0.5;
}

/* The output indices of one axis that read inside [0, dim). */
static void axis_span(uint64_t dim, uint32_t size, int64_t start, bool flip,
		      uint64_t *lo, uint64_t *hi)
{
	/* unflipped, i reads start + i; flipped, start + size - 1 - i: the
	 * same span mirrored */
	const int64_t a = -start;                     /* first i inside */
	const int64_t z = (int64_t)dim - start;       /* first i past it */
	int64_t l = a < 0 ? 0 : a, h = z > (int64_t)size ? (int64_t)size : z;

	if (h < l)
		h = l;
	if (flip) {
		const int64_t fl = (int64_t)size - h, fh = (int64_t)size - l;

		l = fl;
		h = fh;
	}
	*lo = (uint64_t)l;
	*hi = (uint64_t)h;
}

/* Volume index of output index I on an axis. */
static uint64_t axis_src(const struct aug_vol_crop *c, unsigned k, uint64_t i)
{
	return (uint64_t)(c->start[k] + (int64_t)(c->flip[k] ?
					  c->size[k] - 1 - i : i));
}

/*
 * The two inner loops, N elements each: a row copied last element first
 * (a flip on W), and the scratch converted to float. Baseline x86-64 has
 * SSE2 and GCC does not vectorize either loop at -O2 (nor the byte
 * reverse at all without SSSE3's pshufb), so SSE2 is spelt out; other
 * targets get the plain loops. Loads and stores go through memcpy: no
 * alignment is assumed.
 */
#if defined(__SSE2__)
#include <emmintrin.h>

static __m128i ld(const void *p)
{
	__m128i v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void st(void *p, __m128i v)
{
	memcpy(p, &v, sizeof(v));
}

static void stf(float *p, __m128 v)
{
	memcpy(p, &v, sizeof(v));
}

/* 16 bytes in reverse order: dwords, then words in them, then bytes */
static __m128i rev8(__m128i v)
{
	v = _mm_shuffle_epi32(v, 0x1b);
	v = _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xb1), 0xb1);
	return _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
}

static __m128i rev16(__m128i v)
{
	v = _mm_shuffle_epi32(v, 0x1b);
	return _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xb1), 0xb1);
}
#endif

/* D[i] = element (last - i) of the row whose last element is at S_LAST. */
static void copy_reversed(uint8_t *d, const uint8_t *s_last, size_t n,
			  unsigned isz)
{
	const size_t bytes = n * isz;
	size_t i = 0;

#if defined(__SSE2__)
	/* S_LAST + ISZ is the end of the source span */
	const uint8_t *end = s_last + isz;

	for (; i + 16 <= bytes; i += 16) {
		const __m128i v = ld(end - i - 16);

		st(d + i, isz == 1 ? rev8(v) : isz == 2 ? rev16(v) :
			  _mm_shuffle_epi32(v, 0x1b));
	}
#endif
	for (; i < bytes; i += isz)
		memcpy(d + i, s_last - i, isz);
}

static void to_f32(enum aug_vol_dtype dt, const void *src, float *d,
		   size_t n)
{
	const uint8_t *s = src;
	size_t i = 0;

#if defined(__SSE2__)
	const __m128i z = _mm_setzero_si128();

	switch (dt) {
	case AUG_VOL_U8:
	case AUG_VOL_I8:
		for (; i + 16 <= n; i += 16) {
			const __m128i v = ld(s + i);
			/* bytes to the high byte of each word, then of each
			 * dword; shifted down with the sign for i8 */
			const __m128i lo = _mm_unpacklo_epi8(z, v);
			const __m128i hi = _mm_unpackhi_epi8(z, v);
			const __m128i w[4] = {
				_mm_unpacklo_epi16(z, lo),
				_mm_unpackhi_epi16(z, lo),
				_mm_unpacklo_epi16(z, hi),
				_mm_unpackhi_epi16(z, hi),
			};

			for (unsigned k = 0; k < 4; k++)
				stf(d + i + 4 * k, _mm_cvtepi32_ps(
					dt == AUG_VOL_U8 ?
					_mm_srli_epi32(w[k], 24) :
					_mm_srai_epi32(w[k], 24)));
		}
		break;
	case AUG_VOL_I16:
	case AUG_VOL_U16:
		for (; i + 8 <= n; i += 8) {
			const __m128i v = ld(s + 2 * i);
			const __m128i w[2] = { _mm_unpacklo_epi16(z, v),
					       _mm_unpackhi_epi16(z, v) };

			for (unsigned k = 0; k < 2; k++)
				stf(d + i + 4 * k, _mm_cvtepi32_ps(
					dt == AUG_VOL_U16 ?
					_mm_srli_epi32(w[k], 16) :
					_mm_srai_epi32(w[k], 16)));
		}
		break;
	case AUG_VOL_F32:
		break;
	}
#endif
	/* the rest (all of it without SSE2): one loop per dtype */
#define TAIL(T) do { \
		for (; i < n; i++) { \
			T v; \
			memcpy(&v, s + sizeof(T) * i, sizeof(T)); \
			d[i] = (float)v; \
		} \
	} while (0)
	switch (dt) {
	case AUG_VOL_U8: TAIL(uint8_t); break;
	case AUG_VOL_I8: TAIL(int8_t); break;
	case AUG_VOL_I16: TAIL(int16_t); break;
	case AUG_VOL_U16: TAIL(uint16_t); break;
	case AUG_VOL_F32: TAIL(float); break;
	}
#undef TAIL
}

int aug_vol_crop_f32(struct aug_vol *v, const struct aug_vol_array *a,
		     const struct aug_vol_crop *c, float *out,
		     struct aug_vol_stats *st)
{
	const unsigned isz = a->itemsize;
	const uint64_t H = a->dims[1], W = a->dims[2];
	const size_t n0 = c->size[0], n1 = c->size[1], n2 = c->size[2];
	const size_t row = n2 * isz, plane = n1 * row;
	const size_t voxels = n0 * n1 * n2;
	const bool direct = a->dtype == AUG_VOL_F32;
	uint64_t lo[3], hi[3], t0 = aug_now_ns(), t1;
	uint8_t *dst;

	if (!n0 || !n1 || !n2)
		return -EINVAL;
	if (!direct && grow(&v->scratch, &v->scratch_cap, voxels * isz))
		return -ENOMEM;
	dst = direct ? (uint8_t *)out : v->scratch;
	for (unsigned k = 0; k < 3; k++)
		axis_span(a->dims[k], c->size[k], c->start[k], c->flip[k],
			  &lo[k], &hi[k]);

	for (size_t z = 0; z < n0; z++) {
		uint8_t *pz = dst + z * plane;
		uint64_t sz;

		if (z < lo[0] || z >= hi[0] || lo[1] == hi[1] ||
		    lo[2] == hi[2]) {
			memset(pz, 0, plane);
			continue;
		}
		sz = axis_src(c, 0, z);
		memset(pz, 0, lo[1] * row);
		memset(pz + hi[1] * row, 0, (n1 - hi[1]) * row);
		for (size_t y = lo[1]; y < hi[1]; y++) {
			uint8_t *py = pz + y * row;
			const uint8_t *src = a->data +
				((sz * H + axis_src(c, 1, y)) * W) * isz;
			const size_t n = hi[2] - lo[2];

			memset(py, 0, lo[2] * isz);
			memset(py + hi[2] * isz, 0, (n2 - hi[2]) * isz);
			if (c->flip[2])
				copy_reversed(py + lo[2] * isz,
					      src + axis_src(c, 2, lo[2]) * isz,
					      n, isz);
			else
				memcpy(py + lo[2] * isz,
				       src + axis_src(c, 2, lo[2]) * isz,
				       n * isz);
		}
	}
	t1 = aug_now_ns();
	if (!direct)
		to_f32(a->dtype, v->scratch, out, voxels);
	if (st) {
		st->crop_ns = t1 - t0;
		st->convert_ns = direct ? 0 : aug_now_ns() - t1;
	}
	return 0;
}

/* ---- cosmoflow ---- */

/* indexed by the int16's bits: the negative half stays 0 = log1p(0) */
static float log1p_table[65536];
static pthread_once_t log1p_once = PTHREAD_ONCE_INIT;

static void log1p_init(void)
{
	for (unsigned i = 0; i < 32768; i++)
		log1p_table[i] = (float)log1p((double)i);
}

void aug_log1p_i16(const void *src, size_t n, float *out)
{
	const uint8_t *s = src;

	pthread_once(&log1p_once, log1p_init);
	for (size_t i = 0; i < n; i++)
		/* little-endian on any host (one 16-bit load on x86) */
		out[i] = log1p_table[(uint16_t)(s[2 * i] | s[2 * i + 1] << 8)];
}
