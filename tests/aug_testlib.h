/*
 * aug_testlib.h - helpers for the augment tests: synthetic photographs,
 * JPEG encoding, fixture loading and a double-precision reference resize.
 * Header-only (static inline) so each test file stays self-contained.
 */
#ifndef FEEDRATE_AUG_TESTLIB_H
#define FEEDRATE_AUG_TESTLIB_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augment.h"

#ifndef AUG_FIXTURE_DIR
#define AUG_FIXTURE_DIR "tests/fixtures/jpeg"
#endif

static inline uint32_t tl_lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/*
 * A w x h RGB test picture with photo-like structure: smooth gradients,
 * a few sharp-edged shapes, fine texture and a little noise, so that
 * chroma upsampling, edges and flat areas are all exercised.
 */
static inline uint8_t *tl_make_rgb(uint32_t w, uint32_t h, uint32_t seed)
{
	uint8_t *p = malloc((size_t)w * h * 3);
	uint32_t s = seed * 2654435761u + 1;
	double cx = w * (0.3 + 0.4 * (tl_lcg(&s) % 1000) / 1000.0);
	double cy = h * (0.3 + 0.4 * (tl_lcg(&s) % 1000) / 1000.0);
	double rad = (w < h ? w : h) * 0.25;
	double f1 = 0.02 + (tl_lcg(&s) % 100) / 2000.0;

	if (!p)
		return NULL;
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++) {
			double gx = (double)x / w, gy = (double)y / h;
			double r = 60 + 140 * gx + 30 * sin(x * f1 + y * 0.013);
			double g = 50 + 120 * gy + 25 * cos(y * f1 * 1.7);
			double b = 90 + 80 * (1 - gx) * gy;
			double dx = x - cx, dy = y - cy;
			uint8_t *q = p + ((size_t)y * w + x) * 3;

			if (dx * dx + dy * dy < rad * rad) {  /* a red disc */
				r = 220;
				g = 40 + 20 * gy;
				b = 30;
			}
			if ((x / 24 + y / 24) % 7 == 0) {     /* dark tiles */
				r *= 0.4;
				g *= 0.4;
				b *= 0.5;
			}
			r += (double)(tl_lcg(&s) % 9) - 4;
			g += (double)(tl_lcg(&s) % 9) - 4;
			b += (double)(tl_lcg(&s) % 9) - 4;
			q[0] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
			q[1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
			q[2] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
		}
	}
	return p;
}

/* Encodes a synthetic picture; returns 0 and fills *out (caller frees). */
static inline int tl_make_jpeg(uint32_t w, uint32_t h, uint32_t seed,
			       enum aug_enc_subsamp ss, int quality,
			       bool progressive, struct aug_membuf *out)
{
	struct aug_enc_params ep = {
		.quality = quality, .subsamp = ss, .progressive = progressive,
		.optimize = false,
	};
	uint8_t *rgb = tl_make_rgb(w, h, seed);
	int err;

	if (!rgb)
		return -1;
	err = aug_jpeg_encode(rgb, w, h, (size_t)w * 3, AUG_ENC_RGB, &ep, out);
	free(rgb);
	return err;
}

/* Reads a whole file; returns malloc'd bytes (NULL if missing). */
static inline uint8_t *tl_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else if (buf) {
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

static inline uint8_t *tl_fixture(const char *name, size_t *len)
{
	char path[512];

	uint8_t *b;

	snprintf(path, sizeof(path), "%s/%s", AUG_FIXTURE_DIR, name);
	b = tl_read_file(path, len);
	if (!b)
		fprintf(stderr, "fixture %s not found: run the tests from the "
			"repository root\n", path);
	return b;
}

/* Copy of a view into a tightly packed malloc'd RGBX buffer. */
static inline uint8_t *tl_copy_view(const struct aug_view *v)
{
	uint8_t *p = malloc((size_t)v->width * v->height * 4 + 16);

	if (!p)
		return NULL;
	for (uint32_t y = 0; y < v->height; y++)
		memcpy(p + (size_t)y * v->width * 4, v->data + v->stride * y,
		       (size_t)v->width * 4);
	return p;
}

static inline double tl_tri(double x)
{
	x = fabs(x);
	return x < 1.0 ? 1.0 - x : 0.0;
}

/*
 * Straightforward reference: PIL's antialiased bilinear in double, both
 * passes unrounded, one rounding at the end. Resizes box
 * [bx, bx+bw) x [by, by+bh) of the packed RGBX image (sw wide) to
 * ow x oh, only pixels inside [floor(b), ceil(b+bw)) contributing.
 */
static inline void tl_ref_axis(double b0, double bw, uint32_t out,
			       uint32_t i, int32_t *lo, int32_t *n,
			       double *wt)
{
	double scale = bw / out, fs = scale > 1 ? scale : 1;
	double center = b0 + (i + 0.5) * scale, sum = 0;
	int32_t cl = (int32_t)floor(b0), ch = (int32_t)ceil(b0 + bw);
	int32_t a = (int32_t)floor(center - fs + 0.5);
	int32_t z = (int32_t)floor(center + fs + 0.5);

	if (a < cl)
		a = cl;
	if (z > ch)
		z = ch;
	for (int32_t x = a; x < z; x++)
		sum += wt[x - a] = tl_tri((x - center + 0.5) / fs);
	for (int32_t x = a; x < z; x++)
		wt[x - a] /= sum;
	*lo = a;
	*n = z - a;
}

static inline void tl_ref_resize(const uint8_t *src, uint32_t sw,
				 double bx, double by, double bw, double bh,
				 uint32_t ow, uint32_t oh, uint8_t *dst)
{
	double *wx = malloc(sizeof(double) * 4096);
	double *wy = malloc(sizeof(double) * 4096);

	for (uint32_t j = 0; j < oh; j++) {
		int32_t ylo, yn;

		tl_ref_axis(by, bh, oh, j, &ylo, &yn, wy);
		for (uint32_t i = 0; i < ow; i++) {
			int32_t xlo, xn;
			double acc[3] = { 0, 0, 0 };

			tl_ref_axis(bx, bw, ow, i, &xlo, &xn, wx);
			for (int32_t y = 0; y < yn; y++)
				for (int32_t x = 0; x < xn; x++)
					for (int c = 0; c < 3; c++)
						acc[c] += wy[y] * wx[x] * src[
							((size_t)(ylo + y) * sw +
							 (size_t)(xlo + x)) * 4 + c];
			for (int c = 0; c < 3; c++) {
				double v = floor(acc[c] + 0.5);

				dst[((size_t)j * ow + i) * 4 + c] =
					(uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
			}
			dst[((size_t)j * ow + i) * 4 + 3] = 255;
		}
	}
	free(wx);
	free(wy);
}

#endif /* FEEDRATE_AUG_TESTLIB_H */
