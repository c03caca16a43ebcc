/*
 * fmt_zip.c - the .npz side of the .npy / .npz row (fmt_npy.h): finding
 * a member of a zip held in memory (PKWARE APPNOTE 6.3: 4.3.6 local
 * header, 4.3.12 central directory header, 4.3.14-16 zip64 end records,
 * 4.5.3 zip64 extra field), as numpy.load opens an .npz through Python's
 * zipfile, and writing the records zipfile writes for numpy.savez.
 *
 * The central directory is the truth: numpy (zipfile with force_zip64)
 * writes a zip64 extra field into every local header, even for small
 * members, and a writer that streams may leave a local header's sizes
 * at 0 or 0xFFFFFFFF, so sizes and offsets come from the central
 * directory (and its zip64 extra field where a field is 0xFFFFFFFF); the
 * local header only gives the length of its own name and extra field,
 * which the data follows. Every read is checked against the bytes given.
 * All pure: any thread.
 */
#include <assert.h>
#include <string.h>

#include <libdeflate.h>

#include "fmt_npy.h"
#include "fmt_write.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u
#define EOCD_LEN 22u
#define LOCATOR64_LEN 20u
#define EOCD64_LEN 56u
#define CENTRAL_LEN 46u
#define LOCAL_LEN 30u

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int zip_fail(struct wl_vol_err *err, int code, enum wl_vol_fault f,
		    uint64_t off)
{
	if (err)
		*err = (struct wl_vol_err){ .fault = f, .off = off };
	return code;
}

/* Where the central directory is, from the end records. */
struct cdir {
	uint64_t off, size, count;
	uint64_t end;           /* where the end records start */
};

/* 0, or the fault's code with *ERR filled. */
static int find_cdir(const uint8_t *b, size_t len, struct cdir *cd,
		     struct wl_vol_err *err)
{
	uint64_t pos, stop;
	bool found = false;

	if (len < EOCD_LEN)
		return zip_fail(err, -AUG_ETRUNCATED, WL_VF_ZIP_EOCD, len);
	/* backwards over at most a 64 KiB comment */
	pos = len - EOCD_LEN;
	stop = pos > 0xffff ? pos - 0xffff : 0;
	for (;; pos--) {
		if (le32(b + pos) == SIG_EOCD &&
		    le16(b + pos + 20) <= len - pos - EOCD_LEN) {
			found = true;
			break;
		}
		if (pos == stop)
			break;
	}
	if (!found)
		return zip_fail(err, -AUG_ETRUNCATED, WL_VF_ZIP_EOCD, len);
	cd->end = pos;
	cd->count = le16(b + pos + 10);
	cd->size = le32(b + pos + 12);
	cd->off = le32(b + pos + 16);
	if (le16(b + pos + 4) != 0 || le16(b + pos + 6) != 0)
		/* a multi-disk archive: not one file */
		return zip_fail(err, -AUG_EUNSUPPORTED, WL_VF_ZIP_CDIR, pos);

	if (pos >= LOCATOR64_LEN &&
	    le32(b + pos - LOCATOR64_LEN) == SIG_LOCATOR64) {
		const uint64_t loc = pos - LOCATOR64_LEN;
		const uint64_t r = le64(b + loc + 8);

		if (r > loc || loc - r < EOCD64_LEN ||
		    le32(b + r) != SIG_EOCD64)
			return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_CDIR,
					loc);
		cd->count = le64(b + r + 32);
		cd->size = le64(b + r + 40);
		cd->off = le64(b + r + 48);
		cd->end = r;
	}
	if (cd->off > cd->end || cd->size > cd->end - cd->off)
		return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_CDIR, cd->end);
	return 0;
}

/* Applies the zip64 extra field of a central record (EXTRA, N bytes):
 * each field that is 0xFFFFFFFF in the record comes from it, in the order
 * usize, csize, offset. false when one is missing. */
static bool apply_zip64(const uint8_t *extra, size_t n, bool need_u,
			bool need_c, bool need_o, struct wl_zip_member *m)
{
	while (n >= 4) {
		const uint16_t id = le16(extra), sz = le16(extra + 2);
		const uint8_t *f = extra + 4;
		size_t have;

		if (sz > n - 4)
			return false;
		if (id == 0x0001) {
			have = sz;
			if (need_u) {
				if (have < 8)
					return false;
				m->usize = le64(f);
				f += 8;
				have -= 8;
			}
			if (need_c) {
				if (have < 8)
					return false;
				m->csize = le64(f);
				f += 8;
				have -= 8;
			}
			if (need_o) {
				if (have < 8)
					return false;
				m->header_off = le64(f);
			}
			return true;
		}
		extra += 4 + sz;
		n -= 4 + (size_t)sz;
	}
	return !need_u && !need_c && !need_o;
}

static bool name_is(const uint8_t *name, size_t n, const char *want,
		    size_t wn)
{
	return n == wn && !memcmp(name, want, n);
}

static bool ends_npy(const uint8_t *name, size_t n)
{
	return n >= 4 && !memcmp(name + n - 4, ".npy", 4);
}

int wl_zip_find(const void *buf, size_t len, const char *key,
		 struct wl_zip_member *out, struct wl_vol_err *err)
{
	const uint8_t *b = buf;
	struct cdir cd;
	char want[80];
	size_t wn = 0;
	bool any = !key || !key[0], have_first = false;
	struct wl_zip_member first = { 0 };
	uint64_t p, end, rec = 0, first_rec = 0;
	int rc;

	if (err)
		*err = (struct wl_vol_err){ 0 };
	memset(out, 0, sizeof(*out));
	if (len < 4 || le32(b) != SIG_LOCAL)
		return zip_fail(err, -AUG_ENOTJPEG, WL_VF_NOT_NUMPY, 0);
	rc = find_cdir(b, len, &cd, err);
	if (rc)
		return rc;
	if (any) {
		memcpy(want, "x.npy", 6);
		wn = 5;
	} else {
		wn = strlen(key);
		if (wn + 5 > sizeof(want))
			return zip_fail(err, -AUG_ENOTJPEG,
					WL_VF_ZIP_NO_MEMBER, cd.off);
		memcpy(want, key, wn + 1);
		if (!ends_npy((const uint8_t *)want, wn)) {
			memcpy(want + wn, ".npy", 5);
			wn += 4;
		}
	}

	p = cd.off;
	end = cd.off + cd.size;
	for (uint64_t i = 0; i < cd.count; i++) {
		struct wl_zip_member m = { 0 };
		uint64_t nl, el, cl;
		uint32_t c32, u32, o32;

		if (end - p < CENTRAL_LEN || le32(b + p) != SIG_CENTRAL)
			return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_CDIR,
					p);
		nl = le16(b + p + 28);
		el = le16(b + p + 30);
		cl = le16(b + p + 32);
		if (nl + el + cl > end - p - CENTRAL_LEN)
			return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_CDIR,
					p);
		m.name = b + p + CENTRAL_LEN;
		m.name_len = (size_t)nl;
		if (name_is(m.name, m.name_len, want, wn) ||
		    (any && !have_first && ends_npy(m.name, m.name_len))) {
			m.method = le16(b + p + 10);
			m.crc = le32(b + p + 16);
			c32 = le32(b + p + 20);
			u32 = le32(b + p + 24);
			o32 = le32(b + p + 42);
			m.csize = c32;
			m.usize = u32;
			m.header_off = o32;
			if (!apply_zip64(m.name + nl, (size_t)el,
					 u32 == 0xffffffffu, c32 == 0xffffffffu,
					 o32 == 0xffffffffu, &m))
				return zip_fail(err, -AUG_ECORRUPT,
						WL_VF_ZIP_CDIR, p);
			/* bit 0: encrypted; bit 6: strong encryption */
			if (le16(b + p + 8) & 0x41)
				return zip_fail(err, -AUG_EUNSUPPORTED,
						WL_VF_ZIP_METHOD, p);
			if (name_is(m.name, m.name_len, want, wn)) {
				*out = m;
				rec = p;
				goto found;
			}
			first = m;
			first_rec = p;
			have_first = true;
		}
		p += CENTRAL_LEN + nl + el + cl;
	}
	if (!have_first)
		return zip_fail(err, -AUG_ENOTJPEG, WL_VF_ZIP_NO_MEMBER,
				cd.off);
	*out = first;
	rec = first_rec;
found:
	p = out->header_off;
	if (p > cd.off || cd.off - p < LOCAL_LEN)
		/* the record points outside the members */
		return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_CDIR, rec);
	if (le32(b + p) != SIG_LOCAL)
		return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_LOCAL, p);
	{
		const uint64_t nl = le16(b + p + 26), el = le16(b + p + 28);

		if (nl + el > cd.off - p - LOCAL_LEN)
			return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_LOCAL,
					p);
		if (!name_is(b + p + LOCAL_LEN, (size_t)nl,
			     (const char *)out->name, out->name_len))
			return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_LOCAL,
					p + LOCAL_LEN);
		out->data_off = p + LOCAL_LEN + nl + el;
	}
	if (out->method != 0 && out->method != 8)
		return zip_fail(err, -AUG_EUNSUPPORTED, WL_VF_ZIP_METHOD, rec);
	if (out->method == 0 && out->csize != out->usize)
		return zip_fail(err, -AUG_ECORRUPT, WL_VF_ZIP_CDIR, rec);
	if (out->csize > cd.off - out->data_off)
		return zip_fail(err, -AUG_ETRUNCATED, WL_VF_ZIP_TRUNCATED,
				out->data_off);
	return 0;
}

uint32_t wl_zip_crc32(uint32_t crc, const void *buf, size_t len)
{
	return libdeflate_crc32(crc, buf, len);
}

/* ---- the writer: zipfile's records for numpy.savez ---- */

size_t wl_zip_local(uint8_t *l, const char *name, size_t nl, uint64_t size)
{
	const bool big = size > WL_ZIP64_LIMIT;

	assert(nl <= 64);
	wl_put_le(l, SIG_LOCAL, 4);
	wl_put_le(l + 4, big ? 45 : 20, 2);
	wl_put_le(l + 6, 0, 2);
	wl_put_le(l + 8, 0, 2);
	wl_put_le(l + 10, 0x0000, 2);
	wl_put_le(l + 12, 0x21, 2);
	/* CRC: patched after the data */
	wl_put_le(l + 14, 0, 4);
	wl_put_le(l + 18, big ? 0xffffffffu : size, 4);
	wl_put_le(l + 22, big ? 0xffffffffu : size, 4);
	wl_put_le(l + 26, nl, 2);
	wl_put_le(l + 28, 20, 2);
	memcpy(l + LOCAL_LEN, name, nl);
	wl_put_le(l + LOCAL_LEN + nl, 1, 2);    /* zip64 extra, always */
	wl_put_le(l + LOCAL_LEN + nl + 2, 16, 2);
	wl_put_le(l + LOCAL_LEN + nl + 4, size, 8);
	wl_put_le(l + LOCAL_LEN + nl + 12, size, 8);
	return LOCAL_LEN + nl + 20;
}

/* The zip64 extra field zipfile gives a member's central record: the
 * sizes past ZIP64_LIMIT, the offset past it. */
static size_t central_extra(uint64_t size, uint64_t off)
{
	const bool big = size > WL_ZIP64_LIMIT, far = off > WL_ZIP64_LIMIT;

	return big || far ? 4u + 8u * (2u * big + far) : 0;
}

size_t wl_zip_central_len(size_t nl, uint64_t size, uint64_t off)
{
	return CENTRAL_LEN + nl + central_extra(size, off);
}

size_t wl_zip_central(uint8_t *c, const char *name, size_t nl, uint32_t crc,
		      uint64_t size, uint64_t off)
{
	const bool big = size > WL_ZIP64_LIMIT, far = off > WL_ZIP64_LIMIT;
	const size_t el = central_extra(size, off);
	uint8_t *e = c + CENTRAL_LEN + nl;

	wl_put_le(c, SIG_CENTRAL, 4);
	c[4] = big || far ? 45 : 20;        /* version made by: 3 = unix */
	c[5] = 3;
	wl_put_le(c + 6, big || far ? 45 : 20, 2); /* version needed */
	wl_put_le(c + 8, 0, 2);                 /* flags */
	wl_put_le(c + 10, 0, 2);                /* STORED */
	wl_put_le(c + 12, 0, 2);                /* 00:00:00 */
	wl_put_le(c + 14, 0x21, 2);             /* 1980-01-01 */
	wl_put_le(c + 16, crc, 4);
	wl_put_le(c + 20, big ? 0xffffffffu : size, 4);
	wl_put_le(c + 24, big ? 0xffffffffu : size, 4);
	wl_put_le(c + 28, nl, 2);
	wl_put_le(c + 30, el, 2);
	wl_put_le(c + 32, 0, 2);                /* comment */
	wl_put_le(c + 34, 0, 2);                /* disk */
	wl_put_le(c + 36, 0, 2);                /* internal attributes */
	wl_put_le(c + 38, 0600u << 16, 4);      /* external: rw------- */
	wl_put_le(c + 42, far ? 0xffffffffu : off, 4);
	memcpy(c + CENTRAL_LEN, name, nl);
	if (el) {
		wl_put_le(e, 1, 2);
		wl_put_le(e + 2, el - 4, 2);
		e += 4;
		if (big) {
			wl_put_le(e, size, 8);
			wl_put_le(e + 8, size, 8);
			e += 16;
		}
		if (far)
			wl_put_le(e, off, 8);
	}
	return CENTRAL_LEN + nl + el;
}

size_t wl_zip_end(uint8_t *end, uint64_t n, uint64_t cd_off, uint64_t cd_len)
{
	size_t el = 0;

	if (cd_off > WL_ZIP64_LIMIT) {
		/* zip64 end of central directory record and locator */
		wl_put_le(end, SIG_EOCD64, 4);
		wl_put_le(end + 4, 44, 8);
		wl_put_le(end + 12, 45, 2);
		wl_put_le(end + 14, 45, 2);
		wl_put_le(end + 16, 0, 4);
		wl_put_le(end + 20, 0, 4);
		wl_put_le(end + 24, n, 8);
		wl_put_le(end + 32, n, 8);
		wl_put_le(end + 40, cd_len, 8);
		wl_put_le(end + 48, cd_off, 8);
		wl_put_le(end + 56, SIG_LOCATOR64, 4);
		wl_put_le(end + 60, 0, 4);
		wl_put_le(end + 64, cd_off + cd_len, 8);
		wl_put_le(end + 72, 1, 4);
		el = EOCD64_LEN + LOCATOR64_LEN;
	}
	wl_put_le(end + el, SIG_EOCD, 4);
	wl_put_le(end + el + 4, 0, 2);
	wl_put_le(end + el + 6, 0, 2);
	wl_put_le(end + el + 8, n, 2);
	wl_put_le(end + el + 10, n, 2);
	wl_put_le(end + el + 12, cd_len, 4);
	wl_put_le(end + el + 16, cd_off > 0xffffffffu ? 0xffffffffu : cd_off, 4);
	wl_put_le(end + el + 20, 0, 2);
	return el + EOCD_LEN;
}
