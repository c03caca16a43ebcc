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

static void put16(uint8_t *p, uint64_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint64_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

size_t wl_zip_local(uint8_t *l, const char *name, size_t nl, uint64_t size)
{
	const bool big = size > WL_ZIP64_LIMIT;

	assert(nl <= 64);
	put32(l, SIG_LOCAL);
	put16(l + 4, big ? 45 : 20);
	put16(l + 6, 0);
	put16(l + 8, 0);
	put16(l + 10, 0x0000);
	put16(l + 12, 0x21);
	put32(l + 14, 0);                   /* CRC: patched after the data */
	put32(l + 18, big ? 0xffffffffu : size);
	put32(l + 22, big ? 0xffffffffu : size);
	put16(l + 26, nl);
	put16(l + 28, 20);
	memcpy(l + LOCAL_LEN, name, nl);
	put16(l + LOCAL_LEN + nl, 1);       /* zip64 extra, always */
	put16(l + LOCAL_LEN + nl + 2, 16);
	put64(l + LOCAL_LEN + nl + 4, size);
	put64(l + LOCAL_LEN + nl + 12, size);
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

	put32(c, SIG_CENTRAL);
	c[4] = big || far ? 45 : 20;        /* version made by: 3 = unix */
	c[5] = 3;
	put16(c + 6, big || far ? 45 : 20); /* version needed */
	put16(c + 8, 0);                    /* flags */
	put16(c + 10, 0);                   /* STORED */
	put16(c + 12, 0);                   /* 00:00:00 */
	put16(c + 14, 0x21);                /* 1980-01-01 */
	put32(c + 16, crc);
	put32(c + 20, big ? 0xffffffffu : size);
	put32(c + 24, big ? 0xffffffffu : size);
	put16(c + 28, nl);
	put16(c + 30, el);
	put16(c + 32, 0);                   /* comment */
	put16(c + 34, 0);                   /* disk */
	put16(c + 36, 0);                   /* internal attributes */
	put32(c + 38, 0600u << 16);         /* external: rw------- */
	put32(c + 42, far ? 0xffffffffu : off);
	memcpy(c + CENTRAL_LEN, name, nl);
	if (el) {
		put16(e, 1);
		put16(e + 2, el - 4);
		e += 4;
		if (big) {
			put64(e, size);
			put64(e + 8, size);
			e += 16;
		}
		if (far)
			put64(e, off);
	}
	return CENTRAL_LEN + nl + el;
}

size_t wl_zip_end(uint8_t *end, uint64_t n, uint64_t cd_off, uint64_t cd_len)
{
	size_t el = 0;

	if (cd_off > WL_ZIP64_LIMIT) {
		/* zip64 end of central directory record and locator */
		put32(end, SIG_EOCD64);
		put64(end + 4, 44);
		put16(end + 12, 45);
		put16(end + 14, 45);
		put32(end + 16, 0);
		put32(end + 20, 0);
		put64(end + 24, n);
		put64(end + 32, n);
		put64(end + 40, cd_len);
		put64(end + 48, cd_off);
		put32(end + 56, SIG_LOCATOR64);
		put32(end + 60, 0);
		put64(end + 64, cd_off + cd_len);
		put32(end + 72, 1);
		el = EOCD64_LEN + LOCATOR64_LEN;
	}
	put32(end + el, SIG_EOCD);
	put16(end + el + 4, 0);
	put16(end + el + 6, 0);
	put16(end + el + 8, n);
	put16(end + el + 10, n);
	put32(end + el + 12, cd_len);
	put32(end + el + 16, cd_off > 0xffffffffu ? 0xffffffffu : cd_off);
	put16(end + el + 20, 0);
	return el + EOCD_LEN;
}
