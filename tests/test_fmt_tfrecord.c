/*
 * test_fmt_tfrecord.c - TFRecord framing (scanner, header walk, unwrap),
 * the tf.train.Example reader, CRC-32C, and the format table (names, error
 * keys, dispatch). Files are framed here by hand and the Examples built by
 * a small protobuf encoder of the test's own, so the reader is checked
 * against the wire format rather than against itself. (No TensorFlow:
 * Debian has none for /usr/bin/python3.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_internal.h"
#include "fmt_testlib.h"
#include "harness.h"

/* ---- a protobuf encoder of the test's own ---- */

struct pbw {
	uint8_t *p;
	size_t n, cap;
};

static void pbw_raw(struct pbw *w, const void *d, size_t n)
{
	if (w->n + n > w->cap) {
		w->cap = (w->n + n) * 2 + 64;
		w->p = realloc(w->p, w->cap);
		cr_assert_not_null(w->p);
	}
	if (n)
		memcpy(w->p + w->n, d, n);
	w->n += n;
}

static void pbw_varint(struct pbw *w, uint64_t v)
{
	do {
		uint8_t b = (uint8_t)(v & 0x7f);

		v >>= 7;
		if (v)
			b |= 0x80;
		pbw_raw(w, &b, 1);
	} while (v);
}

static void pbw_tag(struct pbw *w, unsigned num, unsigned wt)
{
	pbw_varint(w, (uint64_t)num << 3 | wt);
}

static void pbw_len(struct pbw *w, unsigned num, const void *d, size_t n)
{
	pbw_tag(w, num, 2);
	pbw_varint(w, n);
	pbw_raw(w, d, n);
}

/* SUB as field NUM of W; frees SUB */
static void pbw_msg(struct pbw *w, unsigned num, struct pbw *sub)
{
	pbw_len(w, num, sub->p, sub->n);
	free(sub->p);
	memset(sub, 0, sizeof(*sub));
}

/* a map entry {key: KEY, value: Feature{FIELD: LIST}} of Features */
static void entry(struct pbw *features, const char *key, unsigned field,
		  struct pbw *list, bool value_first)
{
	struct pbw feat = { 0 }, ent = { 0 };

	pbw_msg(&feat, field, list);
	if (!value_first)
		pbw_len(&ent, 1, key, strlen(key));
	pbw_msg(&ent, 2, &feat);
	if (value_first)
		pbw_len(&ent, 1, key, strlen(key));
	pbw_msg(features, 1, &ent);
}

static void entry_bytes(struct pbw *features, const char *key,
			const void *v, size_t n)
{
	struct pbw list = { 0 };

	pbw_len(&list, 1, v, n);
	entry(features, key, 1, &list, false);
}

static void entry_int64(struct pbw *features, const char *key, int64_t v,
			bool packed)
{
	struct pbw list = { 0 }, pk = { 0 };

	if (packed) {
		pbw_varint(&pk, (uint64_t)v);
		pbw_varint(&pk, 7);     /* a second value, not the label */
		pbw_msg(&list, 1, &pk);
	} else {
		pbw_tag(&list, 1, 0);
		pbw_varint(&list, (uint64_t)v);
		pbw_tag(&list, 1, 0);
		pbw_varint(&list, 7);
	}
	entry(features, key, 3, &list, false);
}

/* Example{features: FEATURES}; frees FEATURES */
static struct pbw example_of(struct pbw *features)
{
	struct pbw ex = { 0 };

	pbw_msg(&ex, 1, features);
	return ex;
}

/* an ImageNet-like Example: image bytes IMG, label LABEL */
static struct pbw example_simple(const uint8_t *img, size_t n, int64_t label,
				 bool packed)
{
	struct pbw f = { 0 };

	entry_bytes(&f, "image/format", "JPEG", 4);
	entry_int64(&f, "image/height", 480, false);
	entry_bytes(&f, "image/encoded", img, n);
	entry_int64(&f, "image/class/label", label, packed);
	return example_of(&f);
}

/* ---- framing ---- */

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* append DATA as one framed record */
static void frame(struct pbw *file, const uint8_t *data, size_t n)
{
	uint8_t h[12], t[4];

	put_le(h, n, 8);
	put_le(h + 8, wl_crc32c_mask(wl_crc32c(0, h, 8)), 4);
	put_le(t, wl_crc32c_mask(wl_crc32c(0, data, n)), 4);
	pbw_raw(file, h, sizeof(h));
	pbw_raw(file, data, n);
	pbw_raw(file, t, sizeof(t));
}

/* image bytes of record I: a JPEG-looking run of LEN bytes */
static size_t image_of(unsigned i, uint8_t *buf, size_t cap)
{
	size_t len = 200 + (size_t)((i * 2654435761u) % 20000);

	cr_assert_leq(len, cap);
	buf[0] = 0xff;
	buf[1] = 0xd8;
	for (size_t k = 2; k < len; k++)
		buf[k] = (uint8_t)(i * 31 + k * 7);
	return len;
}

#define MAX_REC (1u << 20)

/* a file of N records; record offsets in OFFS when not NULL */
static struct pbw file_of(unsigned n, uint64_t *offs)
{
	static uint8_t img[32768];
	struct pbw file = { 0 };

	for (unsigned i = 0; i < n; i++) {
		size_t len = image_of(i, img, sizeof(img));
		struct pbw ex = example_simple(img, len, (int64_t)i % 1000,
					       i % 2);

		if (offs)
			offs[i] = file.n;
		frame(&file, ex.p, ex.n);
		free(ex.p);
	}
	return file;
}

/* ---- CRC-32C ---- */

FR_TEST(fmt_tfrecord, crc32c_matches_the_standard_check_values)
{
	uint8_t buf[64], zeros[32] = { 0 }, ones[32];

	cr_expect_eq(wl_crc32c(0, "123456789", 9), 0xE3069283u);
	/* RFC 3720 B.4 (iSCSI) vectors, 32 bytes each */
	memset(ones, 0xff, sizeof(ones));
	cr_expect_eq(wl_crc32c(0, zeros, 32), 0x8A9136AAu);
	cr_expect_eq(wl_crc32c(0, ones, 32), 0x62A8AB43u);
	for (unsigned i = 0; i < 32; i++)
		buf[1 + i] = (uint8_t)i;        /* unaligned on purpose */
	cr_expect_eq(wl_crc32c(0, buf + 1, 32), 0x46DD794Eu);
	for (unsigned i = 0; i < 32; i++)
		buf[3 + i] = (uint8_t)(31 - i);
	cr_expect_eq(wl_crc32c(0, buf + 3, 32), 0x113FDB5Cu);
	/* continuing from a previous CRC is the CRC of the concatenation */
	cr_expect_eq(wl_crc32c(wl_crc32c(0, "1234", 4), "56789", 5),
		     0xE3069283u);
	cr_expect_eq(wl_crc32c(0, NULL, 0), 0u);
}

FR_TEST(fmt_tfrecord, masked_crc_is_tensorflows_rotation_plus_constant)
{
	const uint8_t zero_len[8] = { 0 };

	cr_expect_eq(wl_crc32c_mask(0xE3069283u), 0xC78AB0E5u);
	cr_expect_eq(wl_crc32c_mask(0), 0xA282EAD8u);
	/* the length CRC of an empty record */
	cr_expect_eq(wl_crc32c_mask(wl_crc32c(0, zero_len, 8)), 0x07980329u);
}

/* ---- tf.train.Example ---- */

FR_TEST(fmt_tfrecord, example_gives_image_label_and_kind)
{
	static const uint8_t img[] = { 0xff, 0xd8, 1, 2, 3, 0xff, 0xd9 };
	struct wl_sample_view v;

	for (int packed = 0; packed < 2; packed++) {
		struct pbw ex = example_simple(img, sizeof(img), 417,
					       packed);

		cr_assert_eq(wl_pb_example_find(ex.p, ex.n, &v), 0);
		cr_expect_eq(v.image_len, sizeof(img));
		cr_expect_eq(memcmp(v.image, img, sizeof(img)), 0);
		cr_expect(v.image >= ex.p && v.image + v.image_len <=
			  ex.p + ex.n, "the image points into the record");
		cr_expect(v.has_label);
		cr_expect_eq(v.label, 417, "packed %d: label %lld", packed,
			     (long long)v.label);
		cr_expect_eq(v.image_kind, WL_IMAGE_JPEG);
		free(ex.p);
	}
}

FR_TEST(fmt_tfrecord, negative_and_large_labels_survive_ten_byte_varints)
{
	static const int64_t labels[] = { -1, INT64_MIN, INT64_MAX,
					  (int64_t)1 << 35 };
	struct wl_sample_view v;

	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		for (int packed = 0; packed < 2; packed++) {
			struct pbw ex = example_simple((const uint8_t *)"x", 1,
						       labels[i], packed);

			cr_assert_eq(wl_pb_example_find(ex.p, ex.n, &v), 0);
			cr_expect_eq(v.label, labels[i]);
			free(ex.p);
		}
	}
}

FR_TEST(fmt_tfrecord, unknown_fields_and_any_order_are_read_past)
{
	struct pbw f = { 0 }, ex = { 0 }, list = { 0 }, unk = { 0 };
	struct wl_sample_view v;
	uint8_t fixed[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	/* Features: an unknown varint field, then the label with its value
	 * before its key, then a float feature, then the image */
	pbw_tag(&f, 9, 0);
	pbw_varint(&f, 123456789);
	pbw_tag(&list, 1, 0);
	pbw_varint(&list, 5);
	pbw_tag(&list, 15, 5);          /* unknown fixed32 in Int64List */
	pbw_raw(&list, fixed, 4);
	entry(&f, "image/class/label", 3, &list, true);
	pbw_tag(&list, 1, 5);
	pbw_raw(&list, fixed, 4);
	entry(&f, "image/object/bbox/xmin", 2, &list, false);
	pbw_len(&list, 2, "unknown", 7);        /* unknown in BytesList */
	pbw_len(&list, 1, "PNGDATA", 7);
	pbw_len(&list, 1, "second", 6);
	entry(&f, "image/encoded", 1, &list, false);
	entry_bytes(&f, "image/format", "png", 3);
	/* Example: unknown fixed64 and length fields around features */
	pbw_tag(&ex, 4, 1);
	pbw_raw(&ex, fixed, 8);
	pbw_msg(&ex, 1, &f);
	pbw_len(&unk, 3, "zz", 2);
	pbw_msg(&ex, 5, &unk);
	cr_assert_eq(wl_pb_example_find(ex.p, ex.n, &v), 0);
	cr_expect_eq(v.image_len, 7);
	cr_expect_eq(memcmp(v.image, "PNGDATA", 7), 0, "the first value");
	cr_expect(v.has_label);
	cr_expect_eq(v.label, 5);
	cr_expect_eq(v.image_kind, WL_IMAGE_PNG);
	free(ex.p);
}

FR_TEST(fmt_tfrecord, features_split_over_two_messages_merge_and_later_wins)
{
	struct pbw f1 = { 0 }, f2 = { 0 }, ex = { 0 };
	struct wl_sample_view v;

	entry_bytes(&f1, "image/encoded", "old", 3);
	entry_int64(&f1, "image/class/label", 1, false);
	entry_bytes(&f2, "image/encoded", "new", 3);
	pbw_msg(&ex, 1, &f1);
	pbw_msg(&ex, 1, &f2);
	cr_assert_eq(wl_pb_example_find(ex.p, ex.n, &v), 0);
	cr_expect_eq(memcmp(v.image, "new", 3), 0);
	cr_expect(v.has_label, "the label of the first message stays");
	cr_expect_eq(v.label, 1);
	cr_expect_eq(v.image_kind, WL_IMAGE_UNKNOWN, "no image/format");
	free(ex.p);
}

FR_TEST(fmt_tfrecord, example_without_image_is_no_image)
{
	struct pbw f = { 0 }, ex;
	struct wl_sample_view v;

	entry_int64(&f, "image/class/label", 3, true);
	entry_int64(&f, "image/encoded", 3, true);      /* not bytes */
	ex = example_of(&f);
	cr_expect_eq(wl_pb_example_find(ex.p, ex.n, &v), -WL_ENOIMAGE);
	free(ex.p);
	entry_bytes(&f, "image/encoded", "", 0);
	ex = example_of(&f);
	cr_expect_eq(wl_pb_example_find(ex.p, ex.n, &v), -WL_ENOIMAGE,
		     "an empty image");
	free(ex.p);
	cr_expect_eq(wl_pb_example_find(NULL, 0, &v), -WL_ENOIMAGE,
		     "an empty Example");
}

FR_TEST(fmt_tfrecord, malformed_protobuf_is_a_bad_record)
{
	static const struct { const char *what; uint8_t b[16]; size_t n; }
	cases[] = {
		{ "varint cut short", { 0x08, 0x80 }, 2 },
		{ "eleven-byte varint", { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
		  12 },
		{ "length past the end", { 0x0a, 0x05, 1, 2 }, 4 },
		{ "start group", { 0x0b }, 1 },
		{ "wire type 7", { 0x0f }, 1 },
		{ "field number 0", { 0x02, 0x00 }, 2 },
		{ "fixed64 cut short", { 0x11, 1, 2, 3 }, 4 },
		{ "features as a varint", { 0x08, 0x01 }, 2 },
		/* Features{entry{key: varint}} */
		{ "key as a varint", { 0x0a, 0x04, 0x0a, 0x02, 0x08, 0x01 },
		  6 },
		/* Example{Features{entry of 9 bytes in 2}} */
		{ "inner length past its message",
		  { 0x0a, 0x04, 0x0a, 0x09, 0x00, 0x00 }, 6 },
	};
	struct wl_sample_view v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(wl_pb_example_find(cases[i].b, cases[i].n, &v),
			     -WL_EBADREC, "%s", cases[i].what);
}

FR_TEST(fmt_tfrecord, malformed_list_of_a_wanted_feature_is_a_bad_record)
{
	struct pbw f = { 0 }, list = { 0 }, ex;
	struct wl_sample_view v;

	entry_bytes(&f, "image/encoded", "img", 3);
	pbw_len(&list, 1, "\x80", 1);   /* packed varint cut short */
	entry(&f, "image/class/label", 3, &list, false);
	ex = example_of(&f);
	cr_expect_eq(wl_pb_example_find(ex.p, ex.n, &v), -WL_EBADREC);
	free(ex.p);
}

/* ---- framing ---- */

FR_TEST(fmt_tfrecord, scanner_cuts_every_record_the_same_in_any_appends)
{
	enum { N = 160 };
	static const size_t chunks[] = { 13, 4096, 1 << 20, (size_t)1 << 30 };
	uint64_t offs[N];
	struct pbw file = file_of(N, offs);
	struct ft_scan one, part;
	uint8_t img[32768];

	ft_scan_chunked(WL_FORMAT_TFRECORD, NULL, file.p, file.n, file.n,
			MAX_REC, &one);
	cr_assert_eq(one.err, 0);
	cr_assert_eq(one.nrec, N);
	for (unsigned i = 0; i < N; i++) {
		struct wl_sample_view v;
		size_t len = image_of(i, img, sizeof(img));

		cr_assert_eq(one.recs[i].off, offs[i]);
		cr_assert_eq(wl_unwrap(WL_FORMAT_TFRECORD, NULL,
				       file.p + one.recs[i].off,
				       one.recs[i].len, &v), 0);
		cr_assert_eq(v.image_len, len);
		cr_assert_eq(memcmp(v.image, img, len), 0, "record %u", i);
		cr_assert(v.has_label && v.label == (int64_t)i % 1000);
	}
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		ft_scan_chunked(WL_FORMAT_TFRECORD, NULL, file.p, file.n,
				chunks[c], MAX_REC, &part);
		ft_scan_expect_same(&one, &part, chunks[c]);
		free(part.recs);
	}
	/* one byte at a time over the first records (the whole file would
	 * be millions of calls) */
	ft_scan_chunked(WL_FORMAT_TFRECORD, NULL, file.p, offs[12], 1,
			MAX_REC, &part);
	cr_expect_eq(part.err, 0);
	cr_expect_eq(part.nrec, 12);
	free(part.recs);
	free(one.recs);
	free(file.p);
}

FR_TEST(fmt_tfrecord, header_walk_counts_what_the_scanner_cuts)
{
	struct pbw file = file_of(40, NULL);
	struct ft_mem m = { file.p, file.n, 0 };
	uint64_t count = 0, err_off = 0;

	cr_assert_eq(wl_walk_count(WL_FORMAT_TFRECORD, ft_mem_pread, &m,
				   file.n, MAX_REC, &count, &err_off), 0);
	cr_expect_eq(count, 40);
	cr_expect_eq(m.reads, 40, "one 12-byte read per record");
	free(file.p);
}

FR_TEST(fmt_tfrecord, data_crc_mismatch_loses_that_record_only)
{
	uint64_t offs[5];
	struct pbw file = file_of(5, offs);
	struct ft_scan sc;
	struct wl_sample_view v;

	file.p[offs[2] + 12 + 40] ^= 0x20;      /* inside record 2's data */
	ft_scan_chunked(WL_FORMAT_TFRECORD, NULL, file.p, file.n, 4096,
			MAX_REC, &sc);
	cr_assert_eq(sc.err, 0);
	cr_assert_eq(sc.nrec, 5, "the framing still holds");
	for (unsigned i = 0; i < 5; i++)
		cr_expect_eq(wl_unwrap(WL_FORMAT_TFRECORD, NULL,
				       file.p + sc.recs[i].off,
				       sc.recs[i].len, &v),
			     i == 2 ? -WL_ECRC : 0, "record %u", i);
	/* the data's CRC itself damaged */
	file.p[offs[2] + 12 + 40] ^= 0x20;
	file.p[offs[3] - 1] ^= 1;
	cr_expect_eq(wl_tfr_unwrap(file.p + offs[2], offs[3] - offs[2], &v),
		     -WL_ECRC);
	free(sc.recs);
	free(file.p);
}

FR_TEST(fmt_tfrecord, length_crc_mismatch_loses_the_rest_of_the_file)
{
	uint64_t offs[6];
	struct pbw file = file_of(6, offs);
	struct ft_mem m = { file.p, file.n, 0 };
	uint64_t count = 0, err_off = 0;
	struct ft_scan sc;
	struct wl_sample_view v;

	file.p[offs[3] + 1] ^= 0x01;    /* record 3's length */
	ft_scan_chunked(WL_FORMAT_TFRECORD, NULL, file.p, file.n, 13,
			MAX_REC, &sc);
	cr_expect_eq(sc.err, -WL_ECRC);
	cr_expect_eq(sc.err_off, offs[3]);
	cr_expect_eq(sc.nrec, 3);
	cr_expect_eq(wl_walk_count(WL_FORMAT_TFRECORD, ft_mem_pread, &m,
				   file.n, MAX_REC, &count, &err_off),
		     -WL_ECRC);
	cr_expect_eq(count, 3);
	cr_expect_eq(err_off, offs[3]);
	cr_expect_eq(wl_tfr_unwrap(file.p + offs[3], offs[4] - offs[3], &v),
		     -WL_ECRC);
	free(sc.recs);
	free(file.p);
}

FR_TEST(fmt_tfrecord, file_ending_inside_a_record_is_truncated)
{
	uint64_t offs[4];
	struct pbw file = file_of(4, offs);
	const size_t cuts[] = { offs[3] + 5, offs[3] + 12, file.n - 1 };

	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		struct ft_mem m = { file.p, cuts[c], 0 };
		uint64_t count = 0, err_off = 0;
		struct ft_scan sc;

		ft_scan_chunked(WL_FORMAT_TFRECORD, NULL, file.p, cuts[c],
				4096, MAX_REC, &sc);
		cr_expect_eq(sc.err, -WL_ETRUNCREC, "cut at %zu", cuts[c]);
		cr_expect_eq(sc.err_off, offs[3]);
		cr_expect_eq(sc.nrec, 3);
		cr_expect_eq(wl_walk_count(WL_FORMAT_TFRECORD, ft_mem_pread,
					   &m, cuts[c], MAX_REC, &count,
					   &err_off), -WL_ETRUNCREC);
		cr_expect_eq(count, 3);
		cr_expect_eq(err_off, offs[3]);
		free(sc.recs);
	}
	free(file.p);
}

FR_TEST(fmt_tfrecord, record_over_max_record_is_a_bad_header)
{
	uint64_t offs[3];
	struct pbw file = file_of(3, offs);
	const uint64_t max = offs[1] - offs[0];         /* record 0 fits */
	struct ft_mem m = { file.p, file.n, 0 };
	uint64_t count = 0, err_off = 0;
	struct ft_scan sc;

	cr_assert_gt(offs[2] - offs[1], max, "record 1 must not fit");
	ft_scan_chunked(WL_FORMAT_TFRECORD, NULL, file.p, file.n, 4096, max,
			&sc);
	cr_expect_eq(sc.nrec, 1);
	cr_expect_eq(sc.err, -WL_EBADHDR);
	cr_expect_eq(sc.err_off, offs[1]);
	cr_expect_eq(wl_walk_count(WL_FORMAT_TFRECORD, ft_mem_pread, &m,
				   file.n, max, &count, &err_off),
		     -WL_EBADHDR);
	cr_expect_eq(count, 1);
	cr_expect_eq(err_off, offs[1]);
	free(sc.recs);
	free(file.p);
}

FR_TEST(fmt_tfrecord, empty_file_has_no_records_and_no_error)
{
	struct ft_scan sc;
	struct ft_mem m = { NULL, 0, 0 };
	uint64_t count = 9, err_off = 0;

	ft_scan_chunked(WL_FORMAT_TFRECORD, NULL, NULL, 0, 4096, MAX_REC, &sc);
	cr_expect_eq(sc.err, 0);
	cr_expect_eq(sc.nrec, 0);
	cr_expect_eq(wl_walk_count(WL_FORMAT_TFRECORD, ft_mem_pread, &m, 0,
				   MAX_REC, &count, &err_off), 0);
	cr_expect_eq(count, 0);
	free(sc.recs);
}

FR_TEST(fmt_tfrecord, unwrap_refuses_a_cut_that_is_not_one_record)
{
	uint64_t offs[2];
	struct pbw file = file_of(2, offs);
	struct wl_sample_view v;

	cr_expect_eq(wl_tfr_unwrap(file.p, offs[1] - 1, &v), -WL_EBADHDR);
	cr_expect_eq(wl_tfr_unwrap(file.p, file.n, &v), -WL_EBADHDR);
	cr_expect_eq(wl_tfr_unwrap(file.p, 15, &v), -WL_EBADHDR);
	free(file.p);
}

/* ---- the format table ---- */

FR_TEST(formats, names_round_trip_and_unknown_names_fail)
{
	enum wl_format f;

	for (int i = 0; i < WL_FORMAT_COUNT; i++) {
		cr_assert_eq(wl_format_parse(wl_format_name((enum wl_format)i),
					     &f), 0);
		cr_expect_eq(f, (enum wl_format)i);
	}
	cr_expect_str_eq(wl_format_name(WL_FORMAT_TFRECORD), "tfrecord");
	cr_expect_str_eq(wl_format_name(WL_FORMAT_WDS), "wds");
	cr_expect_eq(wl_format_parse("TFRecord", &f), -EINVAL);
	cr_expect_eq(wl_format_parse("", &f), -EINVAL);
	cr_expect_eq(wl_format_parse(NULL, &f), -EINVAL);
}

FR_TEST(formats, every_format_error_has_its_key_and_others_none)
{
	static const struct { int err; const char *key; } keys[] = {
		{ WL_EBADHDR, "bad_header" },
		{ WL_ETRUNCREC, "truncated_record" },
		{ WL_EZSTD, "bad_zstd" }, { WL_EMISSING, "missing_shard" },
		{ WL_ECRC, "crc_mismatch" }, { WL_ENOIMAGE, "no_image" },
		{ WL_EBADINDEX, "bad_index" }, { WL_EBADREC, "bad_record" },
	};

	cr_assert_eq(sizeof(keys) / sizeof(keys[0]),
		     WL_FMT_E_END - WL_FMT_E_BASE);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		cr_expect_str_eq(wl_fmt_err_name(-keys[i].err), keys[i].key);
		cr_expect_str_eq(wl_fmt_err_name(keys[i].err), keys[i].key);
	}
	cr_expect_null(wl_fmt_err_name(0));
	cr_expect_null(wl_fmt_err_name(-EIO));
	cr_expect_null(wl_fmt_err_name(-WL_FMT_E_END));
	cr_expect_null(wl_fmt_err_name(INT32_MIN));
}

FR_TEST(formats, walk_and_scan_answer_for_formats_without_them)
{
	struct ft_mem m = { NULL, 0, 0 };
	uint64_t count = 9, err_off = 0;
	struct wl_scanner s;
	struct wl_record rec;
	struct wl_sample_view v;
	static const uint8_t img[] = { 0xff, 0xd8, 0xff };

	cr_expect_eq(wl_walk_count(WL_FORMAT_MDS, ft_mem_pread, &m, 0, 1,
				   &count, &err_off), -ENOTSUP);
	cr_expect_eq(count, 0);
	cr_expect_eq(wl_walk_count(WL_FORMAT_FOLDER, ft_mem_pread, &m, 0, 1,
				   &count, &err_off), -EINVAL);
	cr_expect_eq(wl_walk_count(WL_FORMAT_COUNT, ft_mem_pread, &m, 0, 1,
				   &count, &err_off), -EINVAL);
	wl_scan_init(&s, WL_FORMAT_FOLDER, NULL, 1 << 20);
	cr_expect_eq(wl_scan_next(&s, img, 0, sizeof(img), true, &rec),
		     -EINVAL);
	wl_scan_init(&s, WL_FORMAT_MDS, NULL, 1 << 20);
	cr_expect_eq(wl_scan_next(&s, img, 0, sizeof(img), true, &rec),
		     -EINVAL, "an MDS scan needs its shard");
	cr_expect_eq(wl_unwrap(WL_FORMAT_MDS, NULL, img, sizeof(img), &v),
		     -EINVAL);
	/* a folder's record is the image file itself */
	cr_assert_eq(wl_unwrap(WL_FORMAT_FOLDER, NULL, img, sizeof(img), &v),
		     0);
	cr_expect(v.image == img && v.image_len == sizeof(img) &&
		  !v.has_label);
}

FR_TEST(formats, scan_refuses_a_window_that_dropped_needed_bytes)
{
	struct pbw file = file_of(2, NULL);
	struct wl_scanner s;
	struct wl_record rec;

	wl_scan_init(&s, WL_FORMAT_TFRECORD, NULL, MAX_REC);
	cr_expect_eq(s.fmt, WL_FORMAT_TFRECORD);
	cr_expect_eq(s.max_record, MAX_REC);
	cr_expect_eq(wl_scan_next(&s, file.p + 1, 1, file.n - 1, true, &rec),
		     -EINVAL, "keep_from is 0");
	cr_expect_eq(wl_scan_next(&s, file.p, 0, file.n, true, &rec), 1);
	free(file.p);
}
