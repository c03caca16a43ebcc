/*
 * bench_png.c - decode cost of PNG against JPEG for the same picture: one
 * synthetic 500x375 photograph (tests/aug_testlib.h), written as a JPEG
 * (q90 4:2:0, aug_jpeg_encode) and as a PNG (libpng's writer with its
 * defaults: zlib level 6, adaptive row filters). Single-threaded; pin it
 * with taskset.
 *
 *   bench_png [-r RUNS] [-n DECODES]
 *
 * Each run times DECODES full decodes of one format, then of the other,
 * back to back (a noisy machine slows them alike), after an untimed
 * warm-up that grows every buffer. Prints the median over the runs of:
 * ns per pixel of a full decode (aug_decoder_decode, scale 1), and ms of
 * the decode step of the train transform (aug_stats.decode_ns: header and
 * window, where a JPEG also gets ROI and DCT-scaled decode and a PNG
 * inflates every row down to the crop's last), and the PNG/JPEG ratios.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <png.h>

#include "tests/aug_testlib.h"

#define W 500u
#define H 375u

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void png_put(png_structp png, png_bytep data, size_t n)
{
	struct aug_membuf *b = png_get_io_ptr(png);

	if (b->len + n > b->cap) {
		size_t cap = (b->len + n) * 2;
		unsigned char *p = realloc(b->data, cap);

		if (!p)
			png_error(png, "out of memory");
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, n);
	b->len += n;
}

static void png_flush_none(png_structp png)
{
	(void)png;
}

/* The packed RGB picture as a PNG, libpng's default settings. */
static int write_png(const uint8_t *rgb, struct aug_membuf *out)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
						  NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;

	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return -1;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		return -1;
	}
	png_set_write_fn(png, out, png_put, png_flush_none);
	png_set_IHDR(png, info, W, H, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (uint32_t y = 0; y < H; y++)
		png_write_row(png, rgb + (size_t)y * W * 3);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Seconds for n full decodes; -1 on a decode error. */
static double time_decodes(struct aug_decoder *d, const struct aug_membuf *f,
			   int n)
{
	struct aug_view v;
	double t0 = now_s();

	for (int i = 0; i < n; i++)
		if (aug_decoder_decode(d, f->data, f->len, NULL, 1, &v))
			return -1;
	return now_s() - t0;
}

/* Mean decode step (s) of n train samples; -1 on an error. */
static double time_train_decode(struct aug_ctx *c, const struct aug_membuf *f,
				int n, void *out, uint64_t run)
{
	uint64_t ns = 0;

	for (int i = 0; i < n; i++) {
		struct aug_stats s;

		if (aug_train_sample(c, f->data, f->len, 1, run, (uint64_t)i,
				     out, &s))
			return -1;
		ns += s.decode_ns;
	}
	return (double)ns * 1e-9 / n;
}

int main(int argc, char **argv)
{
	int runs = 9, n = 100, opt;
	struct aug_membuf jpg = { 0 }, png = { 0 };
	struct aug_enc_params ep = { .quality = 90, .subsamp = AUG_ENC_420 };
	struct aug_decoder *d;
	struct aug_ctx *c;
	uint8_t *rgb;
	void *out;
	double *jd, *pd, *jt, *pt, mj, mp, tj, tp;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		if (opt == 'r')
			runs = atoi(optarg);
		else if (opt == 'n')
			n = atoi(optarg);
		else
			goto usage;
	}
	if (runs < 1 || n < 1)
		goto usage;
	rgb = tl_make_rgb(W, H, 1);
	if (!rgb || aug_jpeg_encode(rgb, W, H, (size_t)W * 3, AUG_ENC_RGB, &ep,
				    &jpg) || write_png(rgb, &png) ||
	    aug_decoder_create(NULL, &d) || aug_ctx_create(NULL, &c)) {
		fprintf(stderr, "bench_png: setup failed\n");
		return 1;
	}
	out = malloc(aug_ctx_sample_bytes(c, false));
	jd = calloc((size_t)runs * 4, sizeof(double));
	if (!out || !jd)
		return 1;
	pd = jd + runs;
	jt = pd + runs;
	pt = jt + runs;
	/* warm-up: every scratch buffer and the PNG arena reach their size */
	if (time_decodes(d, &jpg, 5) < 0 || time_decodes(d, &png, 5) < 0 ||
	    time_train_decode(c, &jpg, 5, out, 99) < 0 ||
	    time_train_decode(c, &png, 5, out, 99) < 0) {
		fprintf(stderr, "bench_png: decode failed\n");
		return 1;
	}
	for (int r = 0; r < runs; r++) {
		jd[r] = time_decodes(d, &jpg, n) * 1e9 / ((double)n * W * H);
		pd[r] = time_decodes(d, &png, n) * 1e9 / ((double)n * W * H);
		jt[r] = time_train_decode(c, &jpg, n, out, (uint64_t)r) * 1e3;
		pt[r] = time_train_decode(c, &png, n, out, (uint64_t)r) * 1e3;
	}
	mj = median(jd, runs);
	mp = median(pd, runs);
	tj = median(jt, runs);
	tp = median(pt, runs);
	printf("picture: %ux%u synthetic; JPEG q90 4:2:0 %zu bytes, PNG "
	       "(libpng defaults) %zu bytes\n", W, H, jpg.len, png.len);
	printf("median of %d runs x %d decodes\n", runs, n);
	printf("full decode   JPEG %6.2f ns/px  PNG %6.2f ns/px  PNG/JPEG "
	       "%.2f\n", mj, mp, mp / mj);
	printf("train decode  JPEG %6.3f ms/img  PNG %6.3f ms/img  PNG/JPEG "
	       "%.2f\n", tj, tp, tp / tj);
	free(jd);
	free(out);
	free(rgb);
	aug_membuf_free(&jpg);
	aug_membuf_free(&png);
	aug_decoder_destroy(d);
	aug_ctx_destroy(c);
	return 0;
usage:
	fprintf(stderr, "usage: bench_png [-r RUNS] [-n DECODES]\n");
	return 2;
}
