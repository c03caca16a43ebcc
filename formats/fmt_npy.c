/*
 * fmt_npy.c - the .npy / .npz row's reader and writer (fmt_npy.h): the
 * .npy header (numpy/lib/format.py, format versions 1.0, 2.0 and 3.0):
 * "\x93NUMPY", major, minor, the header length (u16 in 1.0, u32 in 2.0
 * and 3.0), then a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces and ending in '\n'; the data follows. The dict is parsed by hand
 * (numpy uses ast.literal_eval): keys in any order, either quote, a
 * trailing comma, Python 2's "3L" integers. Every read is checked against
 * the bytes given; an error names the offset of the token at fault.
 * Written as numpy.save writes it (wl_npy_header). And a volume file
 * opened: .npy in place, .npz member found (fmt_zip.c), inflated and
 * CRC-checked (wl_vol_open).
 *
 * DESIGN: the parsers and the writer are pure (any thread). A
 * wl_vol_reader belongs to one worker thread: its libdeflate decompressor
 * and its inflate buffer (grown to the largest member seen: libdeflate
 * decompresses whole buffers, so a DEFLATE member costs its full size in
 * memory, as numpy.load's array does) are that thread's alone.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "fmt_npy.h"
#include "fmt_write.h"

static const uint8_t npy_magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

const char *wl_vol_fault_name(enum wl_vol_fault f)
{
	static const char *const names[WL_VF_COUNT] = {
		[WL_VF_NONE] = "none",
		[WL_VF_NOT_NUMPY] = "not_numpy",
		[WL_VF_NPY_VERSION] = "npy_version",
		[WL_VF_NPY_HEADER] = "npy_header",
		[WL_VF_NPY_DTYPE] = "npy_dtype",
		[WL_VF_NPY_FORTRAN] = "npy_fortran_order",
		[WL_VF_NPY_SHAPE] = "npy_shape",
		[WL_VF_NPY_SHORT] = "npy_short",
		[WL_VF_ZIP_EOCD] = "zip_no_eocd",
		[WL_VF_ZIP_CDIR] = "zip_central_dir",
		[WL_VF_ZIP_LOCAL] = "zip_local_header",
		[WL_VF_ZIP_NO_MEMBER] = "zip_no_member",
		[WL_VF_ZIP_METHOD] = "zip_method",
		[WL_VF_ZIP_TRUNCATED] = "zip_member_truncated",
		[WL_VF_DEFLATE] = "deflate",
		[WL_VF_CRC] = "crc",
		[WL_VF_TOO_LARGE] = "too_large",
		[WL_VF_DIMS] = "dims",
	};

	return (unsigned)f < WL_VF_COUNT && names[f] ? names[f] : "?";
}

/* Fills *ERR (when given) and returns CODE. */
static int npy_fail(struct wl_vol_err *err, int code, enum wl_vol_fault f,
		    uint64_t off)
{
	if (err)
		*err = (struct wl_vol_err){ .fault = f, .off = off };
	return code;
}

/* The header's bytes [p, end), offsets from the file's start at base. */
struct hdr {
	const uint8_t *b;
	size_t p, end;
};

static void skip_ws(struct hdr *h)
{
	while (h->p < h->end && (h->b[h->p] == ' ' || h->b[h->p] == '\t' ||
				 h->b[h->p] == '\n' || h->b[h->p] == '\r'))
		h->p++;
}

/* A quoted string: its bytes at *S, length *N; the cursor past it. */
static bool get_str(struct hdr *h, size_t *s, size_t *n)
{
	uint8_t q;
	size_t i;

	if (h->p >= h->end || (h->b[h->p] != '\'' && h->b[h->p] != '"'))
		return false;
	q = h->b[h->p];
	for (i = h->p + 1; i < h->end && h->b[i] != q; i++)
		if (h->b[i] == '\\')
			return false;   /* no escapes in these keys/values */
	if (i >= h->end)
		return false;
	*s = h->p + 1;
	*n = i - h->p - 1;
	h->p = i + 1;
	return true;
}

static bool is_lit(const struct hdr *h, size_t s, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(h->b + s, lit, n);
}

static bool dtype_of(const struct hdr *h, size_t s, size_t n,
		     enum aug_vol_dtype *dt, unsigned *size)
{
	static const struct {
		const char *descr;
		enum aug_vol_dtype dt;
		unsigned size;
	} known[] = {
		{ "|u1", AUG_VOL_U8, 1 }, { "<u1", AUG_VOL_U8, 1 },
		{ "|i1", AUG_VOL_I8, 1 }, { "<i1", AUG_VOL_I8, 1 },
		{ "<i2", AUG_VOL_I16, 2 }, { "<u2", AUG_VOL_U16, 2 },
		{ "<f4", AUG_VOL_F32, 4 },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (is_lit(h, s, n, known[i].descr)) {
			*dt = known[i].dt;
			*size = known[i].size;
			return true;
		}
	return false;
}

/* The shape tuple; 0 or the fault (the cursor at the bad token). */
static enum wl_vol_fault get_shape(struct hdr *h, struct wl_npy *o)
{
	o->ndim = 0;
	if (h->p >= h->end || h->b[h->p] != '(')
		return WL_VF_NPY_HEADER;
	h->p++;
	for (;;) {
		uint64_t v = 0;
		size_t digits = 0;

		skip_ws(h);
		if (h->p < h->end && h->b[h->p] == ')')
			break;
		while (h->p < h->end && h->b[h->p] >= '0' &&
		       h->b[h->p] <= '9') {
			/* sides below 2^62 keep crop arithmetic in int64 */
			if (v >= (1ull << 62) / 10)
				return WL_VF_NPY_SHAPE;
			v = v * 10 + (uint64_t)(h->b[h->p] - '0');
			h->p++;
			digits++;
		}
		if (!digits)
			return WL_VF_NPY_HEADER;
		if (h->p < h->end && h->b[h->p] == 'L')
			h->p++;         /* Python 2's long */
		if (o->ndim == WL_NPY_MAX_DIMS)
			return WL_VF_NPY_SHAPE;
		o->shape[o->ndim++] = v;
		skip_ws(h);
		if (h->p < h->end && h->b[h->p] == ',') {
			h->p++;
			continue;
		}
		if (h->p < h->end && h->b[h->p] == ')')
			break;
		return WL_VF_NPY_HEADER;
	}
	h->p++;
	return WL_VF_NONE;
}

int wl_npy_parse(const void *buf, size_t len, struct wl_npy *out,
		  struct wl_vol_err *err)
{
	const uint8_t *b = buf;
	struct hdr h = { .b = b };
	unsigned seen = 0;
	uint64_t hlen, hstart, n;
	bool fortran = false;
	size_t fortran_at = 0, shape_at = 0;

	if (err)
		*err = (struct wl_vol_err){ 0 };
	memset(out, 0, sizeof(*out));
	if (memcmp(b, npy_magic, len < 6 ? len : 6))
		return npy_fail(err, -AUG_ENOTJPEG, WL_VF_NOT_NUMPY, 0);
	if (len < 8)
		return npy_fail(err, -AUG_ETRUNCATED, WL_VF_NPY_SHORT, len);
	if (b[6] < 1 || b[6] > 3 || b[7] != 0)
		return npy_fail(err, -AUG_EUNSUPPORTED, WL_VF_NPY_VERSION, 6);
	out->version = b[6];
	hstart = out->version == 1 ? 10 : 12;
	if (len < hstart)
		return npy_fail(err, -AUG_ETRUNCATED, WL_VF_NPY_SHORT, len);
	hlen = (uint64_t)b[8] | (uint64_t)b[9] << 8;
	if (out->version > 1)
		hlen |= (uint64_t)b[10] << 16 | (uint64_t)b[11] << 24;
	if (hlen > len - hstart)
		return npy_fail(err, -AUG_ETRUNCATED, WL_VF_NPY_SHORT, len);
	h.p = (size_t)hstart;
	h.end = (size_t)(hstart + hlen);

	skip_ws(&h);
	if (h.p >= h.end || b[h.p] != '{')
		return npy_fail(err, -AUG_ECORRUPT, WL_VF_NPY_HEADER, h.p);
	h.p++;
	for (;;) {
		size_t ks, kn, vs, vn, at;
		unsigned bit;

		skip_ws(&h);
		if (h.p < h.end && b[h.p] == '}')
			break;
		at = h.p;
		if (!get_str(&h, &ks, &kn))
			return npy_fail(err, -AUG_ECORRUPT, WL_VF_NPY_HEADER,
					at);
		bit = is_lit(&h, ks, kn, "descr") ? 1 :
		      is_lit(&h, ks, kn, "fortran_order") ? 2 :
		      is_lit(&h, ks, kn, "shape") ? 4 : 0;
		if (!bit || (seen & bit))   /* numpy wants exactly these */
			return npy_fail(err, -AUG_ECORRUPT, WL_VF_NPY_HEADER,
					at);
		seen |= bit;
		skip_ws(&h);
		if (h.p >= h.end || b[h.p] != ':')
			return npy_fail(err, -AUG_ECORRUPT, WL_VF_NPY_HEADER,
					h.p);
		h.p++;
		skip_ws(&h);
		at = h.p;
		if (bit == 1) {
			/* a list here is a structured dtype: not read */
			if (h.p < h.end && b[h.p] == '[')
				return npy_fail(err, -AUG_EUNSUPPORTED,
						WL_VF_NPY_DTYPE, at);
			if (!get_str(&h, &vs, &vn))
				return npy_fail(err, -AUG_ECORRUPT,
						WL_VF_NPY_HEADER, at);
			if (!dtype_of(&h, vs, vn, &out->dtype,
				      &out->itemsize))
				return npy_fail(err, -AUG_EUNSUPPORTED,
						WL_VF_NPY_DTYPE, at);
		} else if (bit == 2) {
			if (h.end - h.p >= 4 && !memcmp(b + h.p, "True", 4)) {
				fortran = true;
				fortran_at = at;
				h.p += 4;
			} else if (h.end - h.p >= 5 &&
				   !memcmp(b + h.p, "False", 5)) {
				h.p += 5;
			} else {
				return npy_fail(err, -AUG_ECORRUPT,
						WL_VF_NPY_HEADER, at);
			}
		} else {
			const enum wl_vol_fault f = get_shape(&h, out);

			shape_at = at;

			if (f)
				return npy_fail(err, -AUG_ECORRUPT, f,
						f == WL_VF_NPY_SHAPE ? at :
						h.p);
		}
		skip_ws(&h);
		if (h.p < h.end && b[h.p] == ',') {
			h.p++;
			continue;
		}
		if (h.p < h.end && b[h.p] == '}')
			break;
		return npy_fail(err, -AUG_ECORRUPT, WL_VF_NPY_HEADER, h.p);
	}
	h.p++;
	skip_ws(&h);
	if (h.p != h.end || seen != 7)
		return npy_fail(err, -AUG_ECORRUPT, WL_VF_NPY_HEADER, h.p);
	if (fortran)
		return npy_fail(err, -AUG_EUNSUPPORTED, WL_VF_NPY_FORTRAN,
				fortran_at);

	n = out->itemsize;
	for (unsigned i = 0; i < out->ndim; i++) {
		if (out->shape[i] && n > UINT64_MAX / out->shape[i])
			return npy_fail(err, -AUG_ECORRUPT, WL_VF_NPY_SHAPE,
					shape_at);
		n *= out->shape[i];
	}
	out->data_off = hstart + hlen;
	out->data_bytes = n;
	if (n > len - out->data_off)
		return npy_fail(err, -AUG_ETRUNCATED, WL_VF_NPY_SHORT, len);
	return 0;
}

size_t wl_npy_header(uint8_t *buf, const char *descr, const uint64_t *shape,
		     unsigned nd)
{
	char d[256];
	int n = snprintf(d, sizeof(d), "{'descr': '%s', 'fortran_order': "
			 "False, 'shape': (", descr);
	size_t hlen, pad;
	int first;

	/* 8 dims of 20 digits, the spaces and the rest: under 240 bytes,
	 * so d[] holds the dict and BUF (WL_NPY_HEADER_MAX) the header */
	assert(nd >= 1 && nd <= 8 && strlen(descr) <= 4);
	for (unsigned k = 0; k < nd; k++)
		n += snprintf(d + n, sizeof(d) - (size_t)n, "%s%llu",
			      k ? ", " : "", (unsigned long long)shape[k]);
	n += snprintf(d + n, sizeof(d) - (size_t)n, "%s), }",
		      nd == 1 ? "," : "");
	first = snprintf(NULL, 0, "%llu", (unsigned long long)shape[0]);
	n += snprintf(d + n, sizeof(d) - (size_t)n, "%*s", 21 - first, "");
	hlen = (size_t)n + 1;
	pad = 64 - (10 + hlen) % 64;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	wl_put_le(buf + 8, hlen + pad, 2);
	memcpy(buf + 10, d, (size_t)n);
	memset(buf + 10 + n, ' ', pad);
	buf[10 + n + pad] = '\n';
	return 10 + hlen + pad;
}

/* ---- a volume file opened ---- */

struct wl_vol_reader {
	struct libdeflate_decompressor *dd;
	uint64_t max_inflate;
	uint8_t *inf;           /* inflated member */
	size_t inf_cap;
};

int wl_vol_reader_create(uint64_t max_inflate, struct wl_vol_reader **out)
{
	struct wl_vol_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->dd = libdeflate_alloc_decompressor();
	if (!r->dd) {
		free(r);
		return -ENOMEM;
	}
	r->max_inflate = max_inflate ? max_inflate :
			 WL_VOL_DEFAULT_MAX_INFLATE;
	*out = r;
	return 0;
}

void wl_vol_reader_destroy(struct wl_vol_reader *r)
{
	if (!r)
		return;
	libdeflate_free_decompressor(r->dd);
	free(r->inf);
	free(r);
}

/* Member M of the zip in B: its .npy's bytes in *NPY (in place, or
 * inflated into R's buffer), CRC-checked. */
static int member_bytes(struct wl_vol_reader *r, const uint8_t *b,
			const struct wl_zip_member *m, const uint8_t **npy,
			uint64_t *inflated, struct wl_vol_err *err)
{
	const uint8_t *in = b + m->data_off;
	enum libdeflate_result res;

	*inflated = 0;
	if (m->method == 0) {
		*npy = in;
	} else {
		size_t want;

		if (m->usize > r->max_inflate || m->usize > SIZE_MAX)
			return npy_fail(err, -AUG_ETOOLARGE, WL_VF_TOO_LARGE,
					m->data_off);
		want = m->usize ? (size_t)m->usize : 1;
		if (want > r->inf_cap) {
			uint8_t *p = realloc(r->inf, want);

			if (!p)
				return -ENOMEM;
			r->inf = p;
			r->inf_cap = want;
		}
		/* SHORT_OUTPUT / INSUFFICIENT_SPACE: the stream's size is not
		 * the member's; BAD_DATA: it does not decode */
		res = libdeflate_deflate_decompress(r->dd, in, m->csize, r->inf,
						    m->usize, NULL);
		if (res != LIBDEFLATE_SUCCESS)
			return npy_fail(err, -AUG_ECORRUPT, WL_VF_DEFLATE,
					m->data_off);
		*npy = r->inf;
		*inflated = m->usize;
	}
	if (libdeflate_crc32(0, *npy, m->usize) != m->crc)
		return npy_fail(err, -AUG_ECORRUPT, WL_VF_CRC, m->data_off);
	return 0;
}

int wl_vol_open(struct wl_vol_reader *r, const void *buf, size_t len,
		const char *key, struct wl_vol_array *a,
		struct wl_vol_err *err)
{
	const uint8_t *b = buf, *base = b;
	uint64_t member = 0;    /* the .npz member's data offset */
	int rc;

	if (err)
		*err = (struct wl_vol_err){ 0 };
	memset(a, 0, sizeof(*a));
	if (len >= 4 && b[0] == 'P' && b[1] == 'K' && b[2] == 3 && b[3] == 4) {
		struct wl_zip_member m;

		rc = wl_zip_find(b, len, key, &m, err);
		if (rc)
			return rc;
		rc = member_bytes(r, b, &m, &base, &a->inflated, err);
		if (rc)
			return rc;
		rc = wl_npy_parse(base, (size_t)m.usize, &a->npy, err);
		if (rc && err) {
			/* offsets of the member's own bytes */
			if (a->inflated) {
				err->inner_off = err->off;
				err->off = m.data_off;
			} else {
				err->off += m.data_off;
			}
		}
		if (rc)
			return rc;
		member = m.data_off;
	} else {
		rc = wl_npy_parse(b, len, &a->npy, err);
		if (rc)
			return rc;
	}
	if (a->npy.ndim < 3) {
		/* at the header, as an offset like the parser's */
		npy_fail(err, -AUG_EUNSUPPORTED, WL_VF_DIMS, member + 8);
		if (err && a->inflated) {
			err->off = member;
			err->inner_off = 8;
		}
		return -AUG_EUNSUPPORTED;
	}
	a->arr.dtype = a->npy.dtype;
	a->arr.itemsize = a->npy.itemsize;
	/* an empty array (a leading axis of 0 too) crops to zeros */
	for (unsigned k = 0; k < 3; k++)
		a->arr.dims[k] = a->npy.data_bytes ?
				 a->npy.shape[a->npy.ndim - 3 + k] : 0;
	a->arr.data = base + a->npy.data_off;
	return 0;
}
