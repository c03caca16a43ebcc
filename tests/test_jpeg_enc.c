/*
 * test_jpeg_enc.c - the JPEG encoder (augment/jpeg_enc.c) that `feedrate
 * gen` writes its datasets with: RGB at each chroma subsampling decodes
 * back to the input's size and close to its pixels, gray, CMYK and
 * progressive files say so in their headers, bad arguments fail cleanly
 * and leave the output buffer usable, and a large output grows the
 * buffer. Every file is checked by a strict libjpeg decode (any warning
 * fails).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "augment.h"
#include "harness.h"
#include "jpeg_strict.h"

/* A smooth W x H picture of BPP bytes per pixel. */
static uint8_t *test_picture(uint32_t w, uint32_t h, unsigned bpp)
{
	uint8_t *p = malloc((size_t)w * h * bpp);

	cr_assert_not_null(p);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++)
			for (unsigned c = 0; c < bpp; c++)
				p[((size_t)y * w + x) * bpp + c] =
					(uint8_t)(40 + (x * 120) / w +
						  (y * 60) / h + c * 10);
	return p;
}

FR_TEST(jpeg_enc, rgb_444_and_420_decode_to_the_input_size_and_sampling)
{
	uint8_t *px = test_picture(123, 77, 3);
	struct aug_membuf b = { 0 };
	struct decoded d;
	const enum aug_enc_subsamp ss[] = { AUG_ENC_444, AUG_ENC_422,
					    AUG_ENC_420 };
	const int hf[] = { 1, 2, 2 }, vf[] = { 1, 1, 2 };

	for (int i = 0; i < 3; i++) {
		struct aug_enc_params p = { .quality = 100, .subsamp = ss[i] };
		int maxerr = 0;

		cr_assert_eq(aug_jpeg_encode(px, 123, 77, 123 * 3, AUG_ENC_RGB,
					     &p, &b), 0);
		cr_assert_gt(b.len, 100);
		cr_assert_eq(strict_decode(b.data, b.len, &d, true), 0);
		cr_assert_eq(d.w, 123);
		cr_assert_eq(d.h, 77);
		cr_assert_eq(d.comps, 3);
		cr_assert_eq(d.h0, hf[i]);
		cr_assert_eq(d.v0, vf[i]);
		cr_assert_not(d.progressive);
		for (size_t k = 0; k < (size_t)123 * 77 * 3; k++) {
			const int e = abs((int)d.px[k] - (int)px[k]);

			maxerr = e > maxerr ? e : maxerr;
		}
		cr_assert_leq(maxerr, 6, "max error %d at q100", maxerr);
		free(d.px);
	}
	aug_membuf_free(&b);
	free(px);
}

FR_TEST(jpeg_enc, gray_cmyk_and_progressive_files_say_so_in_their_headers)
{
	uint8_t *g = test_picture(64, 48, 1), *k = test_picture(64, 48, 4);
	struct aug_membuf b = { 0 };
	struct aug_enc_params p = { .quality = 90, .progressive = true };
	struct decoded d;

	cr_assert_eq(aug_jpeg_encode(g, 64, 48, 64, AUG_ENC_GRAY, &p, &b), 0);
	cr_assert_eq(strict_decode(b.data, b.len, &d, false), 0);
	cr_assert_eq(d.comps, 1);
	cr_assert(d.progressive);
	p.progressive = false;
	cr_assert_eq(aug_jpeg_encode(k, 64, 48, 64 * 4, AUG_ENC_CMYK, &p, &b),
		     0);
	cr_assert_eq(strict_decode(b.data, b.len, &d, true), 0);
	cr_assert_eq(d.comps, 4);
	cr_assert_eq(d.out_comps, 4);
	cr_assert_not(d.progressive);
	cr_assert_leq(abs((int)d.px[0] - (int)k[0]), 8);
	free(d.px);
	aug_membuf_free(&b);
	free(g);
	free(k);
}

FR_TEST(jpeg_enc, bad_arguments_fail_cleanly_and_leave_the_buffer_usable)
{
	uint8_t *px = test_picture(16, 16, 3);
	struct aug_membuf b = { 0 };
	struct aug_enc_params p = { .quality = 90 };
	struct aug_enc_params bad_q = { .quality = 0 };
	size_t cap;

	cr_assert_eq(aug_jpeg_encode(px, 16, 16, 48, AUG_ENC_RGB, &p, &b), 0);
	cap = b.cap;
	cr_assert_eq(aug_jpeg_encode(px, 16, 16, 48, AUG_ENC_RGB, &bad_q, &b),
		     -EINVAL);
	cr_assert_eq(b.len, 0);
	cr_assert_eq(aug_jpeg_encode(px, 0, 16, 48, AUG_ENC_RGB, &p, &b),
		     -EINVAL);
	cr_assert_eq(aug_jpeg_encode(px, 16, 16, 47, AUG_ENC_RGB, &p, &b),
		     -EINVAL, "stride shorter than a row");
	cr_assert_eq(aug_jpeg_encode(px, 70000, 16, 70000 * 3, AUG_ENC_RGB,
				     &p, &b), -EOVERFLOW);
	cr_assert_eq(aug_jpeg_encode(px, 16, 16, 48, (enum aug_enc_pixfmt)9,
				     &p, &b), -EINVAL);
	/* the buffer is kept and reused without shrinking */
	cr_assert_eq(aug_jpeg_encode(px, 16, 16, 48, AUG_ENC_RGB, &p, &b), 0);
	cr_assert_eq(b.cap, cap);
	aug_membuf_free(&b);
	aug_membuf_free(&b);
	aug_membuf_free(NULL);
	free(px);
}

FR_TEST(jpeg_enc, output_larger_than_the_first_buffer_grows_it)
{
	const uint32_t w = 700, h = 500;
	uint8_t *px = malloc((size_t)w * h * 3);
	struct aug_membuf b = { 0 };
	struct aug_enc_params p = { .quality = 100,
				    .subsamp = AUG_ENC_444 };
	struct decoded d;
	uint64_t x = 88172645463325252ull;

	cr_assert_not_null(px);
	/* noise compresses badly: far more than the first 64 KiB */
	for (size_t i = 0; i < (size_t)w * h * 3; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		px[i] = (uint8_t)x;
	}
	cr_assert_eq(aug_jpeg_encode(px, w, h, w * 3, AUG_ENC_RGB, &p, &b), 0);
	cr_assert_gt(b.len, 256 * 1024);
	cr_assert_geq(b.cap, b.len);
	cr_assert_eq(strict_decode(b.data, b.len, &d, false), 0);
	cr_assert_eq(d.w, w);
	aug_membuf_free(&b);
	free(px);
}
