/*
 * test_jpeg_warnings.c - which libjpeg warnings fail a sample: stray bytes
 * between segments leave the pixels intact (PIL decodes such files, and
 * real ImageNet holds some), data damage inside the scan does not.
 */
#include <stdlib.h>
#include <string.h>

#include "aug_testlib.h"
#include "harness.h"

/* A copy of JPG with N junk bytes inserted before its SOS marker. */
static unsigned char *with_junk_before_sos(const struct aug_membuf *jpg,
					   size_t n, size_t *len)
{
	unsigned char *out = malloc(jpg->len + n);
	size_t sos = 0;

	for (size_t i = 2; i + 1 < jpg->len; i++)
		if (jpg->data[i] == 0xff && jpg->data[i + 1] == 0xda) {
			sos = i;
			break;
		}
	cr_assert_gt(sos, 0, "no SOS marker");
	memcpy(out, jpg->data, sos);
	memset(out + sos, 0x5a, n);
	memcpy(out + sos + n, jpg->data + sos, jpg->len - sos);
	*len = jpg->len + n;
	return out;
}

static int decode(struct aug_decoder *d, const void *buf, size_t len,
		  struct aug_view *v)
{
	return aug_decoder_decode(d, buf, len, NULL, 1, v);
}

FR_TEST(jpeg_warnings, stray_bytes_before_a_marker_decode_to_the_same_pixels)
{
	struct aug_membuf jpg = { 0 };
	struct aug_decoder *d;
	struct aug_view a, b;
	unsigned char *junk, *ref;
	size_t jlen, rowbytes;

	cr_assert_eq(tl_make_jpeg(96, 64, 3, AUG_ENC_420, 90, false, &jpg), 0);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_assert_eq(decode(d, jpg.data, jpg.len, &a), 0);
	rowbytes = a.stride;
	ref = malloc(rowbytes * a.height);
	memcpy(ref, a.data, rowbytes * a.height);

	junk = with_junk_before_sos(&jpg, 7, &jlen);
	cr_assert_eq(decode(d, junk, jlen, &b), 0, "stray bytes failed: %s",
		     aug_decoder_message(d));
	cr_assert_eq(b.width, a.width);
	cr_assert_eq(b.height, a.height);
	for (uint32_t y = 0; y < b.height; y++)
		cr_assert_eq(memcmp(ref + y * rowbytes, b.data + y * b.stride,
				    rowbytes), 0, "row %u differs", y);
	free(junk);
	free(ref);
	aug_decoder_destroy(d);
	aug_membuf_free(&jpg);
}

FR_TEST(jpeg_warnings, damage_inside_the_scan_still_fails_the_sample)
{
	struct aug_membuf jpg = { 0 };
	struct aug_decoder *d;
	struct aug_view v;
	unsigned char *bad;
	int ret;

	cr_assert_eq(tl_make_jpeg(96, 64, 4, AUG_ENC_420, 90, false, &jpg), 0);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	/* a restart marker in the middle of the entropy-coded data */
	bad = malloc(jpg.len);
	memcpy(bad, jpg.data, jpg.len);
	bad[jpg.len / 2] = 0xff;
	bad[jpg.len / 2 + 1] = 0xd3;
	ret = decode(d, bad, jpg.len, &v);
	cr_assert(ret == -AUG_ECORRUPT || ret == -AUG_ETRUNCATED,
		  "damaged scan decoded (%d: %s)", ret, aug_decoder_message(d));
	free(bad);
	aug_decoder_destroy(d);
	aug_membuf_free(&jpg);
}
