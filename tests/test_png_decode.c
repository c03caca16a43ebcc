/*
 * test_png_decode.c - decoding by content: PNG through libpng into the
 * same RGBX as JPEG, pixel for pixel what PIL's convert('RGB') gives
 * (fixtures written by PIL and by a PNG writer independent of libpng, with
 * PIL's decode beside each: tests/fixtures/png/make_fixtures.py), windows,
 * errors by kind, the decoder's memory reuse, the worker transform on a
 * PNG named .JPEG, CMYK JPEGs against PIL, and `feedrate run` on a dataset
 * holding a PNG named .JPEG.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#define AUG_FIXTURE_DIR "tests/fixtures/png"
#include "aug_internal.h"
#include "aug_testlib.h"
#include "harness.h"
#include "loader.h"
#include "workloads.h"

#define FIX_W 31
#define FIX_H 21

/* ---- helpers ---- */

/* A fixture's bytes; fails the test when it is missing. */
static uint8_t *fixture(const char *name, size_t *len)
{
	uint8_t *b = tl_fixture(name, len);

	cr_assert_not_null(b, "fixture %s missing", name);
	return b;
}

/* Asserts that view v holds exactly the packed RGB bytes `want`, X 255. */
static void expect_rgb(const struct aug_view *v, const uint8_t *want,
		       const char *what)
{
	for (uint32_t y = 0; y < v->height; y++)
		for (uint32_t x = 0; x < v->width; x++) {
			const uint8_t *p = v->data + v->stride * y + x * 4;
			const uint8_t *q = want +
					   ((size_t)y * v->width + x) * 3;

			cr_assert(p[0] == q[0] && p[1] == q[1] && p[2] == q[2],
				  "%s (%u,%u): %u %u %u, PIL %u %u %u", what, x,
				  y, p[0], p[1], p[2], q[0], q[1], q[2]);
			cr_assert_eq(p[3], 255, "%s (%u,%u) X", what, x, y);
		}
}

/* Decodes NAME.png whole and compares it with NAME.rgb (PIL's pixels). */
static void expect_like_pil(const char *name, bool interlaced)
{
	char png[128], rgb[128];
	size_t n, rn;
	uint8_t *f, *want;
	struct aug_decoder *d;
	struct aug_image_info info;
	struct aug_view v;

	snprintf(png, sizeof(png), "%s.png", name);
	snprintf(rgb, sizeof(rgb), "%s.rgb", name);
	f = fixture(png, &n);
	want = fixture(rgb, &rn);
	cr_assert_eq(rn, (size_t)FIX_W * FIX_H * 3);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	/* twice: the second decode reuses the first one's memory */
	for (int round = 0; round < 2; round++) {
		cr_assert_eq(aug_decoder_open(d, f, n, &info), 0, "%s: %s",
			     name, aug_decoder_message(d));
		cr_assert_eq(info.format, AUG_FMT_PNG);
		cr_assert_eq(info.width, FIX_W);
		cr_assert_eq(info.height, FIX_H);
		cr_assert_eq(info.progressive, interlaced, "%s", name);
		cr_assert_eq(aug_decoder_read(d, NULL, 1, &v), 0, "%s: %s",
			     name, aug_decoder_message(d));
		cr_assert_eq(v.width, FIX_W);
		cr_assert_eq(v.height, FIX_H);
		expect_rgb(&v, want, name);
	}
	aug_decoder_destroy(d);
	free(want);
	free(f);
}

/* Big-endian 32 bits at p. */
static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Appends one chunk (length, type, data, CRC) at b + *at. */
static void put_chunk(uint8_t *b, size_t *at, const char *type,
		      const uint8_t *data, uint32_t len)
{
	uint8_t *c = b + *at;

	put_be32(c, len);
	memcpy(c + 4, type, 4);
	if (len)
		memcpy(c + 8, data, len);
	put_be32(c + 8 + len, (uint32_t)crc32(0, c + 4, len + 4));
	*at += 12 + (size_t)len;
}

static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a,
				    0x0a };

/*
 * A plain 8-bit RGB PNG of packed pixels `rgb`, written here with zlib
 * (filter 0 on every row), not libpng. Caller frees; *len gets its size.
 */
static uint8_t *make_png(const uint8_t *rgb, uint32_t w, uint32_t h,
			 size_t *len)
{
	const size_t row = (size_t)w * 3 + 1, raw_len = row * h;
	uint8_t *raw = malloc(raw_len), *out;
	uLongf zlen = compressBound(raw_len);
	uint8_t ihdr[13] = { 0 };
	size_t at = 8;

	cr_assert_not_null(raw);
	for (uint32_t y = 0; y < h; y++) {
		raw[row * y] = 0;
		memcpy(raw + row * y + 1, rgb + (size_t)w * 3 * y, row - 1);
	}
	out = malloc(8 + 25 + 12 + zlen + 12);
	cr_assert_not_null(out);
	memcpy(out, png_sig, 8);
	put_be32(ihdr, w);
	put_be32(ihdr + 4, h);
	ihdr[8] = 8;       /* bit depth */
	ihdr[9] = 2;       /* RGB */
	put_chunk(out, &at, "IHDR", ihdr, 13);
	cr_assert_eq(compress2(out + at + 8, &zlen, raw, raw_len, 6), Z_OK);
	put_chunk(out, &at, "IDAT", out + at + 8, (uint32_t)zlen);
	put_chunk(out, &at, "IEND", NULL, 0);
	free(raw);
	*len = at;
	return out;
}

/* Offset of the first chunk of `type` in a PNG (its length field). */
static size_t find_chunk(const uint8_t *b, size_t len, const char *type)
{
	size_t at = 8;

	while (at + 12 <= len) {
		if (!memcmp(b + at + 4, type, 4))
			return at;
		at += 12 + get_be32(b + at);
	}
	cr_assert_fail("no %s chunk", type);
	return 0;
}

/* Decodes buf whole (three times) expecting `want`; a message is set. */
static void expect_error(const void *buf, size_t len, int want,
			 const char *what)
{
	struct aug_decoder *d;
	struct aug_view v;

	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	for (int round = 0; round < 3; round++) {
		int err = aug_decoder_decode(d, buf, len, NULL, 1, &v);

		cr_assert_eq(err, want, "%s: got %d (%s: %s), want %d", what,
			     err, aug_strerror(err), aug_decoder_message(d),
			     want);
		cr_assert(aug_decoder_message(d)[0] != '\0', "%s", what);
	}
	aug_decoder_destroy(d);
}

/* ---- pixels against PIL ---- */

FR_TEST(png_decode, rgb_decodes_like_pil)
{
	expect_like_pil("rgb", false);
}

FR_TEST(png_decode, gray_and_1_bit_gray_become_rgb_like_pil)
{
	expect_like_pil("gray", false);
	expect_like_pil("bilevel", false);
}

FR_TEST(png_decode, palettes_are_looked_up_like_pil)
{
	expect_like_pil("palette", false);
	expect_like_pil("palette4", false);
	/* a transparent entry changes nothing: alpha is dropped */
	expect_like_pil("palette_trns", false);
}

FR_TEST(png_decode, alpha_is_dropped_like_pil_convert_rgb)
{
	expect_like_pil("rgba", false);
	expect_like_pil("la", false);
}

FR_TEST(png_decode, sixteen_bit_samples_keep_their_high_byte)
{
	expect_like_pil("rgb16", false);
	expect_like_pil("rgba16", false);
	/* PIL would clip these to 255 (see make_fixtures.py); the high byte */
	expect_like_pil("gray16", false);
}

FR_TEST(png_decode, interlaced_files_decode_like_pil)
{
	expect_like_pil("interlaced_rgb", true);
	expect_like_pil("interlaced_gray2", true);
	expect_like_pil("interlaced_rgba16", true);
}

/* ---- windows, scale ---- */

FR_TEST(png_decode, a_window_holds_the_same_pixels_as_a_full_decode)
{
	static const char *const names[] = { "rgb.png", "interlaced_rgba16.png",
					     "palette4.png" };
	static const struct aug_rect wins[] = {
		{ 0, 0, FIX_W, FIX_H }, { 0, 0, 5, 3 }, { 13, 5, 11, 9 },
		{ FIX_W - 4, FIX_H - 2, 4, 2 }, { 7, 20, 3, 1 },
		{ 30, 0, 1, 21 },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n;
		uint8_t *f = fixture(names[i], &n), *full;
		struct aug_decoder *d;
		struct aug_view v;

		cr_assert_eq(aug_decoder_create(NULL, &d), 0);
		cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), 0);
		full = tl_copy_view(&v);
		for (size_t k = 0; k < sizeof(wins) / sizeof(wins[0]); k++) {
			const struct aug_rect *r = &wins[k];

			cr_assert_eq(aug_decoder_decode(d, f, n, r, 1, &v), 0);
			cr_assert_eq(v.width, r->w);
			cr_assert_eq(v.height, r->h);
			for (uint32_t y = 0; y < r->h; y++)
				cr_assert(memcmp(v.data + v.stride * y,
						 full + ((size_t)(r->y + y) *
							 FIX_W + r->x) * 4,
						 (size_t)r->w * 4) == 0,
					  "%s window %zu row %u", names[i], k,
					  y);
		}
		free(full);
		free(f);
		aug_decoder_destroy(d);
	}
}

FR_TEST(png_decode, only_scale_1_and_windows_inside_the_image_are_accepted)
{
	size_t n;
	uint8_t *f = fixture("rgb.png", &n);
	struct aug_decoder *d;
	struct aug_view v;
	struct aug_rect out_of_image = { 30, 0, 2, 1 };

	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 2, &v), -EINVAL);
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 8, &v), -EINVAL);
	cr_assert_eq(aug_decoder_decode(d, f, n, &out_of_image, 1, &v),
		     -EINVAL);
	/* and the decoder is usable after each */
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), 0);
	free(f);
	aug_decoder_destroy(d);
}

/* ---- errors by kind ---- */

FR_TEST(png_errors, a_file_cut_anywhere_is_truncated)
{
	size_t n;
	uint8_t *f = fixture("rgb.png", &n);
	const size_t idat = find_chunk(f, n, "IDAT");
	/* inside the signature, after it, inside IHDR, inside the IDAT
	 * data, and just before the IDAT's CRC */
	const size_t cuts[] = { 1, 4, 8, 20, idat + 8 + get_be32(f + idat) / 2,
				idat + 8 + get_be32(f + idat) };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "cut at %zu of %zu", cuts[i], n);
		expect_error(f, cuts[i], -AUG_ETRUNCATED, what);
	}
	free(f);
}

FR_TEST(png_errors, a_missing_iend_still_decodes_like_pil)
{
	size_t n, rn;
	uint8_t *f = fixture("rgb.png", &n), *want = fixture("rgb.rgb", &rn);
	struct aug_decoder *d;
	struct aug_view v;

	/* the pixels are all there; PIL reads such a file too */
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, f, find_chunk(f, n, "IEND"), NULL,
					1, &v), 0, "%s",
		     aug_decoder_message(d));
	expect_rgb(&v, want, "no IEND");
	aug_decoder_destroy(d);
	free(want);
	free(f);
}

FR_TEST(png_errors, a_bad_crc_is_corrupt)
{
	size_t n;
	uint8_t *f = fixture("rgb.png", &n);
	const size_t idat = find_chunk(f, n, "IDAT");

	f[idat + 8 + 40] ^= 0x20;       /* data changed, CRC kept */
	expect_error(f, n, -AUG_ECORRUPT, "IDAT CRC");
	f[idat + 8 + 40] ^= 0x20;
	f[8 + 8 + 2] ^= 0x01;           /* IHDR width changed, CRC kept */
	expect_error(f, n, -AUG_ECORRUPT, "IHDR CRC");
	free(f);
}

FR_TEST(png_errors, bad_zlib_data_with_a_good_crc_is_corrupt)
{
	size_t n;
	uint8_t *f = fixture("rgb.png", &n);
	const size_t idat = find_chunk(f, n, "IDAT");
	const uint32_t len = get_be32(f + idat);
	uint8_t *data = f + idat + 8;

	/* a zlib header with the wrong check bits */
	data[1] ^= 0x01;
	put_be32(data + len, (uint32_t)crc32(0, f + idat + 4, len + 4));
	expect_error(f, n, -AUG_ECORRUPT, "zlib header");
	data[1] ^= 0x01;
	/* garbage inside the deflate stream */
	memset(data + len / 2, 0xff, 16);
	put_be32(data + len, (uint32_t)crc32(0, f + idat + 4, len + 4));
	expect_error(f, n, -AUG_ECORRUPT, "deflate data");
	free(f);
}

/* A PNG whose IHDR claims w x h, with one empty IDAT. */
static uint8_t *header_only_png(uint32_t w, uint32_t h, size_t *len)
{
	uint8_t *b = calloc(1, 128), ihdr[13] = { 0 };
	size_t at = 8;

	cr_assert_not_null(b);
	memcpy(b, png_sig, 8);
	put_be32(ihdr, w);
	put_be32(ihdr + 4, h);
	ihdr[8] = 8;
	ihdr[9] = 2;
	put_chunk(b, &at, "IHDR", ihdr, 13);
	put_chunk(b, &at, "IDAT", NULL, 0);
	put_chunk(b, &at, "IEND", NULL, 0);
	*len = at;
	return b;
}

FR_TEST(png_errors, over_the_pixel_cap_or_side_limit_is_too_large)
{
	size_t n;
	uint8_t *big = header_only_png(20000, 20000, &n);
	uint8_t *wide = header_only_png(1000001, 1, &n);
	struct aug_decoder *d;
	struct aug_image_info info;

	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_open(d, big, n, &info), -AUG_ETOOLARGE);
	cr_assert_not_null(strstr(aug_decoder_message(d), "pixel cap"), "%s",
			   aug_decoder_message(d));
	cr_assert_eq(aug_decoder_open(d, wide, n, &info), -AUG_ETOOLARGE);
	cr_assert_not_null(strstr(aug_decoder_message(d), "side limit"),
			   "%s", aug_decoder_message(d));
	/* the same kind as a JPEG over the cap */
	cr_assert_eq(wl_transform_err(-AUG_ETOOLARGE), -LDR_ETOOBIG);
	cr_assert_str_eq(ldr_sample_err_name(-LDR_ETOOBIG), "pixels_over_cap");
	aug_decoder_destroy(d);
	free(big);
	free(wide);
}

FR_TEST(png_errors, a_file_that_is_neither_jpeg_nor_png_is_not_format)
{
	static const char text[] = "<html>not an image</html>";
	static const uint8_t jpeg_lookalike[] = { 0xff, 0xd8, 0x00, 0x01 };
	static const uint8_t png_lookalike[] = { 0x89, 'P', 'N', 'G', 0x0d,
						 0x0a, 0x1a, 0x00, 0, 0 };
	size_t n;
	uint8_t *gif = fixture("gif_named.JPEG", &n);

	expect_error(gif, n, -AUG_ENOTJPEG, "GIF");
	expect_error(text, sizeof(text) - 1, -AUG_ENOTJPEG, "text");
	expect_error(jpeg_lookalike, sizeof(jpeg_lookalike), -AUG_ENOTJPEG,
		     "FF D8 00");
	expect_error(png_lookalike, sizeof(png_lookalike), -AUG_ENOTJPEG,
		     "PNG signature with a wrong last byte");
	cr_assert_eq(wl_transform_err(-AUG_ENOTJPEG), -LDR_ENOTFORMAT);
	cr_assert_str_eq(ldr_sample_err_name(-LDR_ENOTFORMAT), "not_format");
	free(gif);
}

FR_TEST(png_errors, decoder_recovers_after_every_error_of_either_format)
{
	size_t n[4], cut;
	uint8_t *f[4] = {
		tl_fixture("rgb.png", &n[0]),
		tl_fixture("../jpeg/baseline.jpg", &n[1]),
		tl_fixture("../jpeg/corrupt_data.jpg", &n[2]),
		tl_fixture("interlaced_rgb.png", &n[3]),
	};
	uint8_t *bad = malloc(n[0]), *want = fixture("rgb.rgb", &cut);
	struct aug_decoder *d;
	struct aug_view v;

	for (int i = 0; i < 4; i++)
		cr_assert_not_null(f[i]);
	cr_assert_not_null(bad);
	memcpy(bad, f[0], n[0]);
	bad[find_chunk(bad, n[0], "IDAT") + 8 + 40] ^= 0x20;
	cut = n[0] / 2;
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	for (int round = 0; round < 2; round++) {
		cr_assert_eq(aug_decoder_decode(d, bad, n[0], NULL, 1, &v),
			     -AUG_ECORRUPT);
		cr_assert_eq(aug_decoder_decode(d, f[1], n[1], NULL, 1, &v), 0);
		cr_assert_eq(aug_decoder_decode(d, f[0], cut, NULL, 1, &v),
			     -AUG_ETRUNCATED);
		cr_assert_eq(aug_decoder_decode(d, f[3], n[3], NULL, 1, &v), 0);
		expect_rgb(&v, want, "after errors");
		cr_assert_eq(aug_decoder_decode(d, f[2], n[2], NULL, 1, &v),
			     -AUG_ECORRUPT);
		cr_assert_eq(aug_decoder_decode(d, f[0], n[0], NULL, 1, &v), 0);
		expect_rgb(&v, want, "after errors");
		/* an image opened and abandoned */
		cr_assert_eq(aug_decoder_open(d, f[0], n[0], NULL), 0);
		aug_decoder_close(d);
	}
	aug_decoder_destroy(d);
	for (int i = 0; i < 4; i++)
		free(f[i]);
	free(bad);
	free(want);
}

/* ---- memory ---- */

FR_TEST(png_memory, libpng_allocations_stop_once_the_arena_has_grown)
{
	size_t n, big_n, arena, arena2;
	uint64_t spills, spills2;
	uint8_t *f = fixture("interlaced_rgba16.png", &n);
	uint8_t *rgb = tl_make_rgb(4000, 30, 1);
	uint8_t *big = make_png(rgb, 4000, 30, &big_n);
	struct aug_decoder *d;
	struct aug_view v;
	const struct aug_rect win = { 3, 2, 9, 7 };

	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	aug_png_heap(aug_decoder_png(d), &arena, &spills);
	cr_assert_eq(arena, 0, "no PNG state before the first PNG");
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), 0);
	aug_png_heap(aug_decoder_png(d), &arena, &spills);
	cr_assert_gt(spills, 0, "the first image spills (empty arena)");
	cr_assert_gt(arena, 0, "and the arena then grows to fit it");
	for (int i = 0; i < 5; i++) {
		cr_assert_eq(aug_decoder_decode(d, f, n, i & 1 ? &win : NULL, 1,
						&v), 0);
		aug_png_heap(aug_decoder_png(d), &arena2, &spills2);
		cr_assert_eq(spills2, spills, "decode %d allocated", i);
		cr_assert_eq(arena2, arena);
	}
	/* a wider image needs bigger row buffers: it spills, once */
	cr_assert_eq(aug_decoder_decode(d, big, big_n, NULL, 1, &v), 0);
	aug_png_heap(aug_decoder_png(d), &arena2, &spills2);
	cr_assert_gt(spills2, spills);
	cr_assert_gt(arena2, arena);
	spills = spills2;
	arena = arena2;
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(aug_decoder_decode(d, big, big_n, NULL, 1, &v), 0);
		cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), 0);
		aug_png_heap(aug_decoder_png(d), &arena2, &spills2);
		cr_assert_eq(spills2, spills);
		cr_assert_eq(arena2, arena);
	}
	aug_decoder_destroy(d);
	free(big);
	free(rgb);
	free(f);
}

/* ---- the transform ---- */

/*
 * The train transform on a PNG: its crop drawn as aug_train_sample draws
 * it, then the crop of the source pixels (PNG is lossless) resized with
 * aug_resize: the result must be the same bytes, with no DCT scaling
 * even where a JPEG would have used 1/2.
 */
FR_TEST(png_transform, train_sample_is_the_resized_crop_of_the_pixels)
{
	const uint32_t w = 500, h = 375;
	uint8_t *rgb = tl_make_rgb(w, h, 7), *rgbx, *out, *want;
	size_t n;
	uint8_t *png = make_png(rgb, w, h, &n);
	struct aug_params p;
	struct aug_ctx *c;
	unsigned halves = 0;

	aug_params_default(&p);
	p.dtype = AUG_DT_U8;
	p.layout = AUG_LAYOUT_HWC;
	p.flip_p = 0;
	p.out_w = p.out_h = 64;      /* small output: DCT scaling would apply */
	cr_assert_eq(aug_ctx_create(&p, &c), 0);
	rgbx = malloc((size_t)w * h * 4);
	out = malloc(64 * 64 * 3);
	want = malloc(64 * 64 * 4);
	cr_assert(rgbx && out && want);
	for (size_t i = 0; i < (size_t)w * h; i++) {
		memcpy(rgbx + i * 4, rgb + i * 3, 3);
		rgbx[i * 4 + 3] = 255;
	}
	for (uint64_t id = 0; id < 12; id++) {
		const struct aug_view src = { rgbx, w, h, (size_t)w * 4 };
		const struct aug_view dst = { want, 64, 64, 64 * 4 };
		struct aug_stats s;
		struct aug_rng rng;
		struct aug_rect crop;

		cr_assert_eq(aug_train_sample(c, png, n, 3, 1, id, out, &s), 0,
			     "%s", aug_decoder_message(aug_ctx_decoder(c)));
		cr_assert_eq(s.scale_denom, 1);
		cr_assert_gt(s.decode_ns, 0);
		aug_rng_seed(&rng, 3, 1, id);
		aug_rrc_params(&p.rrc, w, h, &rng, &crop);
		cr_assert_eq(s.crop.x, crop.x);
		cr_assert_eq(s.crop.w, crop.w);
		halves += crop.w >= 128 && crop.h >= 128;
		cr_assert_eq(aug_resize(c, &src, crop.x, crop.y, crop.w, crop.h,
					&dst, false), 0);
		for (int i = 0; i < 64 * 64; i++)
			cr_assert(memcmp(out + i * 3, want + i * 4, 3) == 0,
				  "id %lu pixel %d", (unsigned long)id, i);
	}
	cr_assert_gt(halves, 0, "no crop where a JPEG would scale");
	aug_ctx_destroy(c);
	free(rgbx);
	free(out);
	free(want);
	free(png);
	free(rgb);
}

FR_TEST(png_transform, a_png_named_jpeg_goes_through_the_worker_transform)
{
	static struct aug_params params;
	struct ldr_transform t;
	struct ldr_step_times st = { 0 };
	void *ctx = NULL;
	float *out;
	size_t n;
	/* what a worker gets for x.JPEG: the file's bytes, nothing else */
	uint8_t *f = fixture("rgb.png", &n);

	aug_params_default(&params);
	cr_assert_eq(wl_transform_train(&params, &t), 0);
	out = malloc(t.out_bytes);
	cr_assert_not_null(out);
	cr_assert_eq(t.ctx_create(t.arg, &ctx), 0);
	for (uint64_t id = 0; id < 8; id++) {
		int err = t.apply(ctx, f, n, 1, 0, id, out, &st);

		cr_assert_eq(err, 0, "id %lu: %s", (unsigned long)id,
			     ldr_sample_err_name(err));
		cr_assert_gt(st.decode_s, 0, "the decode step is timed");
		cr_assert_gt(st.resize_s, 0);
	}
	/* a PNG cut short is "truncated" to the loader */
	cr_assert_eq(t.apply(ctx, f, 40, 1, 0, 0, out, NULL), -LDR_ETRUNCATED);
	cr_assert_str_eq(ldr_sample_err_name(-LDR_ETRUNCATED), "truncated");
	/* the JPEG fixtures' 1x1 PNG, once counted as not_format */
	free(f);
	f = fixture("../jpeg/png_named.JPEG", &n);
	cr_assert_eq(t.apply(ctx, f, n, 1, 0, 0, out, &st), 0);
	t.ctx_destroy(ctx);
	free(out);
	free(f);
}

/* ---- CMYK JPEGs against PIL ---- */

/* Decodes a JPEG fixture and compares it with PIL's RGB of it. */
static void expect_jpeg_like_pil(const uint8_t *f, size_t n,
				 const char *pil_rgb, const char *what)
{
	size_t rn;
	uint8_t *want = fixture(pil_rgb, &rn);
	struct aug_decoder *d;
	struct aug_view v;

	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_decode(d, f, n, NULL, 1, &v), 0);
	cr_assert_eq((size_t)v.width * v.height * 3, rn);
	expect_rgb(&v, want, what);
	aug_decoder_destroy(d);
	free(want);
}

FR_TEST(jpeg_cmyk_pil, adobe_cmyk_and_ycck_decode_exactly_like_pil)
{
	size_t n;
	uint8_t *f = fixture("../jpeg/cmyk.jpg", &n);

	expect_jpeg_like_pil(f, n, "cmyk.pil.rgb", "cmyk.jpg");
	free(f);
	f = fixture("../jpeg/ycck.jpg", &n);
	expect_jpeg_like_pil(f, n, "ycck.pil.rgb", "ycck.jpg");
	free(f);
}

/*
 * Without its Adobe APP14 segment the same CMYK stream is still CMYK to
 * libjpeg (4 components), and PIL still reads it as inverted ink: the
 * pixels must not change.
 */
FR_TEST(jpeg_cmyk_pil, cmyk_without_an_adobe_marker_is_read_as_pil_reads_it)
{
	size_t n, at = 2, out_n = 2;
	uint8_t *f = fixture("../jpeg/cmyk.jpg", &n), *g = malloc(n);
	struct aug_decoder *d;
	struct aug_image_info info;
	bool stripped = false;

	cr_assert_not_null(g);
	memcpy(g, f, 2);
	while (at + 4 <= n && f[at + 1] != 0xda) {   /* up to the scan */
		size_t seg = 2 + ((size_t)f[at + 2] << 8 | f[at + 3]);

		if (f[at + 1] == 0xee) {
			stripped = true;
		} else {
			memcpy(g + out_n, f + at, seg);
			out_n += seg;
		}
		at += seg;
	}
	cr_assert(stripped, "cmyk.jpg has no APP14");
	memcpy(g + out_n, f + at, n - at);
	out_n += n - at;
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(aug_decoder_open(d, g, out_n, &info), 0);
	cr_assert_not(info.adobe);
	cr_assert_eq(info.colorspace, AUG_CS_CMYK);
	aug_decoder_destroy(d);
	expect_jpeg_like_pil(g, out_n, "cmyk.pil.rgb", "cmyk.jpg, no APP14");
	free(g);
	free(f);
}

/* ---- end to end: feedrate run ---- */

static char found_jpeg[4096];

static int find_jpeg(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)st;
	(void)ftw;
	if (flag == FTW_F && n > 5 && !strcmp(path + n - 5, ".JPEG")) {
		snprintf(found_jpeg, sizeof(found_jpeg), "%s", path);
		return 1;
	}
	return 0;
}

static double json_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	cr_assert(json_is_number(v), "'%s' is not a number", key);
	return json_number_value(v);
}

FR_TEST(png_run_slow, run_on_a_dataset_with_a_png_named_jpeg_has_no_errors)
{
	char *dir = fr_test_tmpdir();
	char data[4096], js[4096], path[4200];
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--files", "40",
			data, NULL };
	char *run[] = { (char *)fr_test_bin(), "run", "--gpus", "0", "--epochs",
			"1", "--json", js, data, NULL };
	uint8_t *rgb = tl_make_rgb(500, 375, 3), *png;
	size_t n;
	json_t *j;
	json_error_t je;
	FILE *f;
	int rc;

	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(js, sizeof(js), "%s/report.json", dir);
	cr_assert_eq(fr_test_run(dir, gen, 300), 0, "feedrate gen failed");
	found_jpeg[0] = '\0';
	cr_assert_eq(nftw(data, find_jpeg, 16, FTW_PHYS), 1, "no .JPEG");
	png = make_png(rgb, 500, 375, &n);
	f = fopen(found_jpeg, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(png, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
	rc = fr_test_run(dir, run, 300);
	snprintf(path, sizeof(path), "%s/stdout", dir);
	{
		size_t len;
		char *out = (char *)tl_read_file(path, &len);

		cr_assert_not_null(out);
		out[len] = '\0';
		cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
		free(out);
	}
	j = json_load_file(js, 0, &je);
	cr_assert_not_null(j, "%s: %s", js, je.text);
	cr_expect_eq(json_num(json_object_get(j, "errors"), "total"), 0);
	cr_expect_eq(json_num(j, "samples_failed"), 0);
	cr_expect_geq(json_num(j, "epochs_done"), 1);
	cr_expect_eq(json_num(json_object_get(j, "dataset"), "files"), 40);
	json_decref(j);
	free(png);
	free(rgb);
	fr_test_rmtree(dir);
}
