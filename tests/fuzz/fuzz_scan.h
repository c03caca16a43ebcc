/*
 * fuzz_scan.h - what the format fuzz targets share: run a scanner over a
 * stream in appends of a given size, each call on a window copied into a
 * buffer of exactly its length (so AddressSanitizer sees any read past
 * it), and check the scanner's promises; abort() on a broken one.
 */
#ifndef FEEDRATE_FUZZ_SCAN_H
#define FEEDRATE_FUZZ_SCAN_H

#include <stdlib.h>
#include <string.h>

#include "formats.h"

#define FZ_MAX_RECS 16384     /* past any input of FUZZ_MAX_LEN */

struct fz_scan {
	struct wl_record recs[FZ_MAX_RECS];
	size_t nrec;
	int err;
	uint64_t err_off;
};

static inline uint8_t *fz_copy(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);

	if (!c)
		abort();
	if (n)
		memcpy(c, p, n);
	return c;
}

/* Scan DATA (SIZE bytes) in appends of CHUNK bytes (SIZE: one shot). */
static inline void fz_scan(enum wl_format f, const struct wl_mds_shard *mds,
			   const uint8_t *data, size_t size, size_t chunk,
			   uint64_t max_record, struct fz_scan *out)
{
	struct wl_scanner s;
	uint64_t base = 0, fed = 0;

	if (!chunk)
		chunk = 1;
	out->nrec = 0;
	out->err = 0;
	out->err_off = 0;
	wl_scan_init(&s, f, mds, max_record);
	if (s.fmt != f || s.max_record != max_record || s.mds != mds)
		abort();
	for (;;) {
		const bool eof = fed == size;
		const size_t wlen = (size_t)(fed - base);
		uint8_t *win = fz_copy(data + base, wlen);
		struct wl_record rec;
		int r = wl_scan_next(&s, win, base, wlen, eof, &rec);

		free(win);
		if (r == 1) {
			if (rec.off < base || rec.off + rec.len > base + wlen ||
			    rec.len > max_record || out->nrec == FZ_MAX_RECS)
				abort();
			out->recs[out->nrec++] = rec;
			continue;
		}
		if (r < 0) {
			if (!wl_fmt_err_name(r))
				abort();        /* scanners give format errors */
			out->err = r;
			out->err_off = s.err_off;
			if (s.err_off > size)
				abort();
			/* the error stays */
			if (wl_scan_next(&s, NULL, s.keep_from, 0, eof, &rec) !=
			    r)
				abort();
			return;
		}
		if (r != 0)
			abort();
		if (eof)
			return;
		if (s.keep_from < base || s.keep_from > base + wlen)
			abort();
		base = s.keep_from;
		fed += size - fed < chunk ? size - fed : chunk;
		/* the window stays bounded: a record, or a TFRecord head */
		if (fed - base > (max_record > 16 ? max_record : 16) + chunk)
			abort();
	}
}

static inline void fz_scan_same(const struct fz_scan *a,
				const struct fz_scan *b)
{
	if (a->nrec != b->nrec || a->err != b->err ||
	    (a->err && a->err_off != b->err_off))
		abort();
	for (size_t i = 0; i < a->nrec; i++)
		if (a->recs[i].off != b->recs[i].off ||
		    a->recs[i].len != b->recs[i].len)
			abort();
}

/* An unwrap's answer: 0 with the image inside the record, or a format
 * error. */
static inline void fz_view_check(int r, const uint8_t *rec, size_t len,
				 const struct wl_sample_view *v)
{
	if (r == 0) {
		if (!v->image || !v->image_len || v->image < rec ||
		    v->image_len > len ||
		    (size_t)(v->image - rec) > len - v->image_len)
			abort();
	} else if (!wl_fmt_err_name(r)) {
		abort();
	}
}

struct fz_mem {
	const uint8_t *p;
	size_t n;
};

static inline int64_t fz_mem_pread(void *arg, void *buf, size_t len,
				   uint64_t off)
{
	const struct fz_mem *m = arg;

	if (off >= m->n)
		return 0;
	if (len > m->n - off)
		len = m->n - off;
	memcpy(buf, m->p + off, len);
	return (int64_t)len;
}

#endif /* FEEDRATE_FUZZ_SCAN_H */
