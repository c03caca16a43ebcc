/*
 * test_jpeg_decode.c - the augment decoder: ROI and DCT-scaled decode
 * against full decode, colour models, and every error class on the
 * committed fixtures (tests/fixtures/jpeg/, see mkfixtures.c there).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "aug_testlib.h"

static uint32_t rnd(uint32_t *s, uint32_t n)
{
	return tl_lcg(s) % n;
}

/* Full decode at 1/denom, copied out (the decoder's view is scratch). */
static uint8_t *full_decode(struct aug_decoder *d, const struct aug_membuf *j,
			    unsigned denom, uint32_t *w, uint32_t *h)
{
	struct aug_view v;
	int err = aug_decoder_decode(d, j->data, j->len, NULL, denom, &v);

	cr_assert_eq(err, 0, "full decode: %s", aug_strerror(err));
	*w = v.width;
	*h = v.height;
	return tl_copy_view(&v);
}

/*
 * Decodes 60 random windows (some touching the edges) of `j` at 1/denom
 * and checks each equals the same window of the full decode, bit for bit.
 */
static void check_roi_exact(const struct aug_membuf *j, unsigned denom)
{
	struct aug_decoder *d;
	uint32_t w, h, s = 12345 + denom;
	uint8_t *full;

	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	full = full_decode(d, j, denom, &w, &h);
	for (int t = 0; t < 60; t++) {
		struct aug_rect r;
		struct aug_view v;
		int err;

		r.w = 1 + rnd(&s, w);
		r.h = 1 + rnd(&s, h);
		r.x = rnd(&s, w - r.w + 1);
		r.y = rnd(&s, h - r.h + 1);
		if (t % 10 == 1)
			r.x = w - r.w;              /* right edge */
		if (t % 10 == 2)
			r.y = h - r.h;              /* bottom edge */
		if (t % 10 == 3)
			r.x = r.x & ~15u;           /* iMCU-aligned start */
		err = aug_decoder_decode(d, j->data, j->len, &r, denom, &v);
		cr_assert_eq(err, 0, "roi decode: %s", aug_strerror(err));
		cr_assert_eq(v.width, r.w);
		cr_assert_eq(v.height, r.h);
		for (uint32_t y = 0; y < r.h; y++) {
			const uint8_t *a = v.data + v.stride * y;
			const uint8_t *b = full + (((size_t)(r.y + y) * w) + r.x) * 4;

			cr_assert(memcmp(a, b, (size_t)r.w * 4) == 0,
				  "1/%u window %ux%u+%u+%u differs at row %u",
				  denom, r.w, r.h, r.x, r.y, y);
		}
	}
	free(full);
	aug_decoder_destroy(d);
}

FR_TEST(jpeg_roi, window_equals_full_decode_for_each_subsampling)
{
	static const enum aug_enc_subsamp ss[] = { AUG_ENC_444, AUG_ENC_422,
						   AUG_ENC_420 };

	for (size_t i = 0; i < 3; i++) {
		struct aug_membuf j = { 0 };

		cr_assert_eq(tl_make_jpeg(333, 227, (uint32_t)i, ss[i], 90,
					  false, &j), 0);
		check_roi_exact(&j, 1);
		aug_membuf_free(&j);
	}
}

FR_TEST(jpeg_roi, window_equals_full_decode_for_progressive)
{
	struct aug_membuf j = { 0 };

	cr_assert_eq(tl_make_jpeg(301, 199, 7, AUG_ENC_420, 85, true, &j), 0);
	check_roi_exact(&j, 1);
	aug_membuf_free(&j);
}

FR_TEST(jpeg_roi, window_equals_full_decode_at_dct_scales)
{
	struct aug_membuf j = { 0 };

	cr_assert_eq(tl_make_jpeg(517, 389, 3, AUG_ENC_420, 90, false, &j), 0);
	check_roi_exact(&j, 2);
	check_roi_exact(&j, 4);
	check_roi_exact(&j, 8);
	aug_membuf_free(&j);
}

FR_TEST(jpeg_roi, rejects_windows_outside_the_image)
{
	struct aug_membuf j = { 0 };
	struct aug_decoder *d;
	struct aug_view v;
	struct aug_rect r = { 100, 0, 29, 10 };

	cr_assert_eq(tl_make_jpeg(128, 64, 1, AUG_ENC_420, 90, false, &j), 0);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, j.data, j.len, &r, 1, &v), -EINVAL);
	r = (struct aug_rect){ 0, 0, 0, 10 };
	cr_assert_eq(aug_decoder_decode(d, j.data, j.len, &r, 1, &v), -EINVAL);
	cr_assert_eq(aug_decoder_decode(d, j.data, j.len, NULL, 3, &v), -EINVAL);
	/* scaled: 128/8 = 16 columns exist, 17 do not */
	r = (struct aug_rect){ 0, 0, 17, 8 };
	cr_assert_eq(aug_decoder_decode(d, j.data, j.len, &r, 8, &v), -EINVAL);
	/* and the decoder still works afterwards */
	cr_assert_eq(aug_decoder_decode(d, j.data, j.len, NULL, 1, &v), 0);
	cr_assert_eq(v.width, 128);
	aug_decoder_destroy(d);
	aug_membuf_free(&j);
}

FR_TEST(jpeg_scaled, dims_follow_libjpeg_rounding)
{
	struct aug_membuf j = { 0 };
	struct aug_decoder *d;
	struct aug_view v;

	cr_assert_eq(tl_make_jpeg(517, 389, 2, AUG_ENC_444, 90, false, &j), 0);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	for (unsigned den = 1; den <= 8; den *= 2) {
		cr_assert_eq(aug_decoder_decode(d, j.data, j.len, NULL, den, &v), 0);
		cr_assert_eq(v.width, aug_scaled_dim(517, den));
		cr_assert_eq(v.height, aug_scaled_dim(389, den));
	}
	cr_assert_eq(aug_scaled_dim(517, 8), 65);
	aug_decoder_destroy(d);
	aug_membuf_free(&j);
}

/* ---- colour models and fixtures ---- */

FR_TEST(jpeg_color, progressive_decodes_to_the_baseline_pixels)
{
	size_t nb, np;
	uint8_t *b = tl_fixture("baseline.jpg", &nb);
	uint8_t *p = tl_fixture("progressive.jpg", &np);
	struct aug_decoder *d;
	struct aug_image_info info;
	struct aug_view v;
	uint8_t *base;

	cr_assert(b && p, "fixtures missing (run from the repository root)");
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_open(d, p, np, &info), 0);
	cr_assert(info.progressive);
	aug_decoder_close(d);
	cr_assert_eq(aug_decoder_decode(d, b, nb, NULL, 1, &v), 0);
	base = tl_copy_view(&v);
	/* same quantized coefficients, only the scan order differs */
	cr_assert_eq(aug_decoder_decode(d, p, np, NULL, 1, &v), 0);
	cr_assert_eq(v.width, 96);
	cr_assert_eq(v.height, 64);
	for (uint32_t y = 0; y < v.height; y++)
		cr_assert(memcmp(v.data + v.stride * y, base + (size_t)y * 96 * 4,
				 96 * 4) == 0, "row %u differs", y);
	free(base);
	free(b);
	free(p);
	aug_decoder_destroy(d);
}

FR_TEST(jpeg_color, grayscale_becomes_equal_rgb)
{
	size_t n;
	uint8_t *g = tl_fixture("gray.jpg", &n);
	struct aug_decoder *d;
	struct aug_image_info info;
	struct aug_view v;

	cr_assert(g);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_open(d, g, n, &info), 0);
	cr_assert_eq(info.colorspace, AUG_CS_GRAY);
	cr_assert_eq(info.components, 1);
	cr_assert_eq(aug_decoder_read(d, NULL, 1, &v), 0);
	for (uint32_t y = 0; y < v.height; y++)
		for (uint32_t x = 0; x < v.width; x++) {
			const uint8_t *p = v.data + v.stride * y + x * 4;

			cr_assert(p[0] == p[1] && p[1] == p[2] && p[3] == 255);
			/* the ramp was x * 4; q95 keeps it within a few levels */
			cr_assert(abs((int)p[0] - (int)(x * 4)) <= 6,
				  "(%u,%u) = %d, want ~%u", x, y, p[0], x * 4);
		}
	free(g);
	aug_decoder_destroy(d);
}

/* Expected RGB of each quadrant's ink (see mkfixtures.c). */
static void check_cmyk_fixture(const char *name, enum aug_colorspace cs)
{
	static const int want[4][3] = {
		{ 255, 255, 255 },    /* no ink */
		{ 0, 255, 255 },      /* full cyan */
		{ 255, 127, 0 },      /* M 128, Y 255 */
		{ 153, 153, 153 },    /* K 102: 255 * (255 - 102) / 255 */
	};
	size_t n;
	uint8_t *f = tl_fixture(name, &n);
	struct aug_decoder *d;
	struct aug_image_info info;
	struct aug_view v;

	cr_assert(f);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_open(d, f, n, &info), 0);
	cr_assert_eq(info.colorspace, cs);
	cr_assert(info.adobe);
	cr_assert_eq(aug_decoder_read(d, NULL, 1, &v), 0);
	cr_assert_eq(v.width, 48);
	for (int q = 0; q < 4; q++) {
		/* the centre of each quadrant, away from block-edge ringing */
		uint32_t x = (q & 1) ? 36 : 12, y = (q & 2) ? 24 : 8;
		const uint8_t *p = v.data + v.stride * y + x * 4;

		for (int c = 0; c < 3; c++)
			cr_assert(abs((int)p[c] - want[q][c]) <= 4,
				  "%s quadrant %d channel %d: %d, want %d",
				  name, q, c, p[c], want[q][c]);
		cr_assert_eq(p[3], 255);
	}
	free(f);
	aug_decoder_destroy(d);
}

FR_TEST(jpeg_color, adobe_cmyk_is_converted_with_inverted_ink)
{
	check_cmyk_fixture("cmyk.jpg", AUG_CS_CMYK);
}

FR_TEST(jpeg_color, adobe_ycck_is_converted_like_cmyk)
{
	check_cmyk_fixture("ycck.jpg", AUG_CS_YCCK);
}

FR_TEST(jpeg_color, cmyk_roi_equals_full_decode_crop)
{
	size_t n;
	uint8_t *f = tl_fixture("cmyk.jpg", &n), *full;
	struct aug_decoder *d;
	struct aug_view v;
	struct aug_rect r = { 13, 5, 20, 21 };

	cr_assert(f);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), 0);
	full = tl_copy_view(&v);
	cr_assert_eq(aug_decoder_decode(d, f, n, &r, 1, &v), 0);
	for (uint32_t y = 0; y < r.h; y++)
		cr_assert(memcmp(v.data + v.stride * y,
				 full + ((size_t)(r.y + y) * 48 + r.x) * 4,
				 (size_t)r.w * 4) == 0);
	free(full);
	free(f);
	aug_decoder_destroy(d);
}

/* ---- errors ---- */

/* Decodes a fixture (whole, then a small window) expecting `want`. */
static void expect_error(const char *name, int want)
{
	size_t n;
	uint8_t *f = tl_fixture(name, &n);
	struct aug_decoder *d;
	struct aug_view v;

	cr_assert(f, "fixture %s missing", name);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	for (int round = 0; round < 3; round++) {
		int err = aug_decoder_decode(d, f, n, NULL, 1, &v);

		cr_assert_eq(err, want, "%s: got %d (%s: %s), want %d", name,
			     err, aug_strerror(err), aug_decoder_message(d),
			     want);
		cr_assert(aug_decoder_message(d)[0] != '\0');
	}
	free(f);
	aug_decoder_destroy(d);
}

FR_TEST(jpeg_errors, zero_length_is_truncated)
{
	struct aug_decoder *d;
	struct aug_view v;
	static const uint8_t none[1];

	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, none, 0, NULL, 1, &v),
		     -AUG_ETRUNCATED);
	aug_decoder_destroy(d);
}

FR_TEST(jpeg_errors, truncated_file_is_truncated)
{
	expect_error("truncated.jpg", -AUG_ETRUNCATED);
}

FR_TEST(jpeg_errors, marker_inside_data_is_corrupt)
{
	expect_error("corrupt_data.jpg", -AUG_ECORRUPT);
}

FR_TEST(jpeg_errors, bogus_huffman_table_is_corrupt)
{
	expect_error("corrupt_header.jpg", -AUG_ECORRUPT);
}

FR_TEST(jpeg_errors, gif_named_jpeg_is_neither_jpeg_nor_png)
{
	expect_error("../png/gif_named.JPEG", -AUG_ENOTJPEG);
}

FR_TEST(jpeg_errors, header_over_the_pixel_cap_is_too_large)
{
	size_t n;
	uint8_t *f = tl_fixture("huge_20000.jpg", &n);
	struct aug_decoder *d;
	struct aug_image_info info;

	expect_error("huge_20000.jpg", -AUG_ETOOLARGE);
	cr_assert(f);
	/* the cap, not libjpeg, refused it: with a larger cap the header is
	 * read and says 20000 x 20000 */
	struct aug_decoder_opts o;

	aug_decoder_opts_default(&o);
	o.max_pixels = 500000000u;
	cr_assert_eq(aug_decoder_create(&o, &d), 0);
	cr_assert_eq(aug_decoder_open(d, f, n, &info), 0);
	cr_assert_eq(info.width, 20000);
	cr_assert_eq(info.height, 20000);
	aug_decoder_close(d);
	aug_decoder_destroy(d);
	free(f);
}

FR_TEST(jpeg_errors, dimension_over_libjpeg_limit_is_too_large)
{
	size_t n;
	uint8_t *f = tl_fixture("huge_20000.jpg", &n);
	struct aug_decoder_opts o;
	struct aug_decoder *d;
	struct aug_view v;
	size_t at = 0;

	cr_assert(f);
	for (size_t i = 2; i + 1 < n && !at; i++)
		if (f[i] == 0xff && f[i + 1] == 0xc0)
			at = i;
	cr_assert(at);
	memset(f + at + 5, 0xff, 4);          /* 65535 x 65535 */
	aug_decoder_opts_default(&o);
	o.max_pixels = UINT64_MAX;            /* so libjpeg's own check acts */
	cr_assert_eq(aug_decoder_create(&o, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), -AUG_ETOOLARGE);
	cr_assert(strstr(aug_decoder_message(d), "65500"),
		  "message: %s", aug_decoder_message(d));
	aug_decoder_destroy(d);
	free(f);
}

FR_TEST(jpeg_errors, progressive_bomb_stops_at_the_scan_cap)
{
	size_t n;
	uint8_t *f = tl_fixture("prog_bomb.jpg", &n);
	struct aug_decoder_opts o;
	struct aug_decoder *d;
	struct aug_view v;

	expect_error("prog_bomb.jpg", -AUG_ETOOLARGE);
	cr_assert(f);
	/* a valid file: with room for its 317 scans it decodes */
	aug_decoder_opts_default(&o);
	o.max_scans = 400;
	cr_assert_eq(aug_decoder_create(&o, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 8, &v), 0);
	cr_assert_eq(v.width, 256);
	aug_decoder_destroy(d);
	free(f);
}

FR_TEST(jpeg_errors, max_memory_refuses_large_progressive_buffers)
{
	struct aug_membuf j = { 0 };
	struct aug_decoder_opts o;
	struct aug_decoder *d;
	struct aug_view v;

	/* 1024x768 progressive needs ~2.4 MB of coefficients (4:4:4) */
	cr_assert_eq(tl_make_jpeg(1024, 768, 5, AUG_ENC_444, 80, true, &j), 0);
	aug_decoder_opts_default(&o);
	o.max_memory = 1u << 20;
	cr_assert_eq(aug_decoder_create(&o, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, j.data, j.len, NULL, 1, &v),
		     -AUG_ETOOLARGE);
	aug_decoder_destroy(d);
	o.max_memory = 64u << 20;
	cr_assert_eq(aug_decoder_create(&o, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, j.data, j.len, NULL, 1, &v), 0);
	aug_decoder_destroy(d);
	aug_membuf_free(&j);
}

FR_TEST(jpeg_errors, decoder_recovers_after_every_error)
{
	static const char *const names[] = {
		"truncated.jpg", "baseline.jpg", "corrupt_data.jpg",
		"gray.jpg", "corrupt_header.jpg", "cmyk.jpg",
		"../png/gif_named.JPEG", "progressive.jpg", "huge_20000.jpg",
		"prog_bomb.jpg", "baseline.jpg",
	};
	static const int want[] = {
		-AUG_ETRUNCATED, 0, -AUG_ECORRUPT, 0, -AUG_ECORRUPT, 0,
		-AUG_ENOTJPEG, 0, -AUG_ETOOLARGE, -AUG_ETOOLARGE, 0,
	};
	struct aug_decoder *d;

	/* round 0 decodes whole files, round 1 an 8x8 window at the bottom
	 * (below the damage of the truncated and corrupt files) */
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			struct aug_image_info info;
			struct aug_rect r;
			struct aug_view v;
			size_t n;
			uint8_t *f = tl_fixture(names[i], &n);
			int err;

			cr_assert(f);
			err = aug_decoder_open(d, f, n, &info);
			if (!err) {
				r = (struct aug_rect){ info.width / 2,
						       info.height - 8, 8, 8 };
				err = aug_decoder_read(d, round ? &r : NULL, 1,
						       &v);
			}
			cr_assert_eq(err, want[i], "%s round %d: %d (%s)",
				     names[i], round, err,
				     aug_decoder_message(d));
			free(f);
		}
	aug_decoder_destroy(d);
}

FR_TEST(jpeg_errors, window_above_the_damage_still_decodes)
{
	/* documented limit of ROI decode: rows below the window are never
	 * read, so damage there goes unseen and the window is intact */
	size_t n;
	uint8_t *f = tl_fixture("truncated.jpg", &n);
	struct aug_decoder *d;
	struct aug_rect r = { 8, 0, 32, 16 };
	struct aug_view v;

	cr_assert(f);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), -AUG_ETRUNCATED);
	cr_assert_eq(aug_decoder_decode(d, f, n, &r, 1, &v), 0);
	cr_assert_eq(v.width, 32);
	aug_decoder_destroy(d);
	free(f);
}

FR_TEST(jpeg_errors, twelve_bit_and_lossless_are_unsupported)
{
	size_t n, at = 0;
	uint8_t *f = tl_fixture("baseline.jpg", &n);
	struct aug_decoder *d;
	struct aug_view v;

	cr_assert(f);
	for (size_t i = 2; i + 1 < n && !at; i++)
		if (f[i] == 0xff && f[i + 1] == 0xc0)
			at = i;
	cr_assert(at);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	f[at + 4] = 12;                       /* SOF precision: 12 bits */
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v),
		     -AUG_EUNSUPPORTED, "%s", aug_decoder_message(d));
	f[at + 4] = 8;
	f[at + 1] = 0xc3;                     /* SOF3: lossless */
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v),
		     -AUG_EUNSUPPORTED, "%s", aug_decoder_message(d));
	f[at + 1] = 0xc0;                     /* restored: decodes again */
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), 0);
	aug_decoder_destroy(d);
	free(f);
}

FR_TEST(jpeg_errors, strerror_names_every_code)
{
	const int codes[] = { -AUG_ECORRUPT, -AUG_ETRUNCATED, -AUG_EUNSUPPORTED,
			      -AUG_ETOOLARGE, -AUG_ENOTJPEG };

	for (size_t i = 0; i < 5; i++)
		cr_assert(strcmp(aug_strerror(codes[i]), "unknown error") != 0);
	cr_assert_str_eq(aug_strerror(-ENOMEM), strerror(ENOMEM));
	aug_decoder_destroy(NULL);
}

/*
 * Damaged files never crash, hang or leak: 3000 mutations of small valid
 * files (flipped bytes, cut lengths, stray markers) through the train and
 * eval transforms, each ending in success or one of the -AUG_E codes.
 */
FR_TEST(jpeg_errors, mutated_files_end_in_a_code_not_a_crash)
{
	struct aug_membuf src[2] = { { 0 }, { 0 } };
	struct aug_ctx *c;
	uint32_t s = 777;
	uint8_t *buf, *out;
	int seen[6] = { 0 };

	cr_assert_eq(tl_make_jpeg(120, 90, 1, AUG_ENC_420, 85, false, &src[0]), 0);
	cr_assert_eq(tl_make_jpeg(90, 120, 2, AUG_ENC_444, 85, true, &src[1]), 0);
	cr_assert_eq(aug_ctx_create(NULL, &c), 0);
	out = malloc(aug_ctx_sample_bytes(c, false));
	buf = malloc(src[0].len > src[1].len ? src[0].len : src[1].len);
	for (int t = 0; t < 3000; t++) {
		const struct aug_membuf *m = &src[t & 1];
		size_t len = m->len;
		int err;

		memcpy(buf, m->data, len);
		switch (tl_lcg(&s) % 4) {
		case 0:                               /* flip a few bytes */
			for (int k = 0; k < 1 + (int)(tl_lcg(&s) % 4); k++)
				buf[tl_lcg(&s) % len] ^= (uint8_t)(1 + tl_lcg(&s) % 255);
			break;
		case 1:                               /* cut short */
			len = tl_lcg(&s) % len;
			break;
		case 2: {                             /* a stray marker */
			size_t at = 2 + tl_lcg(&s) % (len - 3);

			buf[at] = 0xff;
			buf[at + 1] = (uint8_t)(0xc0 + tl_lcg(&s) % 64);
			break;
		}
		default:                              /* header bytes only */
			buf[2 + tl_lcg(&s) % 200] = (uint8_t)tl_lcg(&s);
			break;
		}
		err = t % 3 ? aug_train_sample(c, buf, len, 1, 0, (uint64_t)t,
					       out, NULL) :
			      aug_eval_sample(c, buf, len, out, NULL);
		cr_assert(err == 0 ||
			  (-err >= AUG_ECORRUPT && -err <= AUG_ENOTJPEG),
			  "mutation %d: unexpected result %d", t, err);
		seen[err == 0 ? 0 : -err - AUG_ECORRUPT + 1]++;
	}
	cr_log_info("mutations: ok %d corrupt %d truncated %d unsupported %d "
		    "too large %d not jpeg %d", seen[0], seen[1], seen[2],
		    seen[3], seen[4], seen[5]);
	/* the mutations reach both outcomes */
	cr_assert_gt(seen[0], 0);
	cr_assert_gt(seen[1] + seen[2], 100, "corrupt %d truncated %d",
		     seen[1], seen[2]);
	free(buf);
	free(out);
	aug_ctx_destroy(c);
	aug_membuf_free(&src[0]);
	aug_membuf_free(&src[1]);
}
