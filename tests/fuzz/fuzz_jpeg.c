/*
 * fuzz_jpeg.c - libFuzzer target for the JPEG decode wrapper: header read,
 * full / scaled / windowed decode, and the train and eval transforms, all
 * under small caps (pixel cap, libjpeg memory cap, scan cap) so that a
 * crafted header cannot make the fuzzer itself run out of memory. Every
 * call must return 0 or one of the documented error codes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "augment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_PIXELS (2048u * 2048u)
#define FZ_MAX_MEMORY (64u << 20)
#define FZ_MAX_SCANS 40u

static struct aug_decoder *dec;
static struct aug_ctx *ctx;
static void *sample;

static void fz_setup(void)
{
	struct aug_decoder_opts o;
	struct aug_params p;

	aug_decoder_opts_default(&o);
	o.max_pixels = FZ_MAX_PIXELS;
	o.max_memory = FZ_MAX_MEMORY;
	o.max_scans = FZ_MAX_SCANS;
	aug_params_default(&p);
	p.dec = o;
	/* a small output keeps each iteration cheap; the paths are the same */
	p.out_w = p.out_h = 32;
	p.eval_resize = 40;
	p.eval_crop = 32;
	if (aug_decoder_create(&o, &dec) || aug_ctx_create(&p, &ctx))
		abort();
	sample = malloc(aug_ctx_sample_bytes(ctx, false) +
			aug_ctx_sample_bytes(ctx, true));
	if (!sample)
		abort();
}

/* The codes the contract allows; anything else is a bug. */
static void fz_check(int err, const char *what)
{
	switch (err) {
	case 0: case -AUG_ECORRUPT: case -AUG_ETRUNCATED:
	case -AUG_EUNSUPPORTED: case -AUG_ETOOLARGE: case -AUG_ENOTJPEG:
	case -ENOMEM:
		return;
	default:
		fprintf(stderr, "%s: unexpected %d (%s)\n", what, err,
			aug_strerror(err));
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aug_image_info info;
	struct aug_view view;
	unsigned denom;
	int err;

	if (!dec)
		fz_setup();
	/* the last byte picks the scale; the whole input is the file */
	denom = size ? 1u << (data[size - 1] & 3) : 1;

	err = aug_decoder_open(dec, data, size, &info);
	fz_check(err, "open");
	if (!err && info.format != AUG_FMT_JPEG)
		denom = 1;     /* a PNG decodes at full scale only */
	if (!err) {
		if (info.width * (uint64_t)info.height > FZ_MAX_PIXELS)
			abort();    /* the pixel cap let it through */
		struct aug_rect roi = {
			.x = aug_scaled_dim(info.width, denom) / 3,
			.y = aug_scaled_dim(info.height, denom) / 4,
			.w = aug_scaled_dim(info.width, denom) / 2 + 1,
			.h = aug_scaled_dim(info.height, denom) / 2 + 1,
		};

		if (roi.x + roi.w > aug_scaled_dim(info.width, denom))
			roi.w = aug_scaled_dim(info.width, denom) - roi.x;
		if (roi.y + roi.h > aug_scaled_dim(info.height, denom))
			roi.h = aug_scaled_dim(info.height, denom) - roi.y;
		err = aug_decoder_read(dec, &roi, denom, &view);
		fz_check(err, "read roi");
		if (!err && (view.width != roi.w || view.height != roi.h))
			abort();
	}
	err = aug_decoder_decode(dec, data, size, NULL, denom, &view);
	fz_check(err, "decode");
	if (!err && (!view.width || !view.height))
		abort();

	fz_check(aug_train_sample(ctx, data, size, 1, 0, size, sample, NULL),
		 "train");
	fz_check(aug_eval_sample(ctx, data, size, sample, NULL), "eval");
	return 0;
}
