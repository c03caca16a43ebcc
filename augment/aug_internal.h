/*
 * aug_internal.h - structures shared by the files of augment/ (decoder,
 * resize, kernels, transforms). Not part of the module's public API; tests
 * include it to force a kernel set or inspect coefficient tables.
 */
#ifndef FEEDRATE_AUG_INTERNAL_H
#define FEEDRATE_AUG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "augment.h"

/*
 * Fixed-point formats of the resize (see aug_resize.c):
 * coefficients are Q14 (16384 = 1.0) and sum to exactly 16384 per output;
 * the horizontal pass keeps AUG_MID_FRAC fractional bits in int16 (255 <<
 * 7 = 32640 fits), the vertical pass rounds back to 8 bits.
 */
#define AUG_COEF_BITS 14
#define AUG_MID_FRAC 7

/* Horizontal taps are padded to a multiple of this (AVX2: 4 px/step). */
#define AUG_HTAP_MULT 4
/* Vertical taps are padded to a multiple of this (rows go in pairs). */
#define AUG_VTAP_MULT 2

/*
 * Resize coefficients of one axis. Output i reads inputs
 * [first[i], first[i] + taps) with weights k[i * taps ...] (zeros pad the
 * tail or the head). Indices are in the source's absolute coordinates.
 * Inputs with a non-zero weight lie in [lo, hi); the kernels read
 * [lo, read_hi), and read_hi > hi only when the box is narrower than the
 * padded taps (the source then needs zero padding).
 */
struct aug_axis {
	uint32_t out_n;       /* outputs */
	uint32_t taps;        /* taps per output, padded */
	int32_t lo, hi;       /* inputs used, see above */
	int32_t read_hi;      /* end of the inputs the kernels read */
	int32_t *first;       /* [out_n] */
	int16_t *k;           /* [out_n * taps], Q14 */
	double *w;            /* scratch: one window's weights */
	size_t cap_out, cap_k, cap_w;
};

/* What an axis table is computed from (the cache key). */
struct aug_axis_key {
	double box0, boxw;       /* source box, fractional source pixels */
	int32_t clamp_lo, clamp_hi;  /* inputs allowed: [clamp_lo, clamp_hi) */
	uint32_t out_total;      /* output size of the whole box */
	uint32_t out_first, out_n;   /* the slice of outputs wanted */
	uint32_t tap_mult;
};

/*
 * Computes `ax` for `key` (PIL's bilinear filter: triangle of support
 * max(scale, 1), weights normalized, Q14 with the rounding error put on
 * the largest tap). 0 or -ENOMEM / -EINVAL.
 */
int aug_axis_compute(struct aug_axis *ax, const struct aug_axis_key *key);
void aug_axis_free(struct aug_axis *ax);

/*
 * A kernel set (static ops table, one per ISA). Rows are RGBX (4 bytes
 * per pixel); the intermediate is int16 RGBX with AUG_MID_FRAC bits.
 *  hpass:  `rows` source rows, source index first[i] - base; output pixel
 *          i goes to column (flip ? out_n-1-i : i).
 *  vpass:  output row j from intermediate rows first[j] - base ..; n16 is
 *          the number of int16 per row (4 * width).
 *  f32/f16/bf16_chw: normalize w*h RGBX pixels into 3 planes with
 *          out = px * scale[c] + bias[c] (float mul then add, never fused,
 *          so every kernel set gives identical bits).
 *  u8_hwc: drop X.
 */
struct aug_kernels {
	enum aug_isa isa;
	void (*hpass)(const uint8_t *src, size_t sstride, uint32_t rows,
		      const struct aug_axis *ax, int32_t base, int16_t *dst,
		      size_t dstride, bool flip);
	void (*vpass)(const int16_t *src, size_t sstride,
		      const struct aug_axis *ay, int32_t base, uint32_t n16,
		      uint8_t *dst, size_t dstride);
	void (*f32_chw)(const uint8_t *src, size_t sstride, uint32_t w,
			uint32_t h, const float *scale, const float *bias,
			float *out);
	void (*f16_chw)(const uint8_t *src, size_t sstride, uint32_t w,
			uint32_t h, const float *scale, const float *bias,
			uint16_t *out);
	void (*bf16_chw)(const uint8_t *src, size_t sstride, uint32_t w,
			 uint32_t h, const float *scale, const float *bias,
			 uint16_t *out);
	void (*u8_hwc)(const uint8_t *src, size_t sstride, uint32_t w,
		       uint32_t h, uint8_t *out);
};

extern const struct aug_kernels aug_kernels_portable;
extern const struct aug_kernels aug_kernels_sse41;
extern const struct aug_kernels aug_kernels_avx2;

/* Kernel set for `isa` (AUTO = best supported), NULL if unsupported. */
const struct aug_kernels *aug_kernels_get(enum aug_isa isa);

/* The portable kernels, also used for the tails of vector loops. */
void aug_hpass_c(const uint8_t *src, size_t sstride, uint32_t rows,
		 const struct aug_axis *ax, int32_t base, int16_t *dst,
		 size_t dstride, bool flip);
void aug_vpass_c(const int16_t *src, size_t sstride,
		 const struct aug_axis *ay, int32_t base, uint32_t n16,
		 uint8_t *dst, size_t dstride);

/*
 * Converts an RGBX image to dtype/layout with kernel set k (normalizing
 * float types: px * scale[c] + bias[c]); out holds 3 * w * h elements.
 */
void aug_convert_with(const struct aug_kernels *k, enum aug_dtype dt,
		      enum aug_layout lay, const float *scale,
		      const float *bias, const struct aug_view *src, void *out);

/* Monotonic nanoseconds (vDSO clock_gettime: tens of ns). */
static inline uint64_t aug_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Grows *buf to at least `need` bytes (aligned to 64); 0 or -ENOMEM. */
int aug_scratch_reserve(void **buf, size_t *cap, size_t need);

/*
 * Decoded RGBX rows, shared by both formats of a decoder and grown to the
 * largest window seen: row[i] = pix + stride * i.
 */
struct aug_rows {
	uint8_t *pix;
	size_t pix_cap;
	uint8_t **row;
	size_t row_cap;
};

/* Bytes between rows of `width` RGBX pixels, slack and alignment added. */
size_t aug_rows_stride(uint32_t width);

/*
 * Makes `n` rows of `stride` bytes (plus slack after the last, which the
 * kernels read times a zero weight) and points row[0..n) at them.
 * 0 or -ENOMEM.
 */
int aug_rows_reserve(struct aug_rows *r, size_t stride, uint32_t n);

/*
 * The PNG decoder inside an aug_decoder (aug_png.c). Errors and limits
 * are written as text to the decoder's message buffer given at creation.
 */
struct aug_png;

/* 0 or -ENOMEM; msg[0..msg_len) receives error texts. */
int aug_png_create(char *msg, size_t msg_len, struct aug_png **out);

/* Frees everything; accepts NULL. */
void aug_png_destroy(struct aug_png *p);

/*
 * Reads the PNG header of buf[0..len) (kept until aug_png_read or
 * aug_png_close) and fills *info (may be NULL). Checks the pixel cap and
 * a side limit. 0 or a -AUG_E* code / -ENOMEM (the image is then closed).
 */
int aug_png_open(struct aug_png *p, const void *buf, size_t len,
		 uint64_t max_pixels, struct aug_image_info *info);

/*
 * Decodes window `win` (already checked to lie inside the image) of the
 * open image into `rows` and closes the image. The view holds exactly
 * `win`. 0 or a -AUG_E* code / -ENOMEM / -EINVAL (no image open).
 */
int aug_png_read(struct aug_png *p, const struct aug_rect *win,
		 struct aug_rows *rows, struct aug_view *out);

/* Abandons the open image, if any; accepts NULL. */
void aug_png_close(struct aug_png *p);

/*
 * For tests: the bytes of the arena libpng's allocations come from, and
 * how many allocations have not fitted in it (spilled to malloc) since
 * the decoder was created. Zero for a decoder that never opened a PNG.
 */
void aug_png_heap(const struct aug_png *p, size_t *arena, uint64_t *spills);

/* The decoder's PNG state, NULL until it has opened a PNG. */
const struct aug_png *aug_decoder_png(const struct aug_decoder *d);

/* Resize engine state kept per context (aug_resize.c). */
struct aug_resizer;
int aug_resizer_create(const struct aug_kernels *k, struct aug_resizer **out);
void aug_resizer_destroy(struct aug_resizer *r);

/* A cached axis table for `key`; NULL on -ENOMEM/-EINVAL (*err set). */
const struct aug_axis *aug_resizer_axis(struct aug_resizer *r,
					const struct aug_axis_key *key,
					int *err);

/*
 * Runs both passes: source RGBX view whose pixel (0,0) is the absolute
 * pixel (x0, y0) of the axis coordinates; writes ay->out_n rows of
 * ax->out_n pixels to dst. Pads a copy of the source when the tables
 * read past it. 0 or -ENOMEM/-EINVAL.
 */
int aug_resizer_run(struct aug_resizer *r, const struct aug_view *src,
		    int32_t x0, int32_t y0, const struct aug_axis *ax,
		    const struct aug_axis *ay, const struct aug_view *dst,
		    bool flip);

#endif /* FEEDRATE_AUG_INTERNAL_H */
