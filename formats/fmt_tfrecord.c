/*
 * fmt_tfrecord.c - TFRecord files of tf.train.Example.
 *
 * Framing (tensorflow/core/lib/io/record_writer.cc): per record
 *   uint64 length (LE) | uint32 masked CRC-32C of the 8 length bytes |
 *   data[length]       | uint32 masked CRC-32C of the data
 * so a record takes length + 16 bytes. The length's CRC is checked where
 * the stream is cut (scanner, header walk): a length that fails it cannot
 * be trusted to find the next record, so the rest of the file is lost
 * (-WL_ECRC at that record). The data's CRC costs a pass over the data, so
 * the unwrap checks it on the worker: a mismatch loses that record only.
 *
 * The data is a serialized tf.train.Example, read by a minimal protobuf
 * walker that descends only along Example.features (1) -> Features.feature
 * (1, map entries: key 1, value 2) -> Feature (oneof bytes_list 1,
 * float_list 2, int64_list 3) -> BytesList / Int64List value (1); other
 * fields are skipped by their wire type, within bounds.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "fmt_internal.h"

#define TFR_HEAD 12u             /* length + its CRC */
#define TFR_OVERHEAD 16u         /* + the data's CRC */

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static bool tfr_crc_ok(const uint8_t *data, size_t len, const uint8_t *crc)
{
	return wl_crc32c_mask(wl_crc32c(0, data, len)) == le32(crc);
}

/*
 * Check the 12-byte head at H against MAX_RECORD: 0 with the framed
 * record's size in *TOTAL, -WL_ECRC (length CRC) or -WL_EBADHDR (longer
 * than MAX_RECORD).
 */
static int tfr_head_check(const uint8_t *h, uint64_t max_record,
			  uint64_t *total)
{
	uint64_t len;

	if (!tfr_crc_ok(h, 8, h + 8))
		return -WL_ECRC;
	len = le64(h);
	if (max_record < TFR_OVERHEAD || len > max_record - TFR_OVERHEAD)
		return -WL_EBADHDR;
	*total = len + TFR_OVERHEAD;
	return 0;
}

/* ---- scanner ---- */

/* u[0]: the error met (negative), sticky: the stream is lost past it */
#define TFR_ERR u[0]

void wl_tfr_scan_init(struct wl_scanner *s)
{
	s->pos = 0;
	s->keep_from = 0;
}

static int tfr_fail(struct wl_scanner *s, int err, uint64_t at)
{
	s->TFR_ERR = (uint64_t)(int64_t)err;
	s->err_off = at;
	return err;
}

int wl_tfr_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec)
{
	const uint64_t at = s->pos;
	const uint64_t end = win_base + win_len;
	uint64_t avail = end > at ? end - at : 0;
	uint64_t total;
	int err;

	if (s->TFR_ERR)
		return (int)(int64_t)s->TFR_ERR;
	s->keep_from = at;
	if (avail < TFR_HEAD) {
		if (!eof)
			return 0;
		if (avail == 0 && end == at)
			return 0;       /* ended between records */
		return tfr_fail(s, -WL_ETRUNCREC, at);
	}
	err = tfr_head_check(win + (at - win_base), s->max_record, &total);
	if (err)
		return tfr_fail(s, err, at);
	if (avail < total)
		return eof ? tfr_fail(s, -WL_ETRUNCREC, at) : 0;
	rec->off = at;
	rec->len = total;
	s->pos = at + total;
	s->keep_from = s->pos;
	s->records++;
	return 1;
}

/* ---- header walk ---- */

int wl_tfr_walk_count(wl_pread_fn pread, void *arg, uint64_t size,
		      uint64_t max_record, uint64_t *count, uint64_t *err_off)
{
	uint8_t h[TFR_HEAD];
	uint64_t off = 0, total;
	int64_t got;
	int err;

	*count = 0;
	while (off < size) {
		got = pread(arg, h, sizeof(h), off);
		if (got < 0)
			return (int)got;
		if ((uint64_t)got < sizeof(h)) {
			*err_off = off;
			return -WL_ETRUNCREC;
		}
		err = tfr_head_check(h, max_record, &total);
		if (!err && total > size - off)
			err = -WL_ETRUNCREC;
		if (err) {
			*err_off = off;
			return err;
		}
		off += total;
		(*count)++;
	}
	return 0;
}

/* ---- DALI's side index ---- */

/* One unsigned decimal at *P (before END), then spaces or tabs: 0, or
 * -1 for no digit or an overflow. */
static int idx_number(const char **p, const char *end, uint64_t *v)
{
	const char *q = *p;

	*v = 0;
	if (q == end || *q < '0' || *q > '9')
		return -1;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*q - '0');
	}
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	*p = q;
	return 0;
}

/*
 * tfrecord2idx (DALI's tools/tfrecord2idx) writes, per record, the
 * record's offset and its framed size (length + 16) in decimal, a space
 * between, a newline after. The lines are checked against the shard:
 * contiguous from 0, each at least a framed empty record, the last
 * ending at the shard's size; anything else is a corrupt or stale index.
 */
int wl_tfr_idx_count(const char *text, size_t len, uint64_t shard_size,
		     uint64_t *count)
{
	const char *p = text, *end = text + len;
	uint64_t next = 0, n = 0;

	*count = 0;
	while (p < end) {
		uint64_t off, size;

		if (*p == '\n' || *p == '\r') {      /* blank line, CRLF */
			p++;
			continue;
		}
		if (idx_number(&p, end, &off) || idx_number(&p, end, &size) ||
		    (p < end && *p != '\n' && *p != '\r'))
			return -WL_EBADINDEX;
		if (off != next || size < TFR_OVERHEAD ||
		    size > shard_size - off)
			return -WL_EBADINDEX;
		next = off + size;
		n++;
	}
	if (next != shard_size)
		return -WL_EBADINDEX;
	*count = n;
	return 0;
}

/* ---- protobuf ---- */

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

struct pb_field {
	uint32_t num;
	unsigned wt;
	uint64_t v;             /* VARINT, I64, I32 */
	const uint8_t *data;    /* LEN */
	size_t len;
};

/* A varint of at most 10 bytes at *P (before END); -1 when it runs past
 * END or past 10 bytes. Bits past 64 are dropped, as protobuf does. */
static int pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned i = 0; i < 10 && *p < end; i++) {
		uint8_t b = *(*p)++;

		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* The next field at *P: 1 (in F), 0 at END, -1 malformed. */
static int pb_next(const uint8_t **p, const uint8_t *end, struct pb_field *f)
{
	uint64_t tag, len;

	if (*p == end)
		return 0;
	if (pb_varint(p, end, &tag) || tag > UINT32_MAX || !(tag >> 3))
		return -1;
	f->num = (uint32_t)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	f->data = NULL;
	f->len = 0;
	switch (f->wt) {
	case PB_VARINT:
		return pb_varint(p, end, &f->v) ? -1 : 1;
	case PB_I64:
		if (end - *p < 8)
			return -1;
		f->v = le64(*p);
		*p += 8;
		return 1;
	case PB_I32:
		if (end - *p < 4)
			return -1;
		f->v = le32(*p);
		*p += 4;
		return 1;
	case PB_LEN:
		if (pb_varint(p, end, &len) || len > (uint64_t)(end - *p))
			return -1;
		f->data = *p;
		f->len = (size_t)len;
		*p += len;
		return 1;
	default:                /* groups (3, 4) and 6, 7: not in Example */
		return -1;
	}
}

/*
 * One Feature's value as protobuf merging builds it over repeated
 * occurrences: the oneof member seen last wins (another member clears
 * it), and a list's repeated values concatenate, so the first value is the
 * first met since the member was last set.
 */
struct pb_feature {
	uint32_t kind;          /* 0 none, 1 bytes, 2 float, 3 int64 */
	bool found;
	const uint8_t *bytes;
	size_t bytes_len;
	int64_t i64;
};

static int pb_bytes_list(const uint8_t *p, size_t n, struct pb_feature *ft)
{
	const uint8_t *end = p + n;
	struct pb_field f;
	int r;

	while ((r = pb_next(&p, end, &f)) > 0) {
		if (f.num != 1)
			continue;
		if (f.wt != PB_LEN)
			return -1;
		if (!ft->found) {
			ft->found = true;
			ft->bytes = f.data;
			ft->bytes_len = f.len;
		}
	}
	return r;
}

static int pb_int64_list(const uint8_t *p, size_t n, struct pb_feature *ft)
{
	const uint8_t *end = p + n;
	struct pb_field f;
	int r;

	while ((r = pb_next(&p, end, &f)) > 0) {
		if (f.num != 1)
			continue;
		if (f.wt == PB_VARINT) {
			if (!ft->found) {
				ft->found = true;
				ft->i64 = (int64_t)f.v;
			}
		} else if (f.wt == PB_LEN) {    /* packed */
			const uint8_t *q = f.data, *qend = f.data + f.len;
			uint64_t v;

			while (q < qend) {
				if (pb_varint(&q, qend, &v))
					return -1;
				if (!ft->found) {
					ft->found = true;
					ft->i64 = (int64_t)v;
				}
			}
		} else {
			return -1;
		}
	}
	return r;
}

static int pb_feature(const uint8_t *p, size_t n, struct pb_feature *ft)
{
	const uint8_t *end = p + n;
	struct pb_field f;
	int r;

	while ((r = pb_next(&p, end, &f)) > 0) {
		if (f.num < 1 || f.num > 3)
			continue;
		if (f.wt != PB_LEN)
			return -1;
		if (f.num != ft->kind) {
			memset(ft, 0, sizeof(*ft));
			ft->kind = f.num;
		}
		if (f.num == 1 && pb_bytes_list(f.data, f.len, ft))
			return -1;
		if (f.num == 3 && pb_int64_list(f.data, f.len, ft))
			return -1;
	}
	return r;
}

enum pb_key { KEY_OTHER, KEY_IMAGE, KEY_LABEL, KEY_FORMAT };

struct pb_found {
	struct pb_feature image, label, format;
};

/* IMAGE_KEY: the payload's feature (image/encoded by default). */
static enum pb_key pb_key_of(const uint8_t *k, size_t n,
			     const char *image_key)
{
	static const struct { const char *s; enum pb_key key; } keys[] = {
		{ "image/class/label", KEY_LABEL },
		{ "image/format", KEY_FORMAT },
	};

	if (n == strlen(image_key) && !memcmp(k, image_key, n))
		return KEY_IMAGE;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (n == strlen(keys[i].s) && !memcmp(k, keys[i].s, n))
			return keys[i].key;
	return KEY_OTHER;
}

/* One map entry of Features.feature; a later entry of the same key
 * replaces an earlier one, as a protobuf map does. */
static int pb_map_entry(const uint8_t *p, size_t n, struct pb_found *fd,
			const char *image_key)
{
	const uint8_t *q = p, *end = p + n;
	const uint8_t *key = NULL;
	size_t key_len = 0;
	struct pb_feature ft = { 0 };
	struct pb_field f;
	enum pb_key which;
	int r;

	while ((r = pb_next(&q, end, &f)) > 0) {
		if ((f.num == 1 || f.num == 2) && f.wt != PB_LEN)
			return -1;
		if (f.num == 1) {
			key = f.data;
			key_len = f.len;
		}
	}
	if (r)
		return -1;
	which = key ? pb_key_of(key, key_len, image_key) : KEY_OTHER;
	if (which == KEY_OTHER)
		return 0;
	/* the key may follow its value: a second pass for the values */
	q = p;
	while (pb_next(&q, end, &f) > 0)
		if (f.num == 2 && pb_feature(f.data, f.len, &ft))
			return -1;
	if (which == KEY_IMAGE)
		fd->image = ft;
	else if (which == KEY_LABEL)
		fd->label = ft;
	else
		fd->format = ft;
	return 0;
}

static int pb_features(const uint8_t *p, size_t n, struct pb_found *fd,
		       const char *image_key)
{
	const uint8_t *end = p + n;
	struct pb_field f;
	int r;

	while ((r = pb_next(&p, end, &f)) > 0) {
		if (f.num != 1)
			continue;
		if (f.wt != PB_LEN || pb_map_entry(f.data, f.len, fd,
						      image_key))
			return -1;
	}
	return r;
}

static enum wl_image_kind pb_image_kind(const struct pb_feature *ft)
{
	static const struct { const char *s; enum wl_image_kind k; } kinds[] = {
		{ "jpeg", WL_IMAGE_JPEG }, { "jpg", WL_IMAGE_JPEG },
		{ "png", WL_IMAGE_PNG }, { "webp", WL_IMAGE_WEBP },
	};

	if (ft->kind != 1 || !ft->found)
		return WL_IMAGE_UNKNOWN;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (ft->bytes_len == strlen(kinds[i].s) &&
		    !strncasecmp((const char *)ft->bytes, kinds[i].s,
				 ft->bytes_len))
			return kinds[i].k;
	return WL_IMAGE_UNKNOWN;
}

int wl_pb_example_find(const uint8_t *p, size_t n, struct wl_sample_view *out)
{
	return wl_pb_example_find_key(p, n, NULL, out);
}

int wl_pb_example_find_key(const uint8_t *p, size_t n, const char *key,
			   struct wl_sample_view *out)
{
	const uint8_t *end = p + n;
	struct pb_found fd = { 0 };
	struct pb_field f;
	int r;

	memset(out, 0, sizeof(*out));
	while ((r = pb_next(&p, end, &f)) > 0) {
		if (f.num != 1)
			continue;
		if (f.wt != PB_LEN || pb_features(f.data, f.len, &fd,
						     key && *key ? key :
						     "image/encoded"))
			return -WL_EBADREC;
	}
	if (r)
		return -WL_EBADREC;
	if (fd.image.kind != 1 || !fd.image.found || !fd.image.bytes_len)
		return -WL_ENOIMAGE;
	out->image = fd.image.bytes;
	out->image_len = fd.image.bytes_len;
	out->image_kind = pb_image_kind(&fd.format);
	if (fd.label.kind == 3 && fd.label.found) {
		out->has_label = true;
		out->label = fd.label.i64;
	}
	return 0;
}

/* ---- unwrap ---- */

int wl_tfr_unwrap(const uint8_t *rec, size_t len, struct wl_sample_view *out)
{
	return wl_tfr_unwrap_key(rec, len, NULL, out);
}

int wl_tfr_unwrap_key(const uint8_t *rec, size_t len, const char *key,
		      struct wl_sample_view *out)
{
	uint64_t dlen;

	memset(out, 0, sizeof(*out));
	if (len < TFR_OVERHEAD)
		return -WL_EBADHDR;
	if (!tfr_crc_ok(rec, 8, rec + 8))
		return -WL_ECRC;
	dlen = le64(rec);
	if (dlen != len - TFR_OVERHEAD)
		return -WL_EBADHDR;     /* not one framed record */
	if (!tfr_crc_ok(rec + TFR_HEAD, dlen, rec + TFR_HEAD + dlen))
		return -WL_ECRC;
	return wl_pb_example_find_key(rec + TFR_HEAD, dlen, key, out);
}
