/*
 * aug_npy.c - the .npy header (numpy/lib/format.py, format versions 1.0,
 * 2.0 and 3.0): "\x93NUMPY", major, minor, the header length (u16 in
 * 1.0, u32 in 2.0 and 3.0), then a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces and ending in '\n'; the data follows. The dict is parsed by hand
 * (numpy uses ast.literal_eval): keys in any order, either quote, a
 * trailing comma, Python 2's "3L" integers. Every read is checked against
 * the bytes given; an error names the offset of the token at fault.
 */
#include <errno.h>
#include <string.h>

#include "augment.h"

static const uint8_t npy_magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

const char *aug_vol_fault_name(enum aug_vol_fault f)
{
	static const char *const names[AUG_VF_COUNT] = {
		[AUG_VF_NONE] = "none",
		[AUG_VF_NOT_NUMPY] = "not_numpy",
		[AUG_VF_NPY_VERSION] = "npy_version",
		[AUG_VF_NPY_HEADER] = "npy_header",
		[AUG_VF_NPY_DTYPE] = "npy_dtype",
		[AUG_VF_NPY_FORTRAN] = "npy_fortran_order",
		[AUG_VF_NPY_SHAPE] = "npy_shape",
		[AUG_VF_NPY_SHORT] = "npy_short",
		[AUG_VF_ZIP_EOCD] = "zip_no_eocd",
		[AUG_VF_ZIP_CDIR] = "zip_central_dir",
		[AUG_VF_ZIP_LOCAL] = "zip_local_header",
		[AUG_VF_ZIP_NO_MEMBER] = "zip_no_member",
		[AUG_VF_ZIP_METHOD] = "zip_method",
		[AUG_VF_ZIP_TRUNCATED] = "zip_member_truncated",
		[AUG_VF_DEFLATE] = "deflate",
		[AUG_VF_CRC] = "crc",
		[AUG_VF_TOO_LARGE] = "too_large",
		[AUG_VF_DIMS] = "dims",
	};

	return (unsigned)f < AUG_VF_COUNT && names[f] ? names[f] : "?";
}

/* Fills *ERR (when given) and returns CODE. */
static int npy_fail(struct aug_vol_err *err, int code, enum aug_vol_fault f,
		    uint64_t off)
{
	if (err)
		*err = (struct aug_vol_err){ .fault = f, .off = off };
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
		     enum aug_npy_dtype *dt, unsigned *size)
{
	static const struct {
		const char *descr;
		enum aug_npy_dtype dt;
		unsigned size;
	} known[] = {
		{ "|u1", AUG_NPY_U8, 1 }, { "<u1", AUG_NPY_U8, 1 },
		{ "|i1", AUG_NPY_I8, 1 }, { "<i1", AUG_NPY_I8, 1 },
		{ "<i2", AUG_NPY_I16, 2 }, { "<u2", AUG_NPY_U16, 2 },
		{ "<f4", AUG_NPY_F32, 4 },
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
static enum aug_vol_fault get_shape(struct hdr *h, struct aug_npy *o)
{
	o->ndim = 0;
	if (h->p >= h->end || h->b[h->p] != '(')
		return AUG_VF_NPY_HEADER;
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
				return AUG_VF_NPY_SHAPE;
			v = v * 10 + (uint64_t)(h->b[h->p] - '0');
			h->p++;
			digits++;
		}
		if (!digits)
			return AUG_VF_NPY_HEADER;
		if (h->p < h->end && h->b[h->p] == 'L')
			h->p++;         /* Python 2's long */
		if (o->ndim == AUG_NPY_MAX_DIMS)
			return AUG_VF_NPY_SHAPE;
		o->shape[o->ndim++] = v;
		skip_ws(h);
		if (h->p < h->end && h->b[h->p] == ',') {
			h->p++;
			continue;
		}
		if (h->p < h->end && h->b[h->p] == ')')
			break;
		return AUG_VF_NPY_HEADER;
	}
	h->p++;
	return AUG_VF_NONE;
}

int aug_npy_parse(const void *buf, size_t len, struct aug_npy *out,
		  struct aug_vol_err *err)
{
	const uint8_t *b = buf;
	struct hdr h = { .b = b };
	unsigned seen = 0;
	uint64_t hlen, hstart, n;
	bool fortran = false;
	size_t fortran_at = 0, shape_at = 0;

	if (err)
		*err = (struct aug_vol_err){ 0 };
	memset(out, 0, sizeof(*out));
	if (memcmp(b, npy_magic, len < 6 ? len : 6))
		return npy_fail(err, -AUG_ENOTJPEG, AUG_VF_NOT_NUMPY, 0);
	if (len < 8)
		return npy_fail(err, -AUG_ETRUNCATED, AUG_VF_NPY_SHORT, len);
	if (b[6] < 1 || b[6] > 3 || b[7] != 0)
		return npy_fail(err, -AUG_EUNSUPPORTED, AUG_VF_NPY_VERSION, 6);
	out->version = b[6];
	hstart = out->version == 1 ? 10 : 12;
	if (len < hstart)
		return npy_fail(err, -AUG_ETRUNCATED, AUG_VF_NPY_SHORT, len);
	hlen = (uint64_t)b[8] | (uint64_t)b[9] << 8;
	if (out->version > 1)
		hlen |= (uint64_t)b[10] << 16 | (uint64_t)b[11] << 24;
	if (hlen > len - hstart)
		return npy_fail(err, -AUG_ETRUNCATED, AUG_VF_NPY_SHORT, len);
	h.p = (size_t)hstart;
	h.end = (size_t)(hstart + hlen);

	skip_ws(&h);
	if (h.p >= h.end || b[h.p] != '{')
		return npy_fail(err, -AUG_ECORRUPT, AUG_VF_NPY_HEADER, h.p);
	h.p++;
	for (;;) {
		size_t ks, kn, vs, vn, at;
		unsigned bit;

		skip_ws(&h);
		if (h.p < h.end && b[h.p] == '}')
			break;
		at = h.p;
		if (!get_str(&h, &ks, &kn))
			return npy_fail(err, -AUG_ECORRUPT, AUG_VF_NPY_HEADER,
					at);
		bit = is_lit(&h, ks, kn, "descr") ? 1 :
		      is_lit(&h, ks, kn, "fortran_order") ? 2 :
		      is_lit(&h, ks, kn, "shape") ? 4 : 0;
		if (!bit || (seen & bit))   /* numpy wants exactly these */
			return npy_fail(err, -AUG_ECORRUPT, AUG_VF_NPY_HEADER,
					at);
		seen |= bit;
		skip_ws(&h);
		if (h.p >= h.end || b[h.p] != ':')
			return npy_fail(err, -AUG_ECORRUPT, AUG_VF_NPY_HEADER,
					h.p);
		h.p++;
		skip_ws(&h);
		at = h.p;
		if (bit == 1) {
			/* a list here is a structured dtype: not read */
			if (h.p < h.end && b[h.p] == '[')
				return npy_fail(err, -AUG_EUNSUPPORTED,
						AUG_VF_NPY_DTYPE, at);
			if (!get_str(&h, &vs, &vn))
				return npy_fail(err, -AUG_ECORRUPT,
						AUG_VF_NPY_HEADER, at);
			if (!dtype_of(&h, vs, vn, &out->dtype,
				      &out->itemsize))
				return npy_fail(err, -AUG_EUNSUPPORTED,
						AUG_VF_NPY_DTYPE, at);
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
						AUG_VF_NPY_HEADER, at);
			}
		} else {
			const enum aug_vol_fault f = get_shape(&h, out);

			shape_at = at;

			if (f)
				return npy_fail(err, -AUG_ECORRUPT, f,
						f == AUG_VF_NPY_SHAPE ? at :
						h.p);
		}
		skip_ws(&h);
		if (h.p < h.end && b[h.p] == ',') {
			h.p++;
			continue;
		}
		if (h.p < h.end && b[h.p] == '}')
			break;
		return npy_fail(err, -AUG_ECORRUPT, AUG_VF_NPY_HEADER, h.p);
	}
	h.p++;
	skip_ws(&h);
	if (h.p != h.end || seen != 7)
		return npy_fail(err, -AUG_ECORRUPT, AUG_VF_NPY_HEADER, h.p);
	if (fortran)
		return npy_fail(err, -AUG_EUNSUPPORTED, AUG_VF_NPY_FORTRAN,
				fortran_at);

	n = out->itemsize;
	for (unsigned i = 0; i < out->ndim; i++) {
		if (out->shape[i] && n > UINT64_MAX / out->shape[i])
			return npy_fail(err, -AUG_ECORRUPT, AUG_VF_NPY_SHAPE,
					shape_at);
		n *= out->shape[i];
	}
	out->data_off = hstart + hlen;
	out->data_bytes = n;
	if (n > len - out->data_off)
		return npy_fail(err, -AUG_ETRUNCATED, AUG_VF_NPY_SHORT, len);
	return 0;
}
